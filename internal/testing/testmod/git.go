package testmod

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
)

// Repo is a git repository made with the git command line in a test's temporary directory, for
// end-to-end tests that compare two of its commits. Git runs isolated by gittest, with a fixed
// clock, so the same commits give the same SHAs.
type Repo struct {
	Dir  string
	t    testing.TB
	env  []string // gittest's isolation, in a home of the repository's own
	tick int
}

// NewRepo creates an empty repository (branch main) in a new directory "repo" under a temporary
// directory of t.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{Dir: filepath.Join(t.TempDir(), "repo"), t: t, env: gittest.TestEnv(t)}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("-c", "init.defaultBranch=main", "init", "-q")
	return r
}

// Git runs git with args in the repository and returns its trimmed standard output; a failure fails
// the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	env := append(slices.Clip(r.env), gittest.Date(r.tick)...)
	out, _, err := proc.Run(proc.Command(context.Background(), r.Dir, env, append([]string{"git"}, args...)...))
	if err != nil {
		r.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// Commit writes files (slash-separated path → content) into the work tree, removes the paths in
// remove, stages everything and commits with the message subject. It returns the commit's SHA.
func (r *Repo) Commit(subject string, files map[string]string, remove ...string) string {
	r.t.Helper()
	Write(r.t, r.Dir, files)
	for _, p := range remove {
		if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(p))); err != nil {
			r.t.Fatal(err)
		}
	}
	r.Git("add", "-A")
	r.tick++
	r.Git("commit", "-q", "--allow-empty", "-m", subject)
	return r.Git("rev-parse", "HEAD")
}
