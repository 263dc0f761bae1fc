package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// The hosts of issue 54: a 2-core cloud VM whose state changes mid-run. Each world runs rounds
// A–B–B–A rounds at 1% noise a run unless it says otherwise; the answer is known (world.shift).
type regimeWorld struct {
	name string
	w    world
}

func regimeWorlds(rounds int) []regimeWorld {
	calm := world{rounds: rounds, benchmarks: 1, noise: 0.01}
	with := func(f func(*world)) world { w := calm; f(&w); return w }
	return []regimeWorld{
		{"calm", calm},
		{"drift", with(func(w *world) { w.drift = 0.10 })},
		// 60–90 ns to 140–160 ns, as measured, and noisier after
		{"step", with(func(w *world) { w.step, w.stepNoise = 0.7, 2 })},
		{"small step", with(func(w *world) { w.step = 0.04 })},
		{"burst", with(func(w *world) { w.burst = 10 })},
		{"burst asym", with(func(w *world) { w.burst, w.burstAsym = 10, true })},
		{"burst 20", with(func(w *world) { w.burst = 20 })},
		{"walk", with(func(w *world) { w.walk = 0.003 })},
		{"heavy tails", with(func(w *world) { w.tails = 3 })},
		{"load", with(func(w *world) { w.load, w.loadRho, w.spikes = 0.05, 0.9, 0.05 })},
	}
}

// regimeTally is a tally with what the estimator saw.
type regimeTally struct {
	tally
	regimes, effect, bursts int // runs with Regimes > 1, RegimeEffect, Bursts > 0
}

func (w world) regimeTally(t *testing.T, seed uint64, sims int) regimeTally {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var n regimeTally
	for range sims {
		cs, err := Analyze(w.run(rng), DefaultStatsOptions)
		if err != nil {
			t.Fatal(err)
		}
		c := cs[0]
		n.sims++
		switch c.Class {
		case record.ClassSlower:
			n.slower++
		case record.ClassFaster:
			n.faster++
		case record.ClassFailed:
			t.Fatalf("seed %d: failed comparison %+v", seed, c)
		}
		if c.Paired.Lo <= 1+w.shift && 1+w.shift <= c.Paired.Hi {
			n.covered++
		}
		n.noisePct += c.NoisePct / float64(sims)
		if c.Paired.Regimes > 1 {
			n.regimes++
		}
		if c.Paired.RegimeEffect {
			n.effect++
		}
		if c.Paired.Bursts > 0 {
			n.bursts++
		}
	}
	return n
}

// TestSimRegimes: in every world and for true changes of 0, +3.5% and −5%, the 95% interval covers
// the true ratio in 95% of the runs (within three binomial standard deviations), identical code
// fails the gate (slower at the default 2% threshold) in at most 1% of the runs, and a run with a
// burst covers the truth as often as a calm run does. At 10 rounds a burst of 3 to 8 rounds is the
// hardest case: up to four rounds in five.
//
// Measured at 1,000 runs a cell (seeds 100–192), before this estimator (a7e5a7c) → now: the
// worlds cover 0.942–0.970 → 0.942–0.964 (the old interval was valid, but behind a burst only by
// being wide: the burst set the noise floor, 8.7% → 6.3% now, 17.5% → 9.6% at 20×). Identical code
// failed the gate in 0–1.0% → 0–0.8% (burst 20). A true +3.5% was found slower in 28% → 49% of the
// runs with a 10× burst, 20% → 55% with a 20× one, 47% → 51% with a one-sided one; −5% faster in
// 41% → 57%, 25% → 62%, 65% → 68%. Elsewhere the power is as it was, within 0.2 points.
func TestSimRegimes(t *testing.T) {
	sims := 1000
	if testing.Short() {
		sims = 200
	}
	simRegimes(t, 10, sims)
}

// TestSimRegimesLong is TestSimRegimes at 20 rounds, where the search for steps has more to do (it
// finds one in 80% of the runs with a step) and a burst is a minority of the rounds. Measured at
// 1,000 runs a cell (30 s; 200 here), before → now: coverage 0.937–0.967 → 0.938–0.962; behind a
// 10× burst a true +3.5% slower in 87% → 98% of the runs, 20×: 79% → 100%, one-sided: 99% → 99%;
// with a step 100% → 99.7%. (With the F-test of a regime effect at 0.01 the one-sided burst's fell
// to 92%: hence RegimeEffectAlpha.)
func TestSimRegimesLong(t *testing.T) {
	sims := 200
	if testing.Short() {
		sims = 60
	}
	simRegimes(t, 20, sims)
}

