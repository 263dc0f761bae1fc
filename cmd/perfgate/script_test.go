package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"perfgate": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
			stop()
			proc.KillDescendants()
			os.Exit(code)
		},
	})
}

// goEnvVars are the go command's settings a script needs so that `go build` inside it finds the
// toolchain, the build cache and the module cache of the machine running the tests, and never
// reaches the network.
var goEnvVars = []string{"GOROOT", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOAMD64", "CGO_ENABLED"}

// goEnv reads the effective go settings once (they may come from the go env file under the real
// HOME, which the scripts do not see).
func goEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"env"}, goEnvVars...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	// a line per variable, empty ones too
	vals := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(vals) != len(goEnvVars) {
		t.Fatalf("go env printed %d lines for %d variables", len(vals), len(goEnvVars))
	}
	var env []string
	for i, name := range goEnvVars {
		if vals[i] != "" {
			env = append(env, name+"="+vals[i])
		}
	}
	return append(env, "GOTOOLCHAIN=local", "GOPROXY=off", "GOTELEMETRY=off", "NO_COLOR=1")
}

// longScripts are the scripts of the long end-to-end set: each runs one or more whole comparisons,
// some of them slow on purpose (a hang, a timeout), and results.txt already takes a comparison
// through the whole pipeline.
var longScripts = map[string]bool{
	"benchselect": true, "config": true, "defaultresults": true, "demo": true, "failtest": true, "hangbench": true,
	"bisect": true, "inlined": true, "likeforlike": true, "monorepo": true, "newbench": true, "nobench": true, "panicbench": true,
	"secrets": true, "sidebuilds": true, "slower": true, "unchecked": true, "worktree": true,
}

// TestScript runs the end-to-end tests of the command line: every testdata/script/*.txt is a
// testscript session that runs the real perfgate (this test binary re-executed as "perfgate") on a
// real git repository written by the "materialize" command, with real go builds and real benchmark
// runs.
//
// Custom script commands:
//
//	exits N PROG ARGS...   run PROG like exec and fail unless it exits with status N
//	                       (perfgate's exit codes are its interface: 0 pass, 1 gate failed,
//	                       2 usage, 3 could not run)
//	materialize DIR        write the internal/demo fixture history as a git repository
//	jsonpath FILE PATH...  print PATH=VALUE for every value at PATH in the JSON file; fail
//	                       when a PATH has none (with !, when any PATH has a value). PATH is
//	                       dot-separated keys; "[]" after a key walks every element of an
//	                       array, "[N]" one element: benchmarks[].name, base.commit.
//	notemp PREFIX          fail when $TMPDIR holds an entry whose name starts with PREFIX (a leaked
//	                       temp dir)
//
// Scripts that run a whole comparison are skipped under -short: [short] skip. Of those, the default
// run keeps results.txt, one comparison end to end; the others (longScripts) run in the long
// end-to-end set only (PERFGATE_E2E=1, see internal/testing/testenv).
func TestScript(t *testing.T) {
	env := goEnv(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: false,
		Setup: func(e *testscript.Env) error {
			// testscript names the work directory script-NAME; its T is the subtest's *testing.T.
			if longScripts[strings.TrimPrefix(filepath.Base(e.WorkDir), "script-")] {
				testenv.Long(e.T().(testing.TB))
			}
			e.Vars = append(e.Vars, env...)
			// A home of its own: git and go find no user configuration that could change the
			// outcome.
			home := filepath.Join(e.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Vars = append(e.Vars, gittest.Env(home)...)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"materialize": cmdMaterialize,
			"jsonpath":    cmdJSONPath,
			"notemp":      cmdNoTemp,
		},
	})
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

func cmdMaterialize(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: materialize DIR")
	}
	repo, err := demo.Materialize(ts.MkAbs(args[0]))
	ts.Check(err)
	names := make([]string, 0, len(repo.Commits))
	for name := range repo.Commits {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(ts.Stdout(), "%s %s\n", name, repo.Commits[name])
	}
}

func cmdJSONPath(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: jsonpath FILE PATH...")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	for _, path := range args[1:] {
		vals, err := lookup(doc, path)
		if err != nil {
			ts.Fatalf("%s: %s: %v", args[0], path, err)
		}
		switch {
		case neg && len(vals) > 0:
			ts.Fatalf("%s: %s has %d values, want none", args[0], path, len(vals))
		case !neg && len(vals) == 0:
			ts.Fatalf("%s: %s has no value", args[0], path)
		}
		for _, v := range vals {
			b, err := json.Marshal(v)
			ts.Check(err)
			fmt.Fprintf(ts.Stdout(), "%s=%s\n", path, b)
		}
	}
}

// lookup returns the values at path in doc: keys separated by dots, "[]" after a key for every
// element of an array, "[N]" for element N. A missing key yields no values; a key into something
// that is not an object, or [] on something that is not an array, is an error (the document's shape
// is not what the script expects).
func lookup(doc any, path string) ([]any, error) {
	cur := []any{doc}
	for _, part := range strings.Split(path, ".") {
		key, index, hasIndex := strings.Cut(part, "[")
		var next []any
		for _, v := range cur {
			if key != "" {
				obj, ok := v.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%q: not an object", key)
				}
				child, ok := obj[key]
				if !ok {
					continue
				}
				v = child
			}
			if !hasIndex {
				next = append(next, v)
				continue
			}
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%q: not an array", part)
			}
			index = strings.TrimSuffix(index, "]")
			if index == "" {
				next = append(next, arr...)
				continue
			}
			i, err := strconv.Atoi(index)
			if err != nil {
				return nil, fmt.Errorf("%q: bad index", part)
			}
			if i >= 0 && i < len(arr) {
				next = append(next, arr[i])
			}
		}
		cur = next
	}
	return cur, nil
}

func cmdNoTemp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: notemp PREFIX")
	}
	dir := ts.Getenv("TMPDIR")
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), args[0]) {
			ts.Fatalf("leftover temporary %s in %s", e.Name(), dir)
		}
	}
}

func TestLookup(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"a":{"b":[{"c":1},{"c":2},{"d":3}]},"s":"x"}`), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string
	}{
		{"s", `["x"]`},
		{"a.b[].c", `[1,2]`},
		{"a.b[2].d", `[3]`},
		{"a.b[5].d", `null`},
		{"a.x", `null`},
	} {
		got, err := lookup(doc, tc.path)
		if err != nil {
			t.Errorf("lookup(%q): %v", tc.path, err)
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != tc.want {
			t.Errorf("lookup(%q) = %s, want %s", tc.path, b, tc.want)
		}
	}
	if _, err := lookup(doc, "s.t"); err == nil {
		t.Errorf("lookup(s.t) on a string: no error")
	}
}
