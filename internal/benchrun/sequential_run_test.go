package benchrun

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/progress"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// budgetFixture builds a module whose BenchmarkSlow does ten times the work on head and whose
// BenchmarkSame is the same code on both sides.
func budgetFixture(t *testing.T) (base, head Binary) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	build := func(dir string, factor string) Binary {
		testmod.Write(t, dir, map[string]string{
			"go.mod": testmod.GoMod("example.com/fix", "1.26"),
			"fix.go": "// Package fix is a benchmark fixture.\npackage fix\n",
			"fix_test.go": `package fix

import "testing"

var sink int

func work(n int) {
	for i := 0; i < n; i++ {
		sink += i * i
	}
}

func BenchmarkSame(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(256)
	}
}

func BenchmarkSlow(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(256 * ` + factor + `)
	}
}
`})
		bin := filepath.Join(dir, "fix.test")
		cmd := proc.Command(context.Background(), dir, []string{"GOWORK=off", "GOFLAGS=-mod=mod"},
			"go", "test", "-c", "-trimpath", "-o", bin, ".")
		if _, _, err := proc.Run(cmd); err != nil {
			t.Fatalf("building fixture: %v", err)
		}
		return Binary{Path: bin, Dir: dir, Commit: factor}
	}
	dir := t.TempDir()
	return build(filepath.Join(dir, "base"), "1"), build(filepath.Join(dir, "head"), "10")
}

// roundsOf returns the rounds each benchmark was timed in, from its sec/op samples.
func roundsOf(samples []benchtxt.Sample) map[string]int {
	seen := map[string]map[int]bool{}
	for _, s := range samples {
		if seen[s.Name] == nil {
			seen[s.Name] = map[int]bool{}
		}
		seen[s.Name][s.Round] = true
	}
	out := map[string]int{}
	for name, rs := range seen {
		out[name] = len(rs)
	}
	return out
}

// TestRunABBABudget: a budgeted run looks after each stage; a benchmark ten times slower settles as
// slower and stops being timed at a look, every benchmark ends at a planned look, and the progress
// shows the budget left.
func TestRunABBABudget(t *testing.T) {
	base, head := budgetFixture(t)
	var log bytes.Buffer
	run, err := RunABBA(context.Background(), RunConfig{
		Base: base, Head: head, Rounds: 3, MaxRounds: 12, Budget: 10 * time.Minute, BenchTime: 2 * time.Millisecond,
		CPU: -1, Progress: &log,
	})
	if err != nil {
		t.Fatalf("RunABBA: %v\nprogress:\n%s", err, log.String())
	}
	t.Logf("progress:\n%s", log.String())
	if run.Plan == nil || run.Plan.Looks != len(bench.Looks(3, 12)) || run.Plan.Family != 2 {
		t.Fatalf("plan %+v, want %d looks over 2 benchmarks", run.Plan, len(bench.Looks(3, 12)))
	}
	rounds := roundsOf(run.Samples)
	for name, n := range rounds {
		if !slices.Contains(bench.Looks(3, 12), n) {
			t.Errorf("%s ran %d rounds, not a planned look %v", name, n, bench.Looks(3, 12))
		}
	}
	opt := bench.DefaultStatsOptions
	opt.Sequential = run.Plan
	cs, err := bench.Analyze(run.Samples, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Unit != "sec/op" {
			continue
		}
		if c.Rounds != rounds[c.Name] {
			t.Errorf("%s: Rounds %d, ran %d", c.Name, c.Rounds, rounds[c.Name])
		}
		if c.Name == "Slow" && c.Class != record.ClassSlower {
			t.Errorf("Slow (10× the work on head) is %s, want slower: %+v", c.Class, c.Paired)
		}
		// A benchmark that ran fewer rounds than the run's last stage stopped because it settled.
		if c.Rounds < slices.Max([]int{rounds["Same"], rounds["Slow"]}) && !slices.Contains([]record.Class{record.ClassSlower, record.ClassFaster, record.ClassUnchanged}, c.Class) {
			t.Errorf("%s stopped after %d rounds unsettled (%s)", c.Name, c.Rounds, c.Class)
		}
	}
	for _, want := range []string{"stage 1 (3 rounds): ", "of budget left"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("progress does not say %q", want)
		}
	}
	if run.Stages < 1 {
		t.Errorf("Stages %d, want at least 1", run.Stages)
	}
}

