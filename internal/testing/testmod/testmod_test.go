package testmod

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTemp(t *testing.T) {
	dir := Temp(t, map[string]string{"go.mod": GoMod("example.com/m", "1.21"), "a/b/c.go": "package b\n"})
	for name, want := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "a/b/c.go": "package b\n"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestRepo(t *testing.T) {
	r := NewRepo(t)
	first := r.Commit("first", map[string]string{"a/x.txt": "x\n", "b.txt": "b\n"})
	second := r.Commit("second", map[string]string{"c.txt": "c\n"}, "a")
	if len(first) != 40 || first == second {
		t.Fatalf("commits %q, %q: want two different full SHAs", first, second)
	}
	if got := r.Git("ls-tree", "-r", "--name-only", second); got != "b.txt\nc.txt" {
		t.Errorf("second commit's tree = %q, want b.txt and c.txt", got)
	}
	if got := r.Git("log", "--format=%s", "-1", first); got != "first" {
		t.Errorf("subject = %q, want first", got)
	}
}
