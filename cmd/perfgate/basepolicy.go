package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gitsrc"
)

// maxConfigBytes bounds a configuration file read from git.
const maxConfigBytes = 1 << 20

// takePolicy sets the gate policy of cfg as cfg.PolicyFrom says (config.Config.BasePolicy). cfg
// must already be resolved from head's configuration file at headPath and the settings given. With
// policy-from base, base's configuration file is read from git at headPath's place in base's commit
// (never from the work tree; a base without the file means the defaults) and config.PolicyFromFile
// makes the policy of it: reading a repository is the command's, config reads none.
func takePolicy(cfg *config.Config, headPath string, settings []config.Setting) error {
	if base, err := cfg.BasePolicy(); err != nil || !base {
		return err
	}
	repo, err := gitsrc.Open(cfg.Dir)
	if err != nil {
		return fmt.Errorf("reading base's configuration: %w", err)
	}
	abs, err := filepath.Abs(headPath)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(repo.Root(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &config.Error{Key: "policy-from", Value: config.PolicyFromBase,
			Want: "a configuration file inside the repository (base's is read from git at the same path), or policy-from head"}
	}
	rel = filepath.ToSlash(rel)
	var commit *gitsrc.Commit
	if cfg.Base == "" {
		commit, _, err = repo.DefaultBase()
	} else {
		commit, err = repo.Resolve(cfg.Base)
	}
	if err != nil {
		return err
	}
	data, err := repo.ReadFile(commit, rel, maxConfigBytes)
	if err != nil && !errors.Is(err, gitsrc.ErrNoFile) {
		return fmt.Errorf("reading base's configuration: %w", err)
	}
	return cfg.PolicyFromFile(data, fmt.Sprintf("%s at base %s", rel, commit.Short()), commit.SHA, settings)
}
