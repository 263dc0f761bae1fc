package gitsrc

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exportedPaths lists the files and symbolic links under dir, slash-separated and sorted.
func exportedPaths(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, line := range listTree(t, dir) {
		p, _, _ := strings.Cut(line, " ")
		out = append(out, p)
	}
	return out
}

// gitSees is the oracle for ExportWorktree: the files git lists as tracked or untracked-not-ignored
// that exist on disk, and whether "git status" shows any change.
func gitSees(t *testing.T, g *gitRepo) (paths []string, dirty bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range strings.Split(g.git("ls-files", "-co", "--exclude-standard"), "\n") {
		if _, err := os.Lstat(filepath.Join(g.dir, p)); p != "" && err == nil && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, g.git("status", "--porcelain") != ""
}

func TestExportWorktree(t *testing.T) {
	g := newFixture(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		do    func()
		dirty bool
	}{
		{"clean", func() {}, false},
		{"ignored files only", func() {
			g.write(map[string]string{"x.log": "ignored\n", "build/out.bin": "ignored dir\n", "sub/y.tmp": "nested ignore\n"})
		}, false},
		{"untracked file", func() { g.write(map[string]string{"new.go": "package fx\n", "y.tmp": "not ignored at the root\n"}) }, true},
		{"modified and deleted", func() {
			os.Remove(filepath.Join(g.dir, "new.go"))
			os.Remove(filepath.Join(g.dir, "y.tmp"))
			g.write(map[string]string{"a.go": "package fx\n\nconst A = 3 // uncommitted\n"})
			os.Remove(filepath.Join(g.dir, "sub", "b.go"))
		}, true},
		{"restored", func() { g.git("checkout", "--", "a.go", "sub/b.go") }, false},
		{"mode change only", func() { os.Chmod(filepath.Join(g.dir, "a.go"), 0o755) }, true},
		{"symlink retargeted", func() {
			os.Chmod(filepath.Join(g.dir, "a.go"), 0o644)
			g.write(map[string]string{"link": "->c.go"})
		}, true},
		{"untracked nested repository is skipped", func() {
			g.write(map[string]string{"link": "->a.go"})
			nested := filepath.Join(g.dir, "nested")
			os.MkdirAll(nested, 0o755)
			runGit(t, nested, 0, "init", "-q")
			os.WriteFile(filepath.Join(nested, "n.go"), []byte("package n\n"), 0o644)
		}, false}, // git status shows "?? nested/", but what is exported equals HEAD
	}
	for _, st := range steps {
		st.do()
		wantPaths, wantDirty := gitSees(t, g)
		nested := st.name == "untracked nested repository is skipped"
		if wantDirty != st.dirty && !nested {
			t.Fatalf("%s: git status says dirty=%v, the test expects %v", st.name, wantDirty, st.dirty)
		}
		if nested {
			wantPaths = slicesDelete(wantPaths, "nested/")
		}
		out := filepath.Join(t.TempDir(), "out")
		dirty, err := r.ExportWorktree(t.Context(), out)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if dirty != st.dirty {
			t.Errorf("%s: dirty = %v, want %v", st.name, dirty, st.dirty)
		}
		if diff := cmp.Diff(wantPaths, exportedPaths(t, out)); diff != "" {
			t.Errorf("%s: exported files (-git +ExportWorktree):\n%s", st.name, diff)
		}
		// Contents, modes and link targets are the work tree's.
		if diff := cmp.Diff(filterTree(listTree(t, g.dir), wantPaths), listTree(t, out)); diff != "" {
			t.Errorf("%s: exported contents (-work tree +export):\n%s", st.name, diff)
		}
	}

	// Exporting into the work tree itself would copy the copy.
	if _, err := r.ExportWorktree(t.Context(), filepath.Join(g.dir, "out")); err == nil || !strings.Contains(err.Error(), "inside the work tree") {
		t.Errorf("ExportWorktree into the work tree: %v", err)
	}
}

// filterTree keeps the listTree lines of the given paths.
func filterTree(lines, paths []string) []string {
	keep := map[string]bool{}
	for _, p := range paths {
		keep[p] = true
	}
	var out []string
	for _, l := range lines {
		if p, _, _ := strings.Cut(l, " "); keep[p] {
			out = append(out, l)
		}
	}
	return out
}

func slicesDelete(s []string, v string) []string {
	var out []string
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func TestExportWorktreeExcludes(t *testing.T) {
	g := newFixture(t)
	// .git/info/exclude and the global excludes file ($XDG_CONFIG_HOME/git/ignore, set up by
	// TestMain) count.
	os.WriteFile(filepath.Join(g.dir, ".git", "info", "exclude"), []byte("*.local\n"), 0o644)
	global := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "ignore")
	os.MkdirAll(filepath.Dir(global), 0o755)
	os.WriteFile(global, []byte("*.swp\n"), 0o644)
	t.Cleanup(func() { os.Remove(global) })
	// A negated pattern in a subdirectory re-includes a file.
	g.write(map[string]string{"a.local": "x", "a.go.swp": "x", "sub/keep.tmp": "x", "sub/drop.tmp": "x", "sub/.gitignore": "*.tmp\n!keep.tmp\n"})

	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	dirty, err := r.ExportWorktree(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	wantPaths, wantDirty := gitSees(t, g)
	if dirty != wantDirty || !dirty {
		t.Errorf("dirty = %v, git says %v (sub/.gitignore changed)", dirty, wantDirty)
	}
	if diff := cmp.Diff(wantPaths, exportedPaths(t, out)); diff != "" {
		t.Errorf("exported files (-git +ExportWorktree):\n%s", diff)
	}
	for _, p := range []string{"sub/keep.tmp"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("%s missing: %v", p, err)
		}
	}
}

func TestLinkedWorktree(t *testing.T) {
	g := newFixture(t)
	os.WriteFile(filepath.Join(g.dir, ".git", "info", "exclude"), []byte("*.local\n"), 0o644)
	wt := filepath.Join(t.TempDir(), "wt")
	g.git("worktree", "add", "-q", wt, "feature")
	os.WriteFile(filepath.Join(wt, "x.local"), []byte("excluded by the common info/exclude\n"), 0o644)
	r, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve("HEAD")
	if err != nil || head.SHA != g.sha["feature work"] {
		t.Fatalf("Resolve(HEAD) in a linked work tree = %v, %v; want feature work", head, err)
	}
	if main, err := r.Resolve("main"); err != nil || main.SHA != g.sha["merge"] {
		t.Errorf("Resolve(main) in a linked work tree = %v, %v", main, err)
	}
	out := filepath.Join(t.TempDir(), "out")
	dirty, err := r.ExportWorktree(t.Context(), out)
	if err != nil || dirty {
		t.Fatalf("ExportWorktree = %v, %v; want clean", dirty, err)
	}
	wtRepo := &gitRepo{t: t, dir: wt}
	want, _ := gitSees(t, wtRepo)
	if diff := cmp.Diff(want, exportedPaths(t, out)); diff != "" {
		t.Errorf("exported files (-git +ExportWorktree):\n%s", diff)
	}
}
