package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/standin"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// TestCompareToolFailures runs the demo's comparison (folded against base: encryption and
// decryption faster, outputs identical) at metric auto under stand-ins for valgrind failing as it
// does on hosts this project does not have, and once with no valgrind at all. A tool's failure is
// never a finding: each run exits as the one without valgrind does (the speedup passes; either may
// stay inconclusive on a loaded machine), no benchmark fails on either side, and what valgrind
// could not count says valgrind's reason.
func TestCompareToolFailures(t *testing.T) {
	testenv.NeedTool(t, "valgrind", valgrind.InstallCommand)
	testenv.Long(t)
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	// ct is the constant-time setting: off where valgrind stand-ins run, the default where there
	// is no valgrind (where the default is off, and the notes say so).
	compare := func(t *testing.T, path, ct string) (*record.Result, int, string) {
		t.Helper()
		t.Setenv("PATH", path)
		out := filepath.Join(t.TempDir(), "results")
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"compare", "-C", repo.Dir, "-pkg", demo.Package, "-metric", "auto",
			"-bench", "^(Encrypt|Decrypt)$/^des$", "-rounds", "3", "-budget", "0", "-benchtime", "10ms", "-keys", "16",
			"-constant-time", ct, "-o", out, "base", "folded"}, &stdout, &stderr)
		res, err := results.ReadResult(out)
		if err != nil {
			t.Fatalf("exit %d, %v\nstderr:\n%s", code, err, stderr.String())
		}
		return res, code, stderr.String()
	}
	path := os.Getenv("PATH")
	modes := []struct {
		name  string
		mode  standin.Mode
		match string
		dir   string
	}{
		{"crash", standin.Crash, "", ""},
		{"one-side", standin.CrashMatching, "/head.test", ""},
		{"random", standin.CrashRandom, "", ""},
		{"truncated", standin.Truncate, "", ""},
	}
	for i := range modes {
		modes[i].dir = standin.Valgrind(t, modes[i].mode, modes[i].match)
	}
	// Without valgrind: PATH without it, the rest (git, go) as it is.
	plain, plainCode, _ := compare(t, testenv.PathWithout(t, "valgrind"), "")
	if plain.Env.Valgrind != "" {
		t.Fatalf("the run without valgrind ran valgrind %s", plain.Env.Valgrind)
	}
	if notes := strings.Join(plain.Notes, "\n"); !strings.Contains(notes, "valgrind not found") ||
		!strings.Contains(notes, "nothing is traced for constant time") {
		t.Errorf("notes %q; want one saying that without valgrind nothing was counted or traced", plain.Notes)
	}
	t.Logf("without valgrind: exit %d, %s %q", plainCode, plain.Verdict.Status, plain.Verdict.Reasons)

	for _, c := range modes {
		t.Run(c.name, func(t *testing.T) {
			res, code, stderr := compare(t, c.dir+string(os.PathListSeparator)+path, "off")
			// Wall time decides both runs: on a loaded machine one of them may not settle in 3
			// rounds (exit 4), but neither may fail or err where the other did not.
			settled := func(code int) bool { return code == record.ExitPass || code == record.ExitInconclusive }
			if code != plainCode && !(settled(code) && settled(plainCode)) {
				t.Errorf("exit %d, %s %q; want exit %d, %s as without valgrind", code, res.Verdict.Status,
					res.Verdict.Reasons, plainCode, plain.Verdict.Status)
			}
			for _, r := range res.Verdict.Reasons {
				if strings.Contains(r, "fails on") || strings.Contains(r, "fails with") {
					t.Errorf("a reason blames the code for the tool: %q", r)
				}
			}
			if len(res.Failures) > 0 {
				t.Errorf("failures %+v; want none: the benchmarks run cleanly natively", res.Failures)
			}
			for _, b := range res.Benchmarks {
				if b.Unit == record.UnitInstructions && b.Uncounted != "" && b.Uncounted != record.UncountedTool {
					t.Errorf("%s not counted for %s; want %s", b.Name, b.Uncounted, record.UncountedTool)
				}
				if b.Unit == record.UnitInstructions && b.Uncounted == record.UncountedTool &&
					!strings.Contains(b.Note, "valgrind") {
					t.Errorf("%s: not counted, note %q; want valgrind's reason", b.Name, b.Note)
				}
			}
			if c.mode == standin.Crash && !strings.Contains(strings.Join(res.Notes, "\n"),
				"the instruction-count lane is off") {
				t.Errorf("notes %q; want one saying the lane is off", res.Notes)
			}
			if t.Failed() {
				t.Logf("stderr:\n%s", stderr)
			}
		})
	}
}