func simRegimes(t *testing.T, rounds, sims int) {
	covered := map[string]regimeTally{}
	for i, c := range regimeWorlds(rounds) {
		for j, shift := range []float64{0, 0.035, -0.05} {
			seed := uint64(100 + 10*i + j)
			w := c.w
			w.shift = shift
			n := w.regimeTally(t, seed, sims)
			cov := rate(n.covered, n.sims)
			t.Logf("%-11s %+5.1f%%  seed %d: coverage %.3f  slower %.3f  faster %.3f  noise %5.2f%%  regimes %.3f (effect %.3f)  bursts %.3f",
				c.name, 100*shift, seed, cov, rate(n.slower, n.sims), rate(n.faster, n.sims), n.noisePct,
				rate(n.regimes, n.sims), rate(n.effect, n.sims), rate(n.bursts, n.sims))
			if low := 0.95 - margin(0.95, n.sims); cov < low {
				t.Errorf("%s %+.1f%%, seed %d: coverage %.3f < %.3f", c.name, 100*shift, seed, cov, low)
			}
			if c.name == "calm" {
				if fb, bound := rate(n.bursts, n.sims), 0.01+margin(0.01, n.sims); fb > bound {
					t.Errorf("calm %+.1f%%, seed %d: a burst seen in %.3f of the runs > %.3f", 100*shift, seed, fb, bound)
				}
			}
			if shift == 0 {
				if fa, bound := rate(n.slower, n.sims), 0.01+margin(0.01, n.sims); fa > bound {
					t.Errorf("%s A/A, seed %d: the gate failed identical code in %.3f of the runs > %.3f", c.name, seed, fa, bound)
				}
			}
			prev := covered[c.name]
			prev.sims += n.sims
			prev.covered += n.covered
			covered[c.name] = prev
		}
	}
	calm := covered["calm"]
	pc := rate(calm.covered, calm.sims)
	for _, name := range []string{"burst", "burst asym", "burst 20"} {
		b := covered[name]
		pb := rate(b.covered, b.sims)
		// three standard deviations of the difference of two binomial rates
		d := 3 * math.Sqrt(pc*(1-pc)/float64(calm.sims)+pb*(1-pb)/float64(b.sims))
		t.Logf("coverage with a %s %.3f, calm %.3f (margin %.3f)", name, pb, pc, d)
		if pb < pc-d {
			t.Errorf("coverage with a %s %.3f < calm %.3f − %.3f", name, pb, pc, d)
		}
	}
}

// TestSimCalmPower: on calm runs the detection of regimes must cost next to nothing. A true +5%
// is classed slower as often as before at 10–30 rounds and 0.5–2% noise, and +3% too. Measured at
// 1,000 runs a cell, before (a7e5a7c) → now: +5% slower in 100% of the runs in every cell → 99.9%
// at 10 rounds and 2% noise, 100% elsewhere; +3% at 2% noise in 77.3%, 98.0%, 99.4% at 10, 20, 30
// rounds → 77.1%, 98.0%, 99.4%, and 99.7–100% elsewhere, as before.
func TestSimCalmPower(t *testing.T) {
	sims := 1000
	if testing.Short() {
		sims = 200
	}
	for i, rounds := range []int{10, 20, 30} {
		for j, noise := range []float64{0.005, 0.01, 0.02} {
			for k, shift := range []float64{0.05, 0.03} {
				seed := uint64(300 + 100*i + 10*j + k)
				w := world{rounds: rounds, benchmarks: 1, noise: noise, shift: shift}
				n := w.regimeTally(t, seed, sims)
				p := rate(n.slower, n.sims)
				t.Logf("%2d rounds, noise %.1f%%, %+.0f%%, seed %d: slower %.3f, coverage %.3f, regimes %.3f (effect %.3f), bursts %.3f",
					rounds, 100*noise, 100*shift, seed, p, rate(n.covered, n.sims), rate(n.regimes, n.sims), rate(n.effect, n.sims), rate(n.bursts, n.sims))
				if low := 0.99 - margin(0.99, n.sims); shift == 0.05 && p < low {
					t.Errorf("%d rounds, noise %.1f%%, seed %d: a true +5%% slower in %.3f of the runs < %.3f", rounds, 100*noise, seed, p, low)
				}
			}
		}
	}
}

// BenchmarkRegimes is the cost of finding the regimes of a run with a step in its middle, every
// permutation drawn: at 20 rounds, and at DefaultMaxRounds, a budgeted run's last look.
func BenchmarkRegimes(b *testing.B) {
	for _, rounds := range []int{20, DefaultMaxRounds} {
		rng := rand.New(rand.NewPCG(1, 2))
		level := make([]float64, rounds)
		for r := range level {
			level[r] = 0.01 * rng.NormFloat64()
			if r >= rounds/2 {
				level[r] += 0.7
			}
		}
		b.Run(fmt.Sprint(rounds), func(b *testing.B) {
			for b.Loop() {
				regimes(level)
			}
		})
	}
}

func TestRoundsNote(t *testing.T) {
	for _, c := range []struct {
		p    record.Paired
		want string
	}{
		{record.Paired{Rounds: 20}, ""},
		{record.Paired{Rounds: 19, Disturbed: 1}, "1 of 20 rounds disturbed, left out"},
		{record.Paired{Rounds: 15, Disturbed: 5, Bursts: 4},
			"5 of 20 rounds disturbed, left out (4 in a burst: the interval and the noise floor are the calm rounds')"},
		{record.Paired{Rounds: 20, Regimes: 2}, "the host changed state mid-run (2 levels); the ratio did not differ between them"},
		{record.Paired{Rounds: 20, Regimes: 3, RegimeEffect: true},
			"the host changed state mid-run (3 levels); the ratio differed between them, so the interval is as wide as 3 levels allow"},
	} {
		if got := RoundsNote(c.p); got != c.want {
			t.Errorf("RoundsNote(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
