package gitsrc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUncommitted checks Repo.Uncommitted against a work tree with an edit, a new file and an
// ignored one, and a clean one.
func TestUncommitted(t *testing.T) {
	g := newGitRepo(t)
	g.commit("first", map[string]string{"a.go": "package a\n", ".gitignore": "*.out\n"})
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Uncommitted(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("clean work tree: %q, %v; want nothing", got, err)
	}
	for name, body := range map[string]string{"a.go": "package a // edited\n", "b.go": "package a\n", "x.out": "ignored\n"} {
		if err := os.WriteFile(filepath.Join(g.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.Uncommitted(t.Context())
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"a.go", "b.go"}) {
		t.Errorf("Uncommitted = %q, %v; want a.go (edited) and b.go (new), not the ignored x.out", got, err)
	}
}
