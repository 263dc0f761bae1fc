package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

func TestLooks(t *testing.T) {
	for _, tt := range []struct {
		first, most int
		want        []int
	}{
		{5, 40, []int{5, 8, 12, 18, 27, 40}},
		{5, 5, []int{5}},
		{2, 10, []int{2, 4, 6, 9, 10}},
		{1, 1, []int{2}},
		{8, 3, []int{8}},
	} {
		if got := Looks(tt.first, tt.most); !cmp.Equal(got, tt.want) {
			t.Errorf("Looks(%d, %d) = %v, want %v", tt.first, tt.most, got, tt.want)
		}
	}
}

// machine simulates the run times of a shared, noisy machine, one run after another: a slow linear
// drift, a correlated load (AR(1) in log time) and load spikes, on top of white noise.
type machine struct {
	rng    *rand.Rand
	sigma  float64 // white noise of one run, log units
	drift  float64 // log drift per run
	rho    float64 // AR(1) coefficient of the load from one run to the next
	loadSD float64 // innovation of the load, log units
	spikeP float64 // probability that a run is hit by a spike
	load   float64
	runs   int
}

// run returns the time of one run of code whose undisturbed time is t.
func (m *machine) run(t float64) float64 {
	m.runs++
	m.load = m.rho*m.load + m.loadSD*m.rng.NormFloat64()
	x := math.Log(t) + m.drift*float64(m.runs) + m.load + m.sigma*m.rng.NormFloat64()
	if m.rng.Float64() < m.spikeP {
		x += math.Log(1.1 + 0.4*m.rng.Float64()) // a neighbour takes 10–50% of the CPU for this run
	}
	return math.Exp(x)
}

// simRun is one simulated budgeted run: what it decided, and when.
type simRun struct {
	classes map[string]record.Class
	rows    map[string]record.Benchmark // the sec/op rows the classes are of
	settled map[string]int              // runs until the benchmark stopped being timed
	runs    int                         // runs in all
}

// simulate drives a Stager as RunABBA does, over benchmarks whose head/base ratio is effects[i],
// with a budget of budget runs.
func simulate(m *machine, effects []float64, first, most, budget int) simRun {
	return simulateWith(m, effects, first, most, budget, DefaultStatsOptions.ThresholdPct)
}

// simulateWith is simulate at a threshold of thresholdPct.
func simulateWith(m *machine, effects []float64, first, most, budget int, thresholdPct float64) simRun {
	return simulateCounts(m, effects, first, most, budget, thresholdPct, nil)
}

// simulateCounts is simulateWith with the instruction counts of metric auto, when counts is not
// nil: the looks see them from the first (RunConfig.Counts), and the classes are CombineLanes'.
func simulateCounts(m *machine, effects []float64, first, most, budget int, thresholdPct float64,
	counts []record.Benchmark) simRun {
	opt := DefaultStatsOptions
	opt.ThresholdPct = thresholdPct
	names := make([]string, len(effects))
	for i := range names {
		names[i] = fmt.Sprintf("Sim/%02d", i)
	}
	st := NewStager(names, first, most, opt)
	if counts != nil {
		st.Counts = func() []record.Benchmark { return counts }
	}
	var samples []benchtxt.Sample
	out := simRun{classes: map[string]record.Class{}, rows: map[string]record.Benchmark{}, settled: map[string]int{}}
	for {
		n := st.Next(time.Duration(4*len(st.active)), time.Duration(budget-m.runs))
		if n == 0 {
			break
		}
		for r := range n {
			for _, i := range st.active {
				base := 1e-6 * float64(1+i%5)
				for slot, side := range [4]record.Side{record.Base, record.Head, record.Head, record.Base} {
					t := base
					if side == record.Head {
						t *= effects[i]
					}
					samples = append(samples, benchtxt.Sample{Name: names[i], Side: side, Round: st.rounds + r, Slot: slot,
						Values: []benchtxt.Value{{Value: m.run(t), Unit: "sec/op"}}})
				}
			}
		}
		for _, i := range st.Look(samples, n) {
			out.settled[names[i]] = m.runs
		}
	}
	opt = st.opt
	opt.look = true // the final analysis differs from the looks' only by benchstat's summaries
	cs, err := Analyze(samples, opt)
	if err != nil {
		panic(err)
	}
	if counts != nil {
		cs = append(cs, counts...)
		CombineLanes(cs, AutoOptions{ThresholdPct: thresholdPct})
	}
	for _, c := range cs {
		if c.Unit == record.UnitTime {
			out.classes[c.Name], out.rows[c.Name] = c.Class, c
		}
	}
	out.runs = m.runs
	return out
}

// noisy is the simulated machine of the tests: 1% white noise per run, a drift of 5% over 10,000
// runs, a correlated load and a spike in one run of 20.
func noisy(seed uint64) *machine {
	return &machine{rng: rand.New(rand.NewPCG(seed, 0x5e9)), sigma: 0.01, drift: 0.05 / 10000,
		rho: 0.7, loadSD: 0.005, spikeP: 0.05}
}

