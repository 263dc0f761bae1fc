package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// packageTree writes a module with a package directory pkg into a fresh directory and returns the
// module root and the package directory: pkg has a source file, a file too large to copy, testdata
// two levels deep, a subdirectory, a link to a regular file; the module has a sibling directory
// with shared test data.
func packageTree(t *testing.T) (root, pkg string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "mod")
	pkg = filepath.Join(root, "pkg")
	for name, content := range map[string]string{
		"go.mod":                   "module example.com/mod\n",
		"shared/testdata/s.txt":    "shared",
		"pkg/p.go":                 "package pkg\n",
		"pkg/testdata/x.txt":       "x",
		"pkg/testdata/deep/y.txt":  "y",
		"pkg/sub/sub.go":           "package sub\n",
		"pkg/notes/ignored.txt":    "n",
		"pkg/readonly.txt":         "ro",
		"pkg/testdata/deep/z.json": "{}",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(pkg, "readonly.txt"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "big.bin"), bytes.Repeat([]byte{1}, MaxCopiedFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("testdata/x.txt", filepath.Join(pkg, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(pkg, "dangling")); err != nil {
		t.Fatal(err)
	}
	return root, pkg
}

// TestWorkDirCopies: the working directory is a copy of the package's files and testdata tree
// (regular files, writable, links resolved), with the package's other subdirectories, its too-large
// file and the module's other directories linked, and each call makes a fresh copy.
func TestWorkDirCopies(t *testing.T) {
	root, pkg := packageTree(t)
	s, err := New(Config{Mode: ModeOff, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	scratch, remove, err := s.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	wd, _, err := s.WorkDir(scratch, pkg)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(scratch, "wd", "mod", "pkg"); wd != want {
		t.Errorf("working directory %s, want %s", wd, want)
	}
	kinds := map[string]string{}
	filepath.WalkDir(filepath.Join(scratch, "wd"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(scratch, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			kinds[rel] = "link " + strings.TrimPrefix(target, root)
		case d.Type().IsRegular():
			fi, _ := d.Info()
			kinds[rel] = "file " + fi.Mode().Perm().String()
		}
		return nil
	})
	want := map[string]string{
		"wd/mod/go.mod":                   "link /go.mod",
		"wd/mod/shared":                   "link /shared",
		"wd/mod/pkg/p.go":                 "file -rw-r--r--",
		"wd/mod/pkg/readonly.txt":         "file -rw-r--r--", // the copy is the child's to write
		"wd/mod/pkg/link.txt":             "file -rw-r--r--",
		"wd/mod/pkg/big.bin":              "link /pkg/big.bin",
		"wd/mod/pkg/sub":                  "link /pkg/sub",
		"wd/mod/pkg/notes":                "link /pkg/notes",
		"wd/mod/pkg/testdata/x.txt":       "file -rw-r--r--",
		"wd/mod/pkg/testdata/deep/y.txt":  "file -rw-r--r--",
		"wd/mod/pkg/testdata/deep/z.json": "file -rw-r--r--",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("working directory (-want +got):\n%s", diff)
	}
	for rel, content := range map[string]string{"testdata/deep/y.txt": "y", "link.txt": "x",
		"../shared/testdata/s.txt": "shared", "sub/sub.go": "package sub\n"} {
		if b, err := os.ReadFile(filepath.Join(wd, rel)); err != nil || string(b) != content {
			t.Errorf("reading %s in the working directory: %q, %v; want %q", rel, b, err, content)
		}
	}
	if got := s.Guarantee().NotCopied; !cmp.Equal(got, []string{"big.bin (8 MiB)"}) {
		t.Errorf("NotCopied = %q, want the large file", got)
	}

	// Writes to the copy stay there; the next child's copy is fresh.
	if err := os.WriteFile(filepath.Join(wd, "testdata", "x.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "out.txt"), []byte("out"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(pkg, "testdata", "x.txt")); string(b) != "x" {
		t.Errorf("the original testdata/x.txt is %q after a write to the copy", b)
	}
	scratch2, remove2, err := s.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	defer remove2()
	wd2, _, err := s.WorkDir(scratch2, pkg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wd2, "out.txt")); err == nil {
		t.Error("the next working directory has the previous child's out.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(wd2, "testdata", "x.txt")); string(b) != "x" {
		t.Errorf("the next working directory's testdata/x.txt is %q", b)
	}
}

// TestWorkDirBudget: past MaxCopied in all, files are linked and listed, not copied.
func TestWorkDirBudget(t *testing.T) {
	pkg := t.TempDir()
	chunk := bytes.Repeat([]byte{7}, MaxCopiedFile)
	n := MaxCopied/MaxCopiedFile + 1
	for i := range n {
		if err := os.WriteFile(filepath.Join(pkg, "f"+string(rune('a'+i))), chunk, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{Mode: ModeOff, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	scratch, remove, err := s.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	wd, _, err := s.WorkDir(scratch, pkg)
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	entries, _ := os.ReadDir(wd)
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			links++
		}
	}
	if links != 1 || len(entries) != n || len(s.Guarantee().NotCopied) != 1 {
		t.Errorf("%d entries, %d links, not copied %q; want %d entries, the last linked and listed", len(entries),
			links, s.Guarantee().NotCopied, n)
	}
}

// BenchmarkWorkDir measures the working directory of a package directory of a typical size, 20
// source files of 10 KB and a testdata tree of 20 files of 20 KB, for a child that writes nothing
// (a kept copy is reused) and one that writes a file in it (a fresh copy every time).
func BenchmarkWorkDir(b *testing.B) {
	b.Run("reused", func(b *testing.B) { benchmarkWorkDir(b, false) })
	b.Run("written", func(b *testing.B) { benchmarkWorkDir(b, true) })
}

func benchmarkWorkDir(b *testing.B, write bool) {
	pkg := filepath.Join(b.TempDir(), "pkg")
	for i := range 20 {
		for _, f := range []struct {
			name string
			size int
		}{{filepath.Join(pkg, "f"+string(rune('a'+i))+".go"), 10 << 10}, {filepath.Join(pkg, "testdata", "t"+string(rune('a'+i))), 20 << 10}} {
			os.MkdirAll(filepath.Dir(f.name), 0o755)
			if err := os.WriteFile(f.name, bytes.Repeat([]byte{'x'}, f.size), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	s, err := New(Config{Mode: ModeOff, Scratch: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		scratch, remove, err := s.Scratch()
		if err != nil {
			b.Fatal(err)
		}
		wd, release, err := s.WorkDir(scratch, pkg)
		if err != nil {
			b.Fatal(err)
		}
		if write {
			if err := os.WriteFile(filepath.Join(wd, "out"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		release()
		remove()
	}
}

// TestWorkDirReuse: a copy no child wrote to is used again, and one written to is not; a kept copy
// is as the tree has it.
func TestWorkDirReuse(t *testing.T) {
	_, pkg := packageTree(t)
	s, err := New(Config{Mode: ModeOff, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// child runs one child's working directory, doing what in it, and returns the inode of its
	// testdata/x.txt.
	child := func(what func(wd string) error) uint64 {
		t.Helper()
		scratch, remove, err := s.Scratch()
		if err != nil {
			t.Fatal(err)
		}
		defer remove()
		wd, release, err := s.WorkDir(scratch, pkg)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if _, err := os.Stat(filepath.Join(wd, "out.txt")); err == nil {
			t.Error("a working directory has an earlier child's out.txt")
		}
		if b, err := os.ReadFile(filepath.Join(wd, "testdata", "x.txt")); err != nil || string(b) != "x" {
			t.Errorf("testdata/x.txt is %q (%v), want the tree's", b, err)
		}
		fi, err := os.Stat(filepath.Join(wd, "testdata", "x.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if what != nil {
			if err := what(wd); err != nil {
				t.Fatal(err)
			}
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	first := child(nil)
	if again := child(nil); again != first {
		t.Errorf("an unwritten copy was not reused: inode %d, then %d", first, again)
	}
	for _, write := range []struct {
		name string
		f    func(wd string) error
	}{
		{"new file", func(wd string) error { return os.WriteFile(filepath.Join(wd, "out.txt"), nil, 0o644) }},
		{"rewritten file", func(wd string) error {
			return os.WriteFile(filepath.Join(wd, "testdata", "x.txt"), []byte("y"), 0o644)
		}},
		{"same content", func(wd string) error {
			return os.WriteFile(filepath.Join(wd, "testdata", "x.txt"), []byte("x"), 0o644)
		}},
		{"chmod", func(wd string) error { return os.Chmod(filepath.Join(wd, "p.go"), 0o600) }},
		{"removed", func(wd string) error { return os.Remove(filepath.Join(wd, "testdata", "deep", "y.txt")) }},
	} {
		child(write.f)
		if n := len(s.kept[pkg]); n != 0 {
			t.Errorf("%s: the written copy was kept (%d kept)", write.name, n)
		}
		child(nil) // a fresh copy, kept for the next
		if n := len(s.kept[pkg]); n != 1 {
			t.Errorf("after %s: %d copies kept, want the fresh one", write.name, n)
		}
	}
}
