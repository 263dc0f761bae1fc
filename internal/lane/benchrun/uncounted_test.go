package benchrun

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/record"
)

// TestCallsTo reads the call counts of a callgrind dump: calls to the target from code under test
// count, calls from the testing package and calls to other functions do not.
func TestCallsTo(t *testing.T) {
	syms := &symtab{start: []uint64{0x1000, 0x2000, 0x3000}, end: []uint64{0x1100, 0x2100, 0x3100},
		name:    []string{"example.com/p.BenchmarkPaused", "testing.(*B).runN", "testing.(*B).StopTimer"},
		trigger: []int8{-1, -1, 2}}
	dump := `version: 1
positions: instr
events: Ir
fn=(1) example.com/p.BenchmarkPaused
0x1000 3
calls=7 0x3000
0x1010 70
calls=2 0x2000
0x1020 5
fn=(2) testing.(*B).runN
calls=2 0x3000
0x2010 20
`
	got, err := callsTo(strings.NewReader(dump), syms, 0x3000)
	if err != nil || got != 7 {
		t.Errorf("callsTo = %d, %v; want 7 (runN's 2 calls are the testing package's)", got, err)
	}
}

// TestFitBudget plans the lane for a benchmark that allocates 64 MiB an op (a few hundred counted
// instructions, milliseconds natively: the runtime's work) beside a fast one. Costed by
// instructions alone it would run at the fast one's N, thousands of iterations; costed by what
// valgrind spends (valgrindCost) it gets a group of its own, at an N whose round fits the lane's
// share, or is not counted when even that does not fit.
func TestFitBudget(t *testing.T) {
	leaves := []leaf{
		{name: "Fast", iters: 2000, secPerOp: 100e-9}, // 500 instructions an op: N = 10⁶/500
		{name: "Big", iters: 3334, secPerOp: 5e-3},    // 300 instructions an op
	}
	instr := []float64{500, 300}
	cost := []float64{valgrindCost(instr[0], leaves[0].secPerOp, 0), valgrindCost(instr[1], leaves[1].secPerOp, 0)}
	if g := groupLeaves(leaves, instr, valgrindStart); len(g) != 1 {
		t.Fatalf("by instructions: %d groups, want the one that ran 13 minutes past its budget", len(g))
	}
	newLane := func(share time.Duration) *lane {
		r := &runner{run: &Run{Iters: map[string]int{}}, progress: newProgress(nil)}
		return &lane{runner: r, deadline: time.Now().Add(share)}
	}
	l := newLane(100 * time.Second)
	groups := l.fitBudget(leaves, cost)
	n := map[string]int{}
	for _, g := range groups {
		for _, lf := range g.leaves {
			n[lf.name] = g.n
		}
	}
	if n["Big"] == 0 || n["Big"] >= n["Fast"] || len(groups) != 2 {
		t.Fatalf("groups %+v: want Big in a group of its own at fewer iterations than Fast", groups)
	}
	if c := planCost(groups, leaves, cost, valgrindStart); c > laneSafety*100e9 {
		t.Errorf("a round costs %.0f s, more than %.0f%% of the 100 s share", c/1e9, 100*laneSafety)
	}
	if len(l.run.Uncounted) > 0 {
		t.Errorf("uncounted %+v, want both counted within 100 s", l.run.Uncounted)
	}
	// Measured at calibration, 60 ms for Big's stretch at 1 iteration bounds its cost better than 5
	// ms × 100.
	if c := valgrindCost(300, 5e-3, 60*time.Millisecond); c != 60e6 {
		t.Errorf("valgrindCost = %v ns, want the measured 60 ms", c)
	}
	if c := valgrindCost(500, 100e-9, 3*time.Millisecond); c != 10000 {
		t.Errorf("valgrindCost = %v ns, want 100 ns × %d: a fast leaf's stretch at 1 iteration is mostly set-up", c,
			valgrindSlowdown)
	}
	// A share that cannot hold two iterations of Big: Big is not counted, Fast is.
	l = newLane(12 * time.Second)
	groups = l.fitBudget(leaves, cost)
	if nc := l.run.Uncounted["Big"]; nc.Why != record.UncountedBudget || !strings.Contains(nc.Detail, "budget") {
		t.Errorf("Big: uncounted %+v, want budget", l.run.Uncounted)
	}
	if _, ok := l.run.Uncounted["Fast"]; ok || len(groups) != 1 || groups[0].leaves[0].name != "Fast" {
		t.Errorf("groups %+v, uncounted %+v: want Fast counted alone", groups, l.run.Uncounted)
	}
}

func TestWaterLevel(t *testing.T) {
	// Σ min(work, λ) = total: 1 + 2 + 4 = 7.
	for _, tc := range []struct {
		work        []float64
		total, want float64
	}{
		{[]float64{10, 1, 2}, 7, 4}, {[]float64{1, 2}, 10, 2}, {[]float64{3, 3}, 0, 0}, {[]float64{3, 3}, 3, 1.5},
	} {
		if got := waterLevel(tc.work, tc.total); got != tc.want {
			t.Errorf("waterLevel(%v, %v) = %v, want %v", tc.work, tc.total, got, tc.want)
		}
	}
}

// TestTimedCountsWall: a leaf's wall time is that of its timed stretches, each from the dump before
// it.
func TestTimedCountsWall(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	segs := []segment{
		{trigger: trigStop, at: at(0)},               // start-up
		{trigger: trigStop, ran: 1 << 1, at: at(60)}, // timed, from StartTimer: 60 ms
		// runN's StopTimer to the result
		{trigger: trigResult, ran: 1 << 2, at: at(70)},
		{trigger: trigStop, ran: 1 << 0, at: at(75)},               // the next leaf: 5 ms
		{trigger: trigResult, ran: 1 << 2, entered: 0, at: at(76)}, // its result
	}
	got := timedCounts(segs)
	if len(got) != 2 || got[0].wall != 60*time.Millisecond || got[1].wall != 5*time.Millisecond {
		t.Errorf("timedCounts = %+v, want walls of 60 ms and 5 ms", got)
	}
}