const (
	simBenchmarks = 25 // as many as this repository's own gate
	// runs: 15 rounds of every benchmark, a budget most benchmarks need a fraction of
	simBudget = 25 * 4 * 15
)

// TestSimSequentialAA: on identical code, looking after every stage and stopping settled benchmarks
// does not raise the family-wise false-alarm rate above alpha.
func TestSimSequentialAA(t *testing.T) {
	const sims = 1000
	seed := uint64(20261130)
	t.Logf("seed %d, %d runs of %d benchmarks, budget %d runs each", seed, sims, simBenchmarks, simBudget)
	effects := slices.Repeat([]float64{1}, simBenchmarks)
	falseRuns, settledAll, settledSome := 0, 0, 0
	var toSettle []float64
	for s := range sims {
		r := simulate(noisy(seed+uint64(s)), effects, 5, DefaultMaxRounds, simBudget)
		alarm := false
		for _, c := range r.rows {
			alarm = alarm || c.Class == record.ClassSlower || c.Class == record.ClassFaster
			if SettledForGate(c, DefaultStatsOptions.ThresholdPct) {
				// for the gate: a class that settled, or a slowdown beyond the threshold ruled out
				settledSome++
			}
		}
		if alarm {
			falseRuns++
		}
		if len(r.settled) == simBenchmarks {
			settledAll++
			toSettle = append(toSettle, float64(r.runs))
		}
	}
	rate := float64(falseRuns) / sims
	t.Logf("family-wise false alarms %d of %d runs (%.3f; alpha %g); %.1f%% of benchmarks settled for the gate; all settled in %d runs, median %.0f runs",
		falseRuns, sims, rate, DefaultStatsOptions.Alpha, 100*float64(settledSome)/(sims*simBenchmarks), settledAll, Median(toSettle))
	if rate > DefaultStatsOptions.Alpha {
		t.Errorf("family-wise false-alarm rate %.3f, want at most alpha %g", rate, DefaultStatsOptions.Alpha)
	}
	if share := float64(settledSome) / (sims * simBenchmarks); share < 0.9 {
		t.Errorf("%.1f%% of A/A benchmarks settled for the gate, want at least 90%%", 100*share)
	}
}

// TestSimSequentialShift: a 3% slowdown of one benchmark among 25 is found (classed slower) in at
// least 95% of the runs, and the time it takes is printed.
func TestSimSequentialShift(t *testing.T) {
	const sims = 1000
	seed := uint64(3)
	t.Logf("seed %d, %d runs, benchmark 0 of %d 3%% slower, budget %d runs", seed, sims, simBenchmarks, simBudget)
	effects := slices.Repeat([]float64{1}, simBenchmarks)
	effects[0] = 1.03
	found := 0
	var toSettle []float64
	for s := range sims {
		r := simulate(noisy(seed+uint64(s)), effects, 5, DefaultMaxRounds, simBudget)
		if r.classes["Sim/00"] == record.ClassSlower {
			found++
		}
		if n, ok := r.settled["Sim/00"]; ok {
			toSettle = append(toSettle, float64(n))
		}
	}
	t.Logf("3%% found %d of %d; settled in %d runs, median %.0f runs of the machine (%.1f rounds of all %d benchmarks)",
		found, sims, len(toSettle), Median(toSettle), Median(toSettle)/(4*simBenchmarks), simBenchmarks)
	if share := float64(found) / sims; share < 0.95 {
		t.Errorf("3%% slowdown found in %.3f of runs, want at least 0.95", share)
	}
}

func TestSpendSumsToOne(t *testing.T) {
	for looks := 1; looks <= 12; looks++ {
		sum := 0.0
		for k := 1; k <= looks; k++ {
			sum += spend(k, looks)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%d looks spend %v in all, want 1", looks, sum)
		}
	}
}

