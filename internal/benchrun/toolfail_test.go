package benchrun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/standin"
	"github.com/perfgate/perfgate/record"
)

// TestRunInstructionsToolFailures runs the lane under stand-ins for valgrind failing as it does on
// hosts this project does not have: crashing in every run, in head's runs only, at random, or
// leaving truncated output. The benchmarks are healthy natively, so no failure of either side may
// come out of it: the leaves valgrind failed on are not counted (UncountedTool, with valgrind's
// diagnosis), and a lane that cannot run at all switches off with one reason.
func TestRunInstructionsToolFailures(t *testing.T) {
	needValgrind(t)
	bins := buildDemo(t, "base", "folded")
	run := func(t *testing.T, mode standin.Mode, match string) *Run {
		t.Helper()
		vg := filepath.Join(standin.Valgrind(t, mode, match), "valgrind")
		r, err := RunInstructions(t.Context(), RunConfig{Base: bins["base"], Head: bins["folded"],
			Filter: mustMatcher(t, `^(Encrypt|Decrypt)$/^des$`), CPU: -1}, InstrConfig{Valgrind: vg})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Failures) > 0 {
			t.Errorf("%s: failures %+v; want none: the benchmarks run cleanly without valgrind", mode, r.Failures)
		}
		for name, nc := range r.Uncounted {
			t.Logf("%s: %s not counted (%s): %s", mode, name, nc.Why, nc.Detail)
			if nc.Why != record.UncountedTool {
				t.Errorf("%s: %s not counted for %s; want %s", mode, name, nc.Why, record.UncountedTool)
			}
		}
		return r
	}
	leaves := []string{"Decrypt/des", "Encrypt/des"}

	t.Run("crash", func(t *testing.T) {
		r := run(t, standin.Crash, "")
		if !strings.Contains(r.LaneOff, "valgrind cannot decode RDTSCP (0F 01 F9) in runtime.cputicks") {
			t.Errorf("LaneOff = %q; want the lane off with valgrind's diagnosis", r.LaneOff)
		}
		if len(r.Samples) != 0 || len(r.Uncounted) != len(leaves) {
			t.Errorf("%d samples, %d leaves not counted; want none counted, all %d not counted", len(r.Samples),
				len(r.Uncounted), len(leaves))
		}
	})
	t.Run("head", func(t *testing.T) {
		r := run(t, standin.CrashMatching, "folded")
		for _, name := range leaves {
			if nc, ok := r.Uncounted[name]; !ok || !strings.Contains(nc.Detail, "on head") {
				t.Errorf("%s: %+v; want not counted, valgrind failing on head", name, nc)
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		r := run(t, standin.CrashRandom, "")
		for _, name := range leaves {
			_, off := r.Uncounted[name]
			if n := len(perOp(r, name, record.Base)) + len(perOp(r, name, record.Head)); !off && n != 4 {
				t.Errorf("%s: counted %d times and not given up; want 4 counts or none", name, n)
			}
		}
	})
	t.Run("truncate", func(t *testing.T) {
		r := run(t, standin.Truncate, "")
		if len(r.Samples) != 0 && len(r.Uncounted) == 0 {
			t.Logf("counted in full from truncated output: %d samples", len(r.Samples))
		}
	})
}
