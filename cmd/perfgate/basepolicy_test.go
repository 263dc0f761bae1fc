package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/record"
)

// TestTakePolicy: with policy-from base the policy is read from base's commit in git, not from the
// work tree's file, and base's commit is recorded; a base without the file means the defaults; a
// file outside the repository is refused; policy-from head reads no repository.
func TestTakePolicy(t *testing.T) {
	dir := t.TempDir()
	gittest.Init(t, dir)
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	bare := gittest.CommitAll(t, dir, "no configuration", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	write(config.FileName, "alpha: 0.01\n")
	withFile := gittest.CommitAll(t, dir, "base", time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	write(config.FileName, "alpha: 0.2\n") // the pull request's loosening, uncommitted
	path := filepath.Join(dir, config.FileName)

	resolve := func(base, from, headPath string) (config.Config, error) {
		t.Helper()
		c := config.Default()
		c.Dir, c.Base, c.PolicyFrom = dir, base, from
		if err := c.Resolve(path, nil); err != nil {
			t.Fatal(err)
		}
		return c, takePolicy(&c, headPath, nil)
	}
	c, err := resolve(withFile, config.PolicyFromBase, path)
	if err != nil || c.Alpha != 0.01 || c.PolicyOrigin.From != record.Base || c.PolicyOrigin.BaseCommit != withFile ||
		len(c.PolicyOrigin.Changes) != 1 {
		t.Errorf("policy-from base: alpha %v, origin %+v, error %v; want base's 0.01 from %s, one change", c.Alpha,
			c.PolicyOrigin, err, withFile)
	}
	c, err = resolve(bare, config.PolicyFromBase, path)
	if err != nil || c.Alpha != config.Default().Alpha || c.PolicyOrigin.BaseCommit != bare {
		t.Errorf("base without the file: alpha %v, origin %+v, error %v; want the default", c.Alpha, c.PolicyOrigin, err)
	}
	c, err = resolve(withFile, config.PolicyFromHead, path)
	if err != nil || c.Alpha != 0.2 || c.PolicyOrigin.From != record.Head {
		t.Errorf("policy-from head: alpha %v, origin %+v, error %v; want head's 0.2", c.Alpha, c.PolicyOrigin, err)
	}
	outside := filepath.Join(t.TempDir(), config.FileName)
	if _, err := resolve(withFile, config.PolicyFromBase, outside); config.ExitCode(err) != record.ExitUsage {
		t.Errorf("a file outside the repository: error %v, want a configuration error", err)
	}
}