// TestSettleByCounts: a look settles, by the instruction counts (RunConfig.Counts), what
// CombineLanes would: equal counts with an inconclusive time that reaches the ±threshold band and
// unchanged allocations are unchanged; counts moved beyond their threshold with the time's interval
// wholly beyond half the time threshold the same way, at the look's stricter level
// (lookAgreeAlpha), are that way. Not when the interval lies beyond the band, the allocations
// moved, the count moved the other way, the interval reaches inside half the threshold or only the
// look's own 95% interval lies beyond it; and nothing before the counts are in.
func TestSettleByCounts(t *testing.T) {
	count := func(name string, base, head float64, class record.Class) record.Benchmark {
		return record.Benchmark{Name: name, Unit: record.UnitInstructions, Class: class, Exact: true,
			Base: record.Summary{Center: base}, Head: record.Summary{Center: head}}
	}
	var counts []record.Benchmark
	opt := DefaultStatsOptions
	opt.Sequential = &SequentialPlan{Looks: 1, Family: 9, Look: map[string]int{}}
	st := &Stager{opt: opt, Counts: func() []record.Benchmark { return counts }}
	row := func(name string, lo, hi float64) record.Benchmark {
		return record.Benchmark{Name: name, Unit: "sec/op", Class: record.ClassInconclusive,
			Paired: &record.Paired{Ratio: math.Sqrt(lo * hi), Lo: lo, Hi: hi, Rounds: 20}}
	}
	cs := []record.Benchmark{row("Same", 0.95, 1.06), row("Moved", 0.95, 1.06), row("Beyond", 1.03, 1.2),
		row("Allocs", 0.97, 1.04), {Name: "Allocs", Unit: "allocs/op", Class: record.ClassSlower},
		row("Slower", 1.025, 1.05), row("Faster", 0.9, 0.97), row("Against", 1.025, 1.05),
		row("Inside", 1.004, 1.05), row("Loose", 1.012, 1.05)}
	look := func() map[string]record.Class {
		class := map[string]record.Class{}
		for _, c := range cs {
			if c.Unit == "sec/op" {
				class[c.Name] = c.Class
			}
		}
		st.settleByCounts(cs, class)
		return class
	}
	for name, c := range look() {
		if c != record.ClassInconclusive {
			t.Errorf("before the counts are in: %s is %s, want inconclusive", name, c)
		}
	}
	counts = []record.Benchmark{count("Same", 400, 400, record.ClassUnchanged),
		count("Moved", 400, 420, record.ClassSlower), count("Beyond", 400, 400, record.ClassUnchanged),
		count("Allocs", 400, 400, record.ClassUnchanged), count("Slower", 400, 420, record.ClassSlower),
		count("Faster", 400, 380, record.ClassFaster), count("Against", 400, 380, record.ClassFaster),
		count("Inside", 400, 420, record.ClassSlower), count("Loose", 400, 420, record.ClassSlower)}
	want := map[string]record.Class{"Same": record.ClassUnchanged, "Moved": record.ClassInconclusive,
		"Beyond": record.ClassInconclusive, "Allocs": record.ClassInconclusive, "Slower": record.ClassSlower,
		"Faster": record.ClassFaster, "Against": record.ClassInconclusive, "Inside": record.ClassInconclusive,
		"Loose": record.ClassInconclusive}
	class := look()
	for name, w := range want {
		if class[name] != w {
			t.Errorf("%s: %s, want %s", name, class[name], w)
		}
	}
}

// TestLookSeesAllocations: a look's own analysis has sec/op only, yet rule 2 needs the allocations
// unchanged, so a look must not stop a benchmark by equal counts when its B/op moved; the final
// analysis (CombineLanes) would leave it inconclusive, and the run would stop timing what it then
// reports unsettled. A benchmark with the same noise and the same counts whose allocations did not
// move is settled unchanged at the same look.
func TestLookSeesAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	names := []string{"Moved", "Same"}
	var samples []benchtxt.Sample
	for r := range 8 {
		for i, name := range names {
			for slot, side := range [4]record.Side{record.Base, record.Head, record.Head, record.Base} {
				bytes := 256.0
				if side == record.Head && i == 0 {
					bytes = 288
				}
				samples = append(samples, benchtxt.Sample{Name: name, Side: side, Round: r, Slot: slot, Values: []benchtxt.Value{
					{Value: 150e-9 * math.Exp(0.04*rng.NormFloat64()), Unit: "sec/op"},
					{Value: bytes, Unit: "B/op"}, {Value: 1, Unit: "allocs/op"}}})
			}
		}
	}
	st := NewStager(names, 8, 40, DefaultStatsOptions)
	st.Counts = func() []record.Benchmark {
		var cs []record.Benchmark
		for _, name := range names {
			cs = append(cs, record.Benchmark{Name: name, Unit: record.UnitInstructions, Class: record.ClassUnchanged,
				Exact: true, Base: record.Summary{Center: 608}, Head: record.Summary{Center: 608}})
		}
		return cs
	}
	var stopped []string
	for _, i := range st.Look(samples, 8) {
		stopped = append(stopped, names[i])
	}
	if want := []string{"Same"}; !slices.Equal(stopped, want) {
		t.Fatalf("the look stopped %v, want %v", stopped, want)
	}
	cs, err := Analyze(samples, st.opt)
	if err != nil {
		t.Fatal(err)
	}
	CombineLanes(append(cs, st.Counts()...), AutoOptions{ThresholdPct: DefaultStatsOptions.ThresholdPct})
	for _, c := range cs {
		if c.Unit == "sec/op" && c.Name == "Moved" && c.Class != record.ClassInconclusive {
			t.Errorf("Moved at the end: %s, want inconclusive (its time class, the allocations moved)", c.Class)
		}
	}
}
