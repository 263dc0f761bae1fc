//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attackIn is attack with the child running in the working directory WorkDir makes of pkg, as a
// test binary runs: relative paths in arg are relative to that copy. The copy is released after the
// child, as the runners do.
func attackIn(t *testing.T, s *Sandbox, pkg, attack, arg string) string {
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
	cmd := exec.CommandContext(context.Background(), os.Args[0], "--", arg)
	cmd.Env = append(os.Environ(), helperEnv+"="+attack)
	cmd.Dir = wd
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := s.Start(cmd, scratch, nil); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s %s: %v\n%s", attack, arg, err, stderr.Bytes())
	}
	return strings.TrimSpace(out.String())
}

// TestWorkDirConfinement: a sandboxed child running in its copy of the package directory writes
// files in "." and in testdata, and still cannot write the package's source directory, its linked
// subdirectories and large files, the module's other directories, the other side's tree or the
// results directory. Every attack that is denied succeeds with ModeOff, so that the test can tell a
// confined child from a broken attack.
func TestWorkDirConfinement(t *testing.T) {
	s := newSandbox(t, Config{Mode: ModeRequired})
	off := newSandbox(t, Config{Mode: ModeOff})
	root, pkg := packageTree(t) // this side's tree
	otherPkg := filepath.Join(t.TempDir(), "head", "pkg")
	results := filepath.Join(t.TempDir(), "results")
	for _, d := range []string{otherPkg, results} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(otherPkg, "p.go"), []byte("package pkg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pristine := snapshotFiles(t, root)

	for _, c := range []struct {
		attack, arg string
		confined    bool // denied in the sandbox
	}{
		{"write", "written.txt", false},
		{"write", "testdata/x.txt", false},
		{"write", "testdata/deep/new.txt", false},
		{"append", "p.go", false},
		{"write", filepath.Join(pkg, "written.txt"), true},
		{"append", filepath.Join(pkg, "p.go"), true},
		{"append", "big.bin", true},
		{"write", "sub/new.go", true},
		{"append", "../shared/testdata/s.txt", true},
		{"append", "../go.mod", true},
		{"write", filepath.Join(otherPkg, "written.txt"), true},
		{"append", filepath.Join(otherPkg, "p.go"), true},
		{"write", filepath.Join(results, "result.json"), true},
	} {
		if got := attackIn(t, s, pkg, c.attack, c.arg); strings.HasPrefix(got, "ok") == c.confined {
			t.Errorf("sandboxed %s %s: %q, want confined %v", c.attack, c.arg, got, c.confined)
		}
		if c.confined {
			if got := attackIn(t, off, pkg, c.attack, c.arg); got != "ok" {
				t.Errorf("unsandboxed %s %s: %q, want ok (the attack itself is broken)", c.attack, c.arg, got)
			}
			// ModeOff wrote through; put the trees back for the next attack.
			for _, f := range []string{filepath.Join(pkg, "written.txt"), filepath.Join(pkg, "sub", "new.go"),
				filepath.Join(otherPkg, "written.txt"), filepath.Join(results, "result.json")} {
				os.Remove(f)
			}
			restoreFiles(t, root, pristine)
		}
	}
	// The sandboxed writes to the copy left the tree as it was.
	if diff := diffFiles(pristine, snapshotFiles(t, root)); diff != "" {
		t.Errorf("the package's tree changed: %s", diff)
	}
	if entries, _ := os.ReadDir(results); len(entries) > 0 {
		t.Errorf("the results directory has %d entries", len(entries))
	}
}

// snapshotFiles returns the content of every regular file beneath root, by path.
func snapshotFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			files[p] = string(b)
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// restoreFiles writes the files of snap that changed back and removes files beneath root that snap
// does not have.
func restoreFiles(t *testing.T, root string, snap map[string]string) {
	t.Helper()
	now := snapshotFiles(t, root)
	for p := range now {
		if _, ok := snap[p]; !ok {
			os.Remove(p)
		}
	}
	for p, content := range snap {
		if c, ok := now[p]; !ok || c != content {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// diffFiles names the files that differ between two snapshots, or "".
func diffFiles(a, b map[string]string) string {
	var d []string
	for p, c := range a {
		if bc, ok := b[p]; !ok || bc != c {
			d = append(d, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			d = append(d, p)
		}
	}
	return strings.Join(d, ", ")
}
