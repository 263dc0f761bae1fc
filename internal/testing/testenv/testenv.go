// Package testenv holds the one switch between perfgate's default test run and its long end-to-end
// set.
//
// `go test ./...` must pass on a machine with Go and git alone, in a few minutes. The tests that
// need more (valgrind, Chromium, node, act) or take long (whole comparisons under valgrind, the
// README's workflows under act, the browser, the monorepo layouts) run only with the environment
// variable PERFGATE_E2E=1, which .ci/run sets:
//
//	PERFGATE_E2E=1 go test -timeout 55m ./...
//
// Without the switch such a test skips with one line saying what it needs; with it, a missing tool
// fails the test, so that CI cannot pass by skipping.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Var is the environment variable of the switch; "1" turns the end-to-end set on.
const Var = "PERFGATE_E2E"

// E2E reports whether the long end-to-end set is on (PERFGATE_E2E=1).
func E2E() bool { return os.Getenv(Var) == "1" }

// NeedTool returns the path of the named program on PATH. When it is absent the test skips with one
// line naming the program and hint, how to get it (e.g. "apt-get install valgrind"); under
// PERFGATE_E2E=1 it fails instead.
func NeedTool(t testing.TB, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if E2E() {
		t.Fatalf("%s not on PATH: %s (%s=1 makes a missing tool a failure)", name, hint, Var)
	}
	t.Skipf("%s not on PATH: %s (or set %s=1 to make this a failure)", name, hint, Var)
	return ""
}

// Long skips the test unless the end-to-end set is on, and under -short: the test takes long (more
// than about ten seconds on a loaded 2-core machine) or exercises a path a faster test of the
// default run covers already.
func Long(t testing.TB) {
	t.Helper()
	if !E2E() || testing.Short() {
		t.Skipf("long end-to-end test: set %s=1 (without -short) to run it", Var)
	}
}

// NeedFile returns the path a data file's environment variable names (e.g. PERFGATE_SARIF_SCHEMA),
// for data the repository does not ship. When the variable is unset or names no file the test skips
// with one line naming the variable and hint, how to get the file; under PERFGATE_E2E=1 it fails
// instead.
func NeedFile(t testing.TB, env, hint string) string {
	t.Helper()
	f := os.Getenv(env)
	if f != "" {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	if E2E() {
		t.Fatalf("%s does not name a file (%q): %s (%s=1 makes a missing file a failure)", env, f, hint, Var)
	}
	t.Skipf("%s does not name a file: %s (or set %s=1 to make this a failure)", env, hint, Var)
	return ""
}

// PathWithout returns a PATH that finds what the current one finds except the commands named:
// a directory of PATH that holds one of them is replaced by a temporary directory of symbolic
// links to the rest of its entries (dropping the directory would also drop git, go or sh where
// they share it, as in /usr/bin).
func PathWithout(t testing.TB, names ...string) string {
	t.Helper()
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		holds := false
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(d, n)); err == nil {
				holds = true
			}
		}
		if !holds {
			dirs = append(dirs, d)
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		links := t.TempDir()
		for _, e := range entries {
			if slices.Contains(names, e.Name()) {
				continue
			}
			if err := os.Symlink(filepath.Join(d, e.Name()), filepath.Join(links, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, links)
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}