// TestRunABBABudgetSpent: a budget too small for anything still runs the first stage's two rounds,
// then stops.
func TestRunABBABudgetSpent(t *testing.T) {
	base, head := budgetFixture(t)
	run, err := RunABBA(context.Background(), RunConfig{
		Base: base, Head: head, Rounds: 5, Budget: time.Nanosecond, BenchTime: time.Millisecond, CPU: -1,
	})
	if err != nil {
		t.Fatalf("RunABBA: %v", err)
	}
	if run.Stages != 1 {
		t.Errorf("Stages %d, want 1", run.Stages)
	}
	if got := roundsOf(run.Samples); got["Same"] != 2 || got["Slow"] != 2 {
		t.Errorf("rounds %v, want 2 of each", got)
	}
}

// TestFitRuns: a budget runs every run MinRunTime long, never longer than BenchTime, never raises a
// calibrated count, and the progress says so only when BudgetRounds rounds do not fit.
func TestFitRuns(t *testing.T) {
	leaves := []leaf{
		{name: "Fast", iters: 100_000, secPerOp: 1e-6}, // 100 ms calibrated
		{name: "Slow", iters: 10, secPerOp: 1e-2},      // 100 ms calibrated
		{name: "Huge", iters: 1, secPerOp: 2},          // one op is longer than any fitted run
		{name: "Short", iters: 1_000, secPerOp: 1e-6},  // 1 ms calibrated: already short
	}
	// BudgetRounds rounds just fit
	fit := time.Duration(BudgetRounds*4*len(leaves)) * (MinRunTime + runOverhead)
	for _, tc := range []struct {
		left, benchTime, want time.Duration
		iters                 []int
		floored               bool
	}{
		{fit, 100 * time.Millisecond, MinRunTime, []int{10_000, 1, 1, 1_000}, false},
		// a long budget: still short
		{time.Hour, 100 * time.Millisecond, MinRunTime, []int{10_000, 1, 1, 1_000}, false},
		{fit - time.Second, 100 * time.Millisecond, MinRunTime, []int{10_000, 1, 1, 1_000}, true},
		// BenchTime is shorter
		{time.Hour, 5 * time.Millisecond, 5 * time.Millisecond, []int{5_000, 1, 1, 1_000}, false},
	} {
		var log bytes.Buffer
		r := &runner{cfg: RunConfig{BenchTime: tc.benchTime}, run: &Run{Iters: map[string]int{}}, progress: progress.New(&log)}
		got := r.fitRuns(slices.Clone(leaves), tc.left)
		if floored := strings.Contains(log.String(), "fewer than"); floored != tc.floored {
			t.Errorf("budget %s: progress %q, want a note that the rounds do not fit: %v", tc.left, log.String(), tc.floored)
		}
		if r.run.RunTime != tc.want {
			t.Errorf("budget %s: run time %s, want %s", tc.left, r.run.RunTime, tc.want)
		}
		for i, l := range got {
			runs, each := l.split()
			if l.iters != tc.iters[i] || r.run.Iters[l.name] != each || runs*each > l.iters || runs < min(benchtxt.SubRuns, l.iters) {
				t.Errorf("budget %s: %s runs %d iterations in %d sub-runs of %d (Run.Iters %d), want %d", tc.left, l.name, l.iters, runs, each, r.run.Iters[l.name], tc.iters[i])
			}
		}
	}
}

// TestRunABBAFixedIters: with Iters (-benchtime Nx) every sample of both sides, budgeted or not, is
// one call of the benchmark at exactly that count: no calibrated count, no shortened runs.
func TestRunABBAFixedIters(t *testing.T) {
	base, head := budgetFixture(t)
	for _, budget := range []time.Duration{0, 10 * time.Minute} {
		run, err := RunABBA(context.Background(), RunConfig{Base: base, Head: head, Rounds: 2, MaxRounds: 4,
			Budget: budget, BenchTime: 50 * time.Millisecond, Iters: 37, CPU: -1})
		if err != nil {
			t.Fatalf("budget %s: %v", budget, err)
		}
		if len(run.Samples) == 0 {
			t.Fatalf("budget %s: no samples", budget)
		}
		for _, s := range run.Samples {
			if s.Iters != 37 || run.Iters[s.Name] != 37 {
				t.Errorf("budget %s: %s on %s ran %d iterations (Run.Iters %d), want 37", budget, s.Name, s.Side,
					s.Iters, run.Iters[s.Name])
			}
		}
		if run.RunTime != 0 {
			t.Errorf("budget %s: RunTime %s for a fixed count, want 0", budget, run.RunTime)
		}
	}
}
