package benchrun

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/progress"
	"github.com/perfgate/perfgate/record"
)

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
		r := &runner{run: &Run{Iters: map[string]int{}}, progress: progress.New(nil)}
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

func TestInstrEnv(t *testing.T) {
	got := instrEnv([]string{"A=1", "GOMAXPROCS=8", "GODEBUG=madvdontneed=1", "GOGC=50", "GOMEMLIMIT=1MiB", "GOGCX=1"})
	want := []string{"A=1", "GOGCX=1", "GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=2GiB", "GODEBUG=madvdontneed=1,asyncpreemptoff=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instrEnv (-want +got):\n%s", diff)
	}
	if got := instrEnv(nil); !cmp.Equal(got, []string{"GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=2GiB", "GODEBUG=asyncpreemptoff=1"}) {
		t.Errorf("instrEnv(nil) = %q", got)
	}
}

func TestGroupLeaves(t *testing.T) {
	mk := func(iters ...int) []leaf {
		var out []leaf
		for i, n := range iters {
			out = append(out, leaf{name: string(rune('a' + i)), iters: n})
		}
		return out
	}
	type group struct {
		n      int
		leaves string
	}
	check := func(leaves []leaf, perOp []float64, want []group) {
		t.Helper()
		var got []group
		for _, g := range groupLeaves(leaves, perOp, valgrindStart) {
			names := ""
			for _, lf := range g.leaves {
				names += lf.name
				if lf.iters != g.n {
					t.Errorf("leaf %s runs at %d in a group at %d", lf.name, lf.iters, g.n)
				}
			}
			got = append(got, group{g.n, names})
		}
		if !slices.Equal(got, want) {
			t.Errorf("groupLeaves = %v, want %v", got, want)
		}
	}
	// Two expensive leaves and two cheap ones: one group would run the expensive ones 600 times too
	// often (3 × 1200 × 3×10⁶ instructions, far more than a valgrind start-up), three groups would
	// start one process more for a saving of 3 × 200 × 800 instructions. Groups keep the order they
	// were given in.
	check(mk(1200, 1, 1000, 2), []float64{800, 2e6, 1000, 1e6}, []group{{2, "bd"}, {1200, "ac"}})
	// Cheap leaves all run in one process, at the largest N.
	check(mk(5, 1, 3), []float64{100, 200, 300}, []group{{5, "abc"}})
	check(nil, nil, nil)
}
