package bench

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// blocks is the gate's one-sided rule on a simulated sec/op row: slower, or inconclusive with a
// slowdown beyond the threshold not ruled out (gate.Decide, without acknowledgements).
func blocks(c record.Benchmark, thresholdPct float64) bool {
	return c.Class == record.ClassSlower || c.Class == record.ClassInconclusive && !gate.RulesOutWorse(c, thresholdPct)
}

// gateTally is what budgeted simulations of benchmarks with head/base ratios effects did at the
// gate: of benchmark 0, how often it was classed slower (exit 1), blocked the merge, and was
// inconclusive but ruled out; and in how many runs any benchmark blocked.
type gateTally struct {
	runs, slower, blocked, ruledOut, runsBlocked int
}

func simulateGate(seed uint64, n int, effects []float64, thresholdPct float64, m func(uint64) *machine) gateTally {
	var g gateTally
	for s := range n {
		r := simulateWith(m(seed+uint64(s)), effects, 5, DefaultMaxRounds, simBudget, thresholdPct)
		g.runs++
		c := r.rows["Sim/00"]
		if c.Class == record.ClassSlower {
			g.slower++
		}
		if blocks(c, thresholdPct) {
			g.blocked++
		}
		if c.Class == record.ClassInconclusive && gate.RulesOutWorse(c, thresholdPct) {
			g.ruledOut++
		}
		for _, row := range r.rows {
			if blocks(row, thresholdPct) {
				g.runsBlocked++
				break
			}
		}
	}
	return g
}

// wide is a machine with three times the noisy machine's white noise per run (3%), where a −5%
// change rarely settles two-sided within the budget.
func wide(seed uint64) *machine {
	m := noisy(seed)
	m.sigma = 0.03
	return m
}

// TestSimOneSided checks the gate's one-sided rule in budgeted runs of 25 benchmarks on the
// simulated noisy machine (seeded; the seed is logged; 100 runs per case, 1,000 with -long or
// PERFGATE_E2E=1):
//
//   - a true slowdown of 1.5 × the threshold (+3% at 2%) blocks the merge in at least 95% of runs;
//   - a true change of half the threshold (+1%) is called slower (exit 1) in at most 1% of runs;
//   - an A/A run (every benchmark unchanged) blocks the merge in at most 1% of runs;
//   - a true −5% on a machine with 3% noise per run passes (does not block) in at least 95% of
//     runs, though its two-sided class is often inconclusive.
func TestSimOneSided(t *testing.T) {
	const seed = 20261203
	n := sims(100)
	if os.Getenv("PERFGATE_E2E") == "1" && !*long {
		n *= 10
	}
	const th = 2.0
	aa := slices.Repeat([]float64{1}, simBenchmarks)
	with := func(effect float64) []float64 {
		e := slices.Clone(aa)
		e[0] = effect
		return e
	}
	for _, tt := range []struct {
		name    string
		effects []float64
		m       func(uint64) *machine
		check   func(g gateTally) (float64, string, bool)
	}{
		{"true +3% (1.5 × threshold)", with(1.03), noisy, func(g gateTally) (float64, string, bool) {
			r := rate(g.blocked, g.runs)
			return r, "blocked, want at least 0.95", r >= 0.95
		}},
		{"true +1% (threshold / 2)", with(1.01), noisy, func(g gateTally) (float64, string, bool) {
			r := rate(g.slower, g.runs)
			return r, "slower (exit 1), want at most 0.01", r <= 0.01
		}},
		{"A/A", aa, noisy, func(g gateTally) (float64, string, bool) {
			r := rate(g.runsBlocked, g.runs)
			return r, "of runs blocked, want at most 0.01", r <= 0.01
		}},
		{"true -5%, 3% noise per run", with(0.95), wide, func(g gateTally) (float64, string, bool) {
			r := 1 - rate(g.blocked, g.runs)
			return r, "passed, want at least 0.95", r >= 0.95
		}},
	} {
		g := simulateGate(seed, n, tt.effects, th, tt.m)
		r, what, ok := tt.check(g)
		t.Logf("seed %d, %s: benchmark 0 slower %d, blocked %d, inconclusive but ruled out %d of %d runs; runs "+
			"blocked by any of %d benchmarks %d; %.3f %s", seed, tt.name, g.slower, g.blocked, g.ruledOut, g.runs,
			simBenchmarks, g.runsBlocked, r, what)
		if !ok {
			t.Errorf("%s: %.3f %s", tt.name, r, what)
		}
	}
}

// TestPairedBound: the one-sided bound is exp(mean + t(confidence, R−1)·se) on the worse side
// (upper for sec/op, lower for B/s), inside the two-sided interval, and the finite bound of a known
// sample.
func TestPairedBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var rounds [][4]float64
	for range 12 {
		h := 1.01 * math.Exp(0.01*rng.NormFloat64())
		rounds = append(rounds, [4]float64{100, 100 * h, 100 * h, 100})
	}
	c := compareOne(t, abbaSamples("X", "sec/op", rounds), DefaultStatsOptions)
	p := c.Paired
	if !(p.Lo < p.Ratio && p.Ratio < p.Bound && p.Bound < p.Hi) {
		t.Fatalf("sec/op: ratio %g, interval [%g, %g], bound %g: want ratio < bound < hi", p.Ratio, p.Lo, p.Hi, p.Bound)
	}
	// The bound's distance from the estimate is t(0.95, 11)/t(0.975, 11) of the interval's upper
	// half-width.
	got := math.Log(p.Bound/p.Ratio) / math.Log(p.Hi/p.Ratio)
	if want := tQuantile(0.95, 11) / tQuantile(0.975, 11); math.Abs(got-want) > 1e-9 {
		t.Errorf("bound at %.6f of the half-width, want %.6f", got, want)
	}
	var rates [][4]float64
	for _, r := range rounds {
		rates = append(rates, [4]float64{1 / r[0], 1 / r[1], 1 / r[2], 1 / r[3]})
	}
	c = compareOne(t, abbaSamples("X", "B/s", rates), DefaultStatsOptions)
	if p := c.Paired; !(p.Lo < p.Bound && p.Bound < p.Ratio) {
		t.Errorf("B/s: ratio %g, interval [%g, %g], bound %g: want lo < bound < ratio", p.Ratio, p.Lo, p.Hi, p.Bound)
	}
}

// TestSettledForGate: a look stops a benchmark whose class is settled or whose bound rules out a
// slowdown beyond the threshold, and no other.
func TestSettledForGate(t *testing.T) {
	row := func(class record.Class, bound float64) record.Benchmark {
		return record.Benchmark{Unit: record.UnitTime, Class: class, Paired: &record.Paired{Bound: bound}}
	}
	for _, tt := range []struct {
		c    record.Benchmark
		want bool
	}{
		{row(record.ClassSlower, 1.05), true},
		{row(record.ClassUnchanged, 1.01), true},
		{row(record.ClassInconclusive, 1.019), true},
		{row(record.ClassInconclusive, 0.97), true},
		{row(record.ClassInconclusive, 1.021), false},
		{row(record.ClassInconclusive, 0), false},
		{row(record.ClassFailed, 0.9), false},
	} {
		if got := SettledForGate(tt.c, 2); got != tt.want {
			t.Errorf("%s, bound %g: SettledForGate %v, want %v", tt.c.Class, tt.c.Paired.Bound, got, tt.want)
		}
	}
}
