package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/proc"
	"golang.org/x/tools/txtar"
)

// Repo is a pair made into a git repository.
type Repo struct {
	Dir  string // the repository root
	Base string // base's full commit SHA
	Head string // head's full commit SHA
}

// gitEnv is the environment of every git command Materialize runs: no user or system configuration,
// a fixed identity and clock, so a pair gives the same SHAs every time.
var gitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
	"GIT_AUTHOR_NAME=perfgate corpus", "GIT_AUTHOR_EMAIL=corpus@example.com",
	"GIT_COMMITTER_NAME=perfgate corpus", "GIT_COMMITTER_EMAIL=corpus@example.com",
}

// Materialize writes the pair as a git repository in dir, which must not exist or be empty: commit
// base with the base files, then commit head with head's files and deletions, on branch main, with
// branches base and head.
func (p *Pair) Materialize(ctx context.Context, dir string) (*Repo, error) {
	if p.Demo != nil {
		return p.materializeDemo(dir)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("corpus: materializing %s in %s: directory is not empty", p.Name, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	g := &git{ctx: ctx, dir: dir}
	g.run("-c", "init.defaultBranch=main", "init", "-q")
	base := g.commit("base: "+p.Name, "2026-01-05T09:00:00Z", p.Base, nil)
	g.run("branch", "base")
	head := g.commit("head: "+p.About, "2026-01-05T10:00:00Z", p.Head, p.Delete)
	g.run("branch", "head")
	if g.err != nil {
		return nil, fmt.Errorf("corpus: materializing %s: %w", p.Name, g.err)
	}
	return &Repo{Dir: dir, Base: base, Head: head}, nil
}

func (p *Pair) materializeDemo(dir string) (*Repo, error) {
	r, err := demo.Materialize(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: pair %s: %w", p.Name, err)
	}
	base, head := r.Commits[p.Demo[0]], r.Commits[p.Demo[1]]
	if base == "" || head == "" {
		return nil, fmt.Errorf("corpus: pair %s: the demo history has no commit %q or %q (it has %s)",
			p.Name, p.Demo[0], p.Demo[1], strings.Join(demo.Names(), ", "))
	}
	return &Repo{Dir: dir, Base: base, Head: head}, nil
}

// git runs git commands in one repository and keeps the first error.
type git struct {
	ctx  context.Context
	dir  string
	date string // the author and committer date of the next commit
	err  error
}

func (g *git) run(args ...string) string {
	if g.err != nil {
		return ""
	}
	env := append(gitEnv[:len(gitEnv):len(gitEnv)], "GIT_AUTHOR_DATE="+g.date, "GIT_COMMITTER_DATE="+g.date)
	out, _, err := proc.Run(proc.Command(g.ctx, g.dir, env, append([]string{"git"}, args...)...))
	g.err = err
	return strings.TrimSpace(string(out))
}

// commit writes files, removes the paths in remove, and commits everything at the given date.
func (g *git) commit(message, date string, files []txtar.File, remove []string) string {
	if g.err != nil {
		return ""
	}
	for _, f := range files {
		name := filepath.Join(g.dir, filepath.FromSlash(f.Name))
		if g.err = os.MkdirAll(filepath.Dir(name), 0o755); g.err != nil {
			return ""
		}
		if g.err = os.WriteFile(name, f.Data, 0o644); g.err != nil {
			return ""
		}
	}
	for _, p := range remove {
		if err := os.Remove(filepath.Join(g.dir, filepath.FromSlash(p))); err != nil {
			g.err = fmt.Errorf("delete %s: %w", p, err)
			return ""
		}
	}
	g.date = date
	g.run("add", "-A")
	g.run("-c", "core.hooksPath="+os.DevNull, "commit", "-q", "--allow-empty", "-m", message)
	return g.run("rev-parse", "HEAD")
}
