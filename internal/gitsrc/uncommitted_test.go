package gitsrc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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

// TestUncommittedStat: a file whose size, modification time and inode are those the index recorded
// is not read, as git status does not read it; unless the index was written in the same instant
// (racily clean), when it is hashed. Staged and deleted files are listed too.
func TestUncommittedStat(t *testing.T) {
	g := newGitRepo(t)
	g.commit("first", map[string]string{"a.go": "package a\n", "d.go": "package a\n"})
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := r.st.Index()
	if err != nil {
		t.Fatal(err)
	}
	e, err := idx.Entry("a.go")
	if err != nil {
		t.Fatal(err)
	}
	a, index := filepath.Join(g.dir, "a.go"), filepath.Join(g.dir, ".git", "index")
	// Same size, same modification time, same inode: only the content tells.
	if err := os.WriteFile(a, []byte("package b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, want ...string) {
		t.Helper()
		got, err := r.Uncommitted(t.Context())
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: Uncommitted = %q, %v; want %q", what, got, err, want)
		}
	}
	os.Chtimes(a, e.ModifiedAt, e.ModifiedAt)
	os.Chtimes(index, e.ModifiedAt, e.ModifiedAt)
	check("racily clean (index written in the file's instant)", "a.go")
	later := e.ModifiedAt.Add(time.Second)
	os.Chtimes(index, later, later)
	check("stat data unchanged, index written later (the file is not read)")
	g.write(map[string]string{"n.go": "package a\n"})
	g.git("add", "n.go")
	os.Remove(filepath.Join(g.dir, "d.go"))
	check("staged and deleted", "d.go", "n.go")
}
