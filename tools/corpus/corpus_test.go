package corpus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
)

// TestCorpusWellFormed checks every pair: it parses, has a truth (unless awaitingTruth names it),
// and materializes into a repository whose branch head has exactly two commits, base its parent.
// Without -short, the package also builds (its tests compiled, none run) on both sides.
func TestCorpusWellFormed(t *testing.T) {
	pairs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) < 20 {
		t.Errorf("the corpus has %d pairs, want at least 20", len(pairs))
	}
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			switch {
			case p.Truth == nil && !awaitingTruth[p.Name]:
				t.Errorf("no truth: measure it with go run ./corpus/measure -run '^%s$'", p.Name)
			case p.Truth != nil && awaitingTruth[p.Name]:
				t.Errorf("a truth, but listed in awaitingTruth: take it out of that set")
			}
			ctx := context.Background()
			repo, err := p.Materialize(ctx, filepath.Join(t.TempDir(), "repo"))
			if err != nil {
				t.Fatal(err)
			}
			if p.Demo == nil {
				if got := gitOut(t, repo.Dir, "rev-list", "--count", repo.Head); got != "2" {
					t.Errorf("head has %s commits, want 2", got)
				}
			}
			if got := gitOut(t, repo.Dir, "rev-parse", repo.Head+"^"); got != repo.Base {
				t.Errorf("head's parent is %s, want base %s", got, repo.Base)
			}
			if testing.Short() {
				return
			}
			for _, side := range []string{repo.Base, repo.Head} {
				buildSide(t, p, repo.Dir, side)
			}
		})
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, _, err := proc.Run(proc.Command(context.Background(), dir, nil, append([]string{"git"}, args...)...))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// buildSide checks out commit into a new work tree and compiles the pair's package with its tests,
// with the pair's build tags.
func buildSide(t *testing.T, p *Pair, dir, commit string) {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "wt")
	gitOut(t, dir, "worktree", "add", "-q", "--detach", wt, commit)
	args := []string{"go", "test", "-count=1", "-run", "^$", "-o", os.DevNull}
	for i, f := range p.Flags {
		if f == "-tags" && i+1 < len(p.Flags) {
			args = append(args, "-tags", p.Flags[i+1])
		}
	}
	args = append(args, p.Pkg)
	if _, _, err := proc.Run(proc.Command(context.Background(), wt, []string{"GOFLAGS=-mod=mod"}, args...)); err != nil {
		t.Errorf("%s at %.12s does not build: %v", p.Pkg, commit, err)
	}
}
