package valgrind

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// fakeValgrind writes an executable named valgrind into a new directory that prints version, and
// returns the directory.
func fakeValgrind(t *testing.T, version string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake valgrind is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho '" + version + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "valgrind"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFind(t *testing.T) {
	ctx := context.Background()
	dir := fakeValgrind(t, "valgrind-3.19.0")
	p, err := Find(ctx, filepath.Join(dir, "valgrind"), "the test needs it")
	if err != nil || p.Version != "valgrind-3.19.0" || p.Path != filepath.Join(dir, "valgrind") {
		t.Errorf("Find = %+v, %v; want the fake at version valgrind-3.19.0", p, err)
	}
	t.Setenv("PATH", dir)
	if p, err := Find(ctx, "", "the test needs it"); err != nil || p.Path != filepath.Join(dir, "valgrind") {
		t.Errorf("Find in PATH = %+v, %v; want the fake", p, err)
	}

	_, err = Find(ctx, filepath.Join(t.TempDir(), "valgrind"), "the instruction-count lane needs it")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), InstallCommand) ||
		!strings.Contains(err.Error(), "the instruction-count lane needs it") {
		t.Errorf("Find of a missing valgrind: %v; want ErrNotFound saying why and naming %q", err, InstallCommand)
	}

	other := fakeValgrind(t, "cachegrind? no")
	if _, err := Find(ctx, filepath.Join(other, "valgrind"), "x"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Find of a program that is no valgrind: %v; want an error about its version", err)
	}
}

func TestEnsure(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	t.Setenv("PATH", fakeValgrind(t, "valgrind-3.22.0"))
	if err := Ensure(ctx, "metric auto", &out); err != nil || out.Len() != 0 {
		t.Errorf("Ensure with valgrind installed: %v, printed %q; want nothing done", err, out.String())
	}
	if runtime.GOOS != "linux" {
		return
	}
	// Neither valgrind nor sudo: nothing can be installed, and Ensure says which tool is missing.
	t.Setenv("PATH", t.TempDir())
	err := Ensure(ctx, "metric auto", &out)
	if err == nil || !strings.Contains(err.Error(), "cannot be installed here: no sudo") || out.Len() != 0 {
		t.Errorf("Ensure without valgrind and sudo: %v, printed %q; want an error naming sudo", err, out.String())
	}
}

// TestFindInstalled: the valgrind of this machine, when there is one, has a version and an absolute
// path.
func TestFindInstalled(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil && os.Getenv("PERFGATE_E2E") != "1" {
		t.Skip("valgrind not installed (" + InstallCommand + ")")
	}
	p, err := Find(t.Context(), "", "the test needs it")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^valgrind-\d+\.\d+`).MatchString(p.Version) || !filepath.IsAbs(p.Path) {
		t.Errorf("Find = %+v", p)
	}
}
