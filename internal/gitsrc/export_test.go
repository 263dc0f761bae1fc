package gitsrc

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/proc"
)

func TestExport(t *testing.T) {
	g := newFixture(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve("light")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := r.Export(t.Context(), c, out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`.gitignore f "*.log\nbuild/\n"`,
		`a.go f "package fx\n\nconst A = 1\n"`,
		`go.mod f "module example.com/fx\n\ngo 1.21\n"`,
		`keep.log f "tracked although ignored\n"`,
		`link l -> a.go`,
		`run.sh x "#!/bin/sh\necho hi\n"`,
		`sub/.gitignore f "*.tmp\n"`,
		`sub/b.go f "package sub\n"`,
	}
	if diff := cmp.Diff(want, listTree(t, out)); diff != "" {
		t.Errorf("exported tree of first (-want +got):\n%s", diff)
	}
	// The user's work tree is untouched: still at merge, clean.
	if st := g.git("status", "--porcelain"); st != "" {
		t.Errorf("git status after Export = %q, want clean", st)
	}

	// A second export needs an empty directory.
	if err := r.Export(t.Context(), c, out); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Export into a non-empty directory: %v", err)
	}
}

func TestExportCancelled(t *testing.T) {
	g := newFixture(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out := filepath.Join(t.TempDir(), "out")
	if err := r.Export(ctx, c, out); !errors.Is(err, context.Canceled) {
		t.Errorf("Export with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled Export left %s behind (stat: %v)", out, err)
	}
	// A directory the caller made is emptied, not removed.
	mine := t.TempDir()
	if _, err := r.ExportWorktree(ctx, mine); !errors.Is(err, context.Canceled) {
		t.Errorf("ExportWorktree with a cancelled context: %v, want context.Canceled", err)
	}
	if entries, err := os.ReadDir(mine); err != nil || len(entries) != 0 {
		t.Errorf("cancelled ExportWorktree left %d entries in %s (%v)", len(entries), mine, err)
	}
	// ExportTemp leaves nothing in its parent directory.
	tmp := t.TempDir()
	if _, err := r.ExportTemp(ctx, c, tmp); !errors.Is(err, context.Canceled) {
		t.Errorf("ExportTemp with a cancelled context: %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("cancelled ExportTemp left %v in %s", entries, tmp)
	}
}

// countdown is a context that is cancelled after its Err method has been called n times: an export
// cancelled in the middle, after it wrote some files.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestExportCancelledMidway(t *testing.T) {
	g := newFixture(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Resolve("HEAD")
	for n := 1; n < 8; n++ {
		out := filepath.Join(t.TempDir(), "out")
		if err := r.Export(&countdown{t.Context(), n}, c, out); !errors.Is(err, context.Canceled) {
			t.Fatalf("Export cancelled after %d entries: %v", n, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Export cancelled after %d entries left %s", n, out)
		}
		mine := t.TempDir()
		if _, err := r.ExportWorktree(&countdown{t.Context(), n}, mine); !errors.Is(err, context.Canceled) {
			t.Fatalf("ExportWorktree cancelled after %d entries: %v", n, err)
		}
		if entries, _ := os.ReadDir(mine); len(entries) != 0 {
			t.Errorf("ExportWorktree cancelled after %d entries left %d entries", n, len(entries))
		}
	}
}

func TestExportTemp(t *testing.T) {
	g := newFixture(t)
	g.commit("nested module", map[string]string{"tools/go.mod": "module example.com/fx/tools\n", "tools/x/x.go": "package x\n"})
	tmp := t.TempDir()
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(rel, rev, wantModule string) {
		t.Helper()
		c, err := r.Resolve(rev)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := r.ExportTemp(t.Context(), c, tmp)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := tree.Module(rel)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(tree.Dir, filepath.FromSlash(wantModule)); mod != want || tree.Commit != c {
			t.Errorf("%s at %s: Module = %s, want %s", rel, rev, mod, want)
		}
		if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
			t.Error(err)
		}
		if err := tree.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tree.Dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Close left %s", tree.Dir)
		}
	}
	check(".", "HEAD", ".")
	check("sub", "HEAD", ".")
	check("tools/x", "HEAD", "tools")
	check("tools", "HEAD", "tools")
	check("tools/x", "HEAD~1", ".") // before tools/ had its own module

	// A tree without go.mod exports; its directories are in no module.
	g.git("rm", "-q", "go.mod", "tools/go.mod")
	g.commit("no module", nil)
	c, _ := r.Resolve("HEAD")
	tree, err := r.ExportTemp(t.Context(), c, tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	_, err = tree.Module("tools/x")
	var nm *NoModuleError
	if !errors.As(err, &nm) || err.Error() != "tools/x is in no Go module in "+c.Short()+": no go.mod in tools/x or any parent up to the repository root" {
		t.Errorf("Module without go.mod: %v, want *NoModuleError", err)
	}
	if _, err := tree.Module("../x"); err == nil || !strings.Contains(err.Error(), "outside the repository") {
		t.Errorf("Module(../x) = %v, want an error saying it is outside the repository", err)
	}

	// A failed export leaves nothing behind.
	tmp2 := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.ExportTemp(ctx, c, tmp2); err == nil {
		t.Errorf("ExportTemp with a cancelled context: no error")
	}
	if entries, _ := os.ReadDir(tmp2); len(entries) != 0 {
		t.Errorf("failed ExportTemp left %v in %s", entries, tmp2)
	}
}

func TestExportSubmodule(t *testing.T) {
	g := newFixture(t)
	// A gitlink entry, as "git submodule add" records it (without fetching anything).
	g.git("update-index", "--add", "--cacheinfo", "160000,"+g.sha["first"]+",third_party/lib")
	g.tick++
	g.git("commit", "-q", "-m", "add submodule")
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Resolve("HEAD")
	var se *SubmoduleError
	out := filepath.Join(t.TempDir(), "out")
	err = r.Export(t.Context(), c, out)
	if !errors.As(err, &se) || se.Path != "third_party/lib" || se.SHA != g.sha["first"] {
		t.Errorf("Export with a submodule: %v, want *SubmoduleError for third_party/lib", err)
	} else if !strings.Contains(err.Error(), "submodule third_party/lib") || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("submodule error message %q", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed Export left %s behind", out)
	}
	if _, err := r.ExportWorktree(t.Context(), out); !errors.As(err, &se) {
		t.Errorf("ExportWorktree with a submodule: %v, want *SubmoduleError", err)
	}
}

func TestShallowClone(t *testing.T) {
	g := newFixture(t)
	g.git("branch", "-D", "c0ffee") // else the clone fetches first as that branch's tip
	c := g.clone("--depth", "1", "--no-single-branch", "--no-tags")
	c.git("checkout", "-q", "-b", "feature", "origin/feature")
	r, err := Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Shallow() {
		t.Fatal("Shallow() = false for a --depth 1 clone")
	}

	// The boundary commit itself resolves and exports: its tree is present.
	head, err := r.Resolve("HEAD")
	if err != nil || head.SHA != g.sha["feature work"] {
		t.Fatalf("Resolve(HEAD) = %v, %v; want feature work", head, err)
	}
	if err := r.Export(t.Context(), head, filepath.Join(t.TempDir(), "out")); err != nil {
		t.Errorf("Export of the shallow boundary commit: %v", err)
	}

	checkShallow := func(err error, what, missing string) {
		t.Helper()
		var se *ShallowError
		if !errors.As(err, &se) {
			t.Fatalf("error = %v, want *ShallowError", err)
		}
		if se.Missing != missing || !strings.Contains(se.What, what) {
			t.Errorf("ShallowError{What: %q, Missing: %s}, want %q, %s", se.What, se.Missing, what, missing)
		}
		for _, s := range []string{missing, "fetch-depth: 0", "git fetch --unshallow"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("message %q does not mention %q", err, s)
			}
		}
	}
	_, err = r.Resolve("HEAD~1")
	checkShallow(err, `resolving "HEAD~1"`, g.sha["second"])
	_, err = r.Resolve(g.sha["first"])
	checkShallow(err, "resolving", g.sha["first"])

	// origin/main (merge) is present, but its history down to the merge-base (feature work) is not.
	_, _, err = r.DefaultBase()
	var se *ShallowError
	if !errors.As(err, &se) || !strings.Contains(se.What, "merge-base of HEAD and origin/main") {
		t.Errorf("DefaultBase in a shallow clone: %v, want *ShallowError about the merge-base", err)
	}

	// A name that does not exist at all is still an unknown revision, with the shallow hint.
	_, err = r.Resolve("nosuch")
	var ue *UnknownRevisionError
	if !errors.As(err, &ue) || !ue.Shallow || !strings.Contains(err.Error(), "fetch-depth: 0") {
		t.Errorf("Resolve(nosuch) in a shallow clone: %v", err)
	}
}

// BenchmarkExportDemo measures exporting the demo fixture (internal/demo, checked out at folded):
//
//	go test -run '^$' -bench ExportDemo ./internal/gitsrc
func BenchmarkExportDemo(b *testing.B) {
	repo, err := demo.Materialize(filepath.Join(b.TempDir(), "demo"))
	if err != nil {
		b.Fatal(err)
	}
	r, err := Open(repo.Dir)
	if err != nil {
		b.Fatal(err)
	}
	c, err := r.Resolve(repo.Commits["base"])
	if err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	b.Run("commit", func(b *testing.B) {
		for b.Loop() {
			tree, err := r.ExportTemp(context.Background(), c, tmp)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	})
	b.Run("worktree", func(b *testing.B) {
		for b.Loop() {
			tree, err := r.ExportWorktreeTemp(context.Background(), tmp)
			if err != nil {
				b.Fatal(err)
			}
			if tree.Dirty {
				b.Fatal("the freshly materialised demo work tree is dirty")
			}
			tree.Close()
		}
	})
}

// craftedCommit writes a commit whose root tree has exactly entries (mode, name, object), in that
// order, with git hash-object --literally, which writes trees git itself never would (git fsck
// reports them).
func craftedCommit(t *testing.T, g *gitRepo, entries [][3]string) string {
	t.Helper()
	var tree bytes.Buffer
	for _, e := range entries {
		sha, err := hex.DecodeString(e[2])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&tree, "%s %s\x00", e[0], e[1])
		tree.Write(sha)
	}
	file := filepath.Join(t.TempDir(), "tree")
	if err := os.WriteFile(file, tree.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sha := g.git("hash-object", "-t", "tree", "--literally", "-w", file)
	return g.git("commit-tree", sha, "-m", "crafted")
}

// blob writes content as a blob and returns its name.
func blob(t *testing.T, g *gitRepo, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return g.git("hash-object", "-w", file)
}

// TestExportRefusesCraftedTrees: a symbolic link a pointing outside and a subtree a/evil of the
// same name, a file and a subtree of one name, and two files of one name are refused with an
// *UnsafeTreeError; nothing is written outside the export directory, and the directory is left as
// it was.
func TestExportRefusesCraftedTrees(t *testing.T) {
	g := newGitRepo(t)
	outside := t.TempDir()
	evil := blob(t, g, "package evil\n")
	subFile := filepath.Join(t.TempDir(), "mktree")
	if err := os.WriteFile(subFile, []byte("100644 blob "+evil+"\tevil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := runGitStdin(t, g, subFile, "mktree") // a tree holding evil
	link := blob(t, g, outside)
	other := blob(t, g, "the other a\n")
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		entries [][3]string
	}{
		{"symlink then subtree", [][3]string{{"120000", "a", link}, {"40000", "a", sub}}},
		{"subtree then symlink", [][3]string{{"40000", "a", sub}, {"120000", "a", link}}},
		{"file then subtree", [][3]string{{"100644", "a", other}, {"40000", "a", sub}}},
		{"two files", [][3]string{{"100644", "a", evil}, {"100644", "a", other}}},
	} {
		sha := craftedCommit(t, g, c.entries)
		cm, err := r.Resolve(sha)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		err = r.Export(t.Context(), cm, out)
		var ue *UnsafeTreeError
		if !errors.As(err, &ue) || ue.Path != "a" && ue.Path != "a/evil" {
			t.Errorf("%s: Export = %v, want an *UnsafeTreeError about a", c.name, err)
		}
		if ents, _ := os.ReadDir(outside); len(ents) > 0 {
			t.Fatalf("%s: Export wrote %s outside its directory", c.name, ents[0].Name())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the failed export left %s behind", c.name, out)
		}
	}
}

// runGitStdin runs git with file as its standard input.
func runGitStdin(t *testing.T, g *gitRepo, file string, args ...string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := proc.Command(t.Context(), g.dir, nil, append([]string{"git"}, args...)...)
	cmd.Stdin = f
	out, _, err := proc.Run(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
