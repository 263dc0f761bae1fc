package testenv

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestE2E(t *testing.T) {
	for _, c := range []struct {
		value string
		want  bool
	}{{"1", true}, {"", false}, {"0", false}, {"true", false}, {" 1", false}} {
		t.Setenv(Var, c.value)
		if got := E2E(); got != c.want {
			t.Errorf("%s=%q: E2E() = %v, want %v", Var, c.value, got, c.want)
		}
	}
}

// TestNeedToolFound: a program on PATH is returned, with or without the switch.
func TestNeedToolFound(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "perfgate-testenv-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, e2e := range []string{"", "1"} {
		t.Setenv(Var, e2e)
		if got := NeedTool(t, "perfgate-testenv-tool", "unused"); got != tool {
			t.Errorf("%s=%q: NeedTool = %q, want %q", Var, e2e, got, tool)
		}
	}
}

// helper names the behaviour TestHelper shows in the child process that the tests below run.
const helper = "PERFGATE_TESTENV_HELPER"

// TestHelper is not a test of its own: the tests below run this test binary again with helper set,
// and TestHelper then calls NeedTool or Long as a test of perfgate would.
func TestHelper(t *testing.T) {
	switch os.Getenv(helper) {
	case "":
		t.Skip("runs only as the child of the tests of NeedTool and Long")
	case "needtool":
		NeedTool(t, "perfgate-testenv-missing", "get it from example.com")
	case "long":
		Long(t)
	}
	t.Log("went on")
}

// child runs TestHelper in a child process with the environment env added and returns its output
// and whether it failed.
func child(t *testing.T, args []string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelper$", "-test.v"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), err != nil
}

// TestNeedToolMissing: without the switch a missing program skips the test with one line naming it
// and the hint; with the switch it fails the test. Either way the test goes no further.
func TestNeedToolMissing(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		e2e, line, verdict string
		failed             bool
	}{
		{"", "perfgate-testenv-missing not on PATH: get it from example.com (or set PERFGATE_E2E=1 to make this a failure)",
			"--- SKIP: TestHelper", false},
		{"1", "perfgate-testenv-missing not on PATH: get it from example.com (PERFGATE_E2E=1 makes a missing tool a failure)",
			"--- FAIL: TestHelper", true},
	} {
		out, failed := child(t, nil, helper+"=needtool", "PATH="+empty, Var+"="+c.e2e)
		if failed != c.failed || !strings.Contains(out, c.verdict) {
			t.Errorf("%s=%q: failed %v, want %v; output:\n%s", Var, c.e2e, failed, c.failed, out)
		}
		if got := strings.Count(out, c.line); got != 1 {
			t.Errorf("%s=%q: the line %q appears %d times, want once; output:\n%s", Var, c.e2e, c.line, got, out)
		}
		if strings.Contains(out, "went on") {
			t.Errorf("%s=%q: the test went on after NeedTool; output:\n%s", Var, c.e2e, out)
		}
	}
}

// TestLong: a long test runs only with the switch and without -short, and skips otherwise with one
// line.
func TestLong(t *testing.T) {
	const line = "long end-to-end test: set PERFGATE_E2E=1 (without -short) to run it"
	for _, c := range []struct {
		e2e   string
		short bool
		runs  bool
	}{{"", false, false}, {"0", false, false}, {"1", false, true}, {"1", true, false}} {
		out, failed := child(t, []string{"-test.short=" + map[bool]string{false: "false", true: "true"}[c.short]},
			helper+"=long", Var+"="+c.e2e)
		if failed {
			t.Errorf("%s=%q, -short %v: the test failed; output:\n%s", Var, c.e2e, c.short, out)
		}
		if ran := strings.Contains(out, "went on"); ran != c.runs {
			t.Errorf("%s=%q, -short %v: ran %v, want %v; output:\n%s", Var, c.e2e, c.short, ran, c.runs, out)
		}
		if !c.runs && strings.Count(out, line) != 1 {
			t.Errorf("%s=%q, -short %v: want the one line %q; output:\n%s", Var, c.e2e, c.short, line, out)
		}
	}
}
