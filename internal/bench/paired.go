package bench

import (
	"math"
	"sort"
	"sync"

	"github.com/aclements/go-moremath/mathx"
	"github.com/aclements/go-moremath/stats"
	"github.com/perfgate/perfgate/record"
)

// DisturbedRound is how many pair standard deviations (√2·σ) a round's A–A or B–B pair may stray
// from the median pair before the round counts as disturbed.
const DisturbedRound = 4

// WildRound is how many spreads (see "Wild rounds") a round's log ratio d_r may lie from the median
// d_r before the round is left out.
const WildRound = 4

// roundValues holds one round's values of one benchmark and unit, each side ordered by slot.
type roundValues struct {
	round      int
	base, head []slotValue
}

type slotValue struct {
	slot  int
	value float64
}

// pairedResult is the paired estimate with the noise floor, in log units.
type pairedResult struct {
	est   record.Paired
	sigma float64 // single-run log standard deviation from the A–A and B–B pairs
	mde   float64 // half-width in log units of the interval sigma implies
	// upper and lower are the one-sided bounds of the ratio at the interval's confidence, each with
	// all of 1 − confidence on its side: exp(mean d ± t(confidence, R−1) · s_d / √R).
	// Record.Paired.Bound is the one on the unit's worse side (see onesided.go).
	upper, lower float64
}

// paired computes the paired estimate over the complete rounds of rs, with PMargin the test against
// margin (a fraction: half the threshold). It reports ok = false when fewer than two complete
// rounds remain or a value is not positive (its logarithm is undefined); dropped counts incomplete
// rounds.
//
// # The paired A–B–B–A estimator
//
// Every round r runs a benchmark four times, A B B A: base in slots 0 and 3, head in slots 1 and 2.
// Both sides' slot positions average to 1.5, so a drift that is linear within the round (a CPU
// warming up, a neighbour starting) moves the base mean and the head mean alike and cancels in
// their ratio. Per round
//
//	d_r = log(mean(head slots) / mean(base slots))
//
// and over the R complete rounds, assuming the d_r are independent and roughly normal, the estimate
// is a Student t-interval (unless the ratio differs between regimes of the host: "Steps and
// bursts"):
//
//	ratio = exp(mean d),  interval = exp(mean d ± t(1-(1-confidence)/2, R-1) · s_d / √R),
//
// with s_d the sample standard deviation of the d_r. The p-value P is the two-sided one-sample
// t-test of mean d = 0 with R-1 degrees of freedom, and PMargin the test that |mean d| is at most a
// margin (half the threshold, see stats.go). Drift between rounds is harmless: each d_r is a
// within-round contrast.
//
// The means matter. Taking the faster run of each side instead (noise on a shared machine only adds
// time) narrows the intervals on real A/A runs, but it is biased whenever the machine's load is
// correlated from one run to the next, as it is on a busy runner: head's two runs are adjacent
// while base's are three slots apart, so base's faster run more often catches a quiet moment, and
// identical code looks slower (+0.4% to +1.4% in simulation, and a false +77% "slower" on this
// project's own loaded CI). The mean of each pair is unbiased under any stationary or linearly
// drifting load.
//
// Disturbed rounds. The pairs of equal code inside each round measure the noise: a_r = log(base
// slot 3 / base slot 0) and b_r = log(head slot 2 / head slot 1). If a single run has log standard
// deviation σ, each has standard deviation √2·σ; linear drift adds a constant to every a_r and
// every b_r, which differences within each series cancel. The median of the pooled differences is a
// robust scale (Shamos' estimator):
//
//	σ = 1.0483 · Median(|a_r - a_s|, |b_r - b_s| for all r < s) / √2
//
// (for normal data the median of |X - Y| is 0.9539 standard deviations of X, hence 1.0483; over the
// calm rounds when a burst shows, see "Steps and bursts"). A round
// whose a_r or b_r lies more than DisturbedRound·√2·σ (and at least 1%) from its series' median had
// a run disturbed — an interrupt, a neighbour on the pinned CPU — and is left out of the interval,
// as long as two rounds remain. The test looks only at pairs of equal code and is symmetric in
// time, so it cannot favour either side. (On this project's A/A runs of cipher/des it halved the
// median interval half-width on the noisiest run; in simulation it keeps the false-positive rate at
// or below alpha with correlated load and spikes.)
//
// Wild rounds. A burst of load that covers both head runs of a round but neither base run (or the
// reverse) leaves the A–A and B–B pairs alone and moves that round's d_r by the burst's size. The
// mean follows one such round: among five, one moved a true +20% to 1.567× [1.0008, 2.45] while
// benchstat's medians, in the table beside it, said +19.8%. So a round whose d_r lies more than
// WildRound·s from the median of the remaining d_r is left out too, with s the larger of σ (below:
// the spread a d_r has when nothing disturbs it) and the d_r's own robust spread (1.4826 × their
// median absolute deviation), and at least 1%; again as long as two rounds remain. The rule is
// symmetric, so it cannot favour a side, and for normal d_r it leaves out a round in fewer than 1
// in 10,000, which keeps the t-test calibrated; it is what makes the estimate median-like when one
// round runs wild. (A 20% trimmed mean with the Tukey–McLaughlin interval was tried first: on
// normal d_r its test rejected 1.5–2.3 times as often as its level at 5–30 rounds, too liberal for
// a gate.) Disturbed counts both kinds.
//
// # Steps and bursts
//
// The noise of a shared machine comes in bursts: on a 2-core cloud VM a run whose base samples had
// a CV of 16–17% said +9.6% [+4.1%, +15.5%] of a change go test measured at +3.5% ± 1%. The rounds
// above assume noise that A–B–B–A cancels; the host changing state mid-run is not that, in two
// ways.
//
// A burst is several consecutive rounds far noisier than the rest. Shamos' estimator breaks down
// once about three rounds in ten are a burst: the burst then sets σ, none of its rounds stands out,
// and its d_r, ten times as spread, enter the interval. So σ is found in two steps (calmNoise): the
// rounds are screened by the lower quartile of the pairs' deviations from their medians, which a
// burst of up to three rounds in four does not move, and when two consecutive rounds are screened
// off, σ is Shamos' estimator over the rest; otherwise over every round, as before. Every round is
// then judged by σ as above, and the disturbed rounds that have a disturbed neighbour are the
// burst (Paired.Bursts). The interval rests on the calm rounds: as wide as they allow, which is
// wider than a calm run of as many rounds. Leaving rounds out by their pairs is safe for the same
// reason as above: a pair's difference carries the noise's size, not the sides' difference, and for
// normal noise it is independent of the pair's sum, of which d_r is made.
//
// A step is a change of level (a neighbour starting, memory reclaimed: 60–90 ns becoming 140–160 ns
// on both sides). Between two rounds it cancels in every d_r; inside a round it moves that round's
// d_r by up to half the step, and its A–A or B–B pair by the whole step, which leaves the round out
// as disturbed. Steps are found in the rounds' level, the log of the mean of all four runs (not
// base's alone, whose noise d_r shares), by E-divisive means at RegimeAlpha (package changepoint;
// regimes), and the levels they divide are Paired.Regimes. Should the ratio itself differ between
// the levels (a one-way ANOVA F-test of the d_r at RegimeEffectAlpha), the regime is a random
// effect, d_r = μ + u_g + e_r, and the interval is that model's (regimeSpread: with equal regimes
// the t-interval over the regime means), Paired.RegimeEffect.
//
// Two other ways were weighed. Weighting each round by its own pair noise has 2 degrees of freedom
// per weight, and weights that noisy make an interval too narrow; a bootstrap over blocks of 10–30
// rounds is known to cover less than its level at so few blocks. TestSimRegimes measures the method
// on simulated hosts, 1,000 runs of 10 rounds each (TestSimRegimesLong: 20) at true changes of 0,
// +3.5% and −5%: calm, linear drift, a step of 0.7 in log level at a random run (inside a round
// three times in four) with twice the noise after it, a 4% step, bursts of 3–8 rounds at 10–20×
// the noise (symmetric, or only slowing and hitting one side of each round four times as hard), a
// random walk, Student t noise with 3 degrees of freedom and correlated load with spikes. Before
// this section the interval already covered the truth (0.942–0.970 at 10 rounds, 0.937–0.967 at
// 20), but behind a burst only by being wide: the burst set σ and its rounds stayed in. Now it
// covers it in 0.942–0.964 (0.938–0.962) of the runs, a run with a burst as often as a calm one;
// identical code fails the gate in at most 0.8% of them (1.0% before); and behind a 10× burst a
// true +3.5% is found slower in 49% of the runs at 10 rounds (28% before; at 20×, 55% against 20%)
// and 98% at 20 (87%; at 20×, 100% against 79%). Calm runs keep their power (TestSimCalmPower: a
// true +5% slower in 99.9–100% of the runs at 10–30 rounds and 0.5–2% noise, 100% before), and a
// run with a step loses at most 1.2 points of it.
//
// σ is the noise floor. Because d_r compares a mean of two head runs with a mean of two base runs,
// var(d_r) ≈ σ²/2 + σ²/2 = σ², so the half-width the paired interval would have at that noise, the
// smallest effect this run could detect, is
//
//	MDE = t(1-(1-confidence)/2, R-1) · σ / √R.
//
// An effect of exactly the MDE is significant in about half of the runs; it also has to exceed the
// threshold to be classed slower or faster.
func paired(rs []roundValues, confidence, margin float64) (res pairedResult, dropped int, ok bool) {
	var d, a, b, level []float64
	for _, r := range rs {
		if len(r.base) != 2 || len(r.head) != 2 {
			dropped++
			continue
		}
		sortSlots(r.base)
		sortSlots(r.head)
		b0, b3 := r.base[0].value, r.base[1].value
		h1, h2 := r.head[0].value, r.head[1].value
		if !(b0 > 0 && b3 > 0 && h1 > 0 && h2 > 0) || math.IsInf(b0+b3+h1+h2, 0) {
			return pairedResult{}, dropped, false
		}
		d = append(d, math.Log((h1+h2)/(b0+b3)))
		a = append(a, math.Log(b3/b0))
		b = append(b, math.Log(h2/h1))
		level = append(level, math.Log((b0+b3+h1+h2)/4))
	}
	if len(d) < 2 {
		return pairedResult{}, dropped, false
	}
	sigma, disturbed := calmNoise(a, b)
	res.sigma = sigma
	keep := make([]int, 0, len(d))
	for r := range d {
		if !disturbed[r] {
			keep = append(keep, r)
		}
	}
	if len(keep) < 2 {
		keep = keep[:0]
		for r := range d {
			keep = append(keep, r)
		}
	}
	keep = unwild(d, keep, sigma)
	label, nregimes := regimes(level)
	kept, keptLabel := make([]float64, len(keep)), make([]int, len(keep))
	for i, r := range keep {
		kept[i], keptLabel[i] = d[r], label[r]
	}
	n := len(kept)
	mean, _ := meanSD(kept)
	se, df := regimeSpread(kept, keptLabel)
	t := tQuantile(1-(1-confidence)/2, df)
	res.est = record.Paired{
		Ratio:     math.Exp(mean),
		Lo:        math.Exp(mean - t*se),
		Hi:        math.Exp(mean + t*se),
		P:         marginP(mean, se, df, 0),
		PMargin:   marginP(mean, se, df, margin),
		Rounds:    n,
		Dropped:   dropped,
		Disturbed: len(d) - n,
		Bursts:    burstRounds(disturbed),
	}
	if nregimes > 1 {
		res.est.Regimes = nregimes
		res.est.RegimeEffect = df < float64(n-1)
	}
	res.mde = tQuantile(1-(1-confidence)/2, float64(n-1)) * res.sigma / math.Sqrt(float64(n))
	t1 := tQuantile(confidence, df)
	res.upper, res.lower = math.Exp(mean+t1*se), math.Exp(mean-t1*se)
	return res, dropped, true
}

// unwild returns the rounds of keep (indices into d) without the wild rounds of the file comment;
// all of keep when fewer than two would remain.
func unwild(d []float64, keep []int, sigma float64) []int {
	xs := make([]float64, len(keep))
	for i, r := range keep {
		xs[i] = d[r]
	}
	m := Median(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	limit := WildRound * max(sigma, 1.4826*Median(dev), 0.01/WildRound)
	var kept []int
	for i, x := range xs {
		if math.Abs(x-m) <= limit {
			kept = append(kept, keep[i])
		}
	}
	if len(kept) < 2 {
		return keep
	}
	return kept
}

// marginP is the two-sided p-value of the t-test (df degrees of freedom) that a log ratio estimated
// as loc with standard error se lies within margin (a fraction, e.g. 0.01 for ±1%) of no change:
// with δ = log(1+margin) above and −log(1−margin) below, the test of |d| ≤ δ on the side loc lies.
// It is 1 when loc is inside the margin, and with margin 0 the ordinary test of d = 0. Under any
// true d within the margin, P(marginP < α) ≤ α.
func marginP(loc, se, df, margin float64) float64 {
	delta := math.Log1p(margin)
	if loc < 0 {
		delta = -math.Log1p(-margin)
	}
	excess := math.Abs(loc) - delta
	switch {
	case excess <= 0 && margin > 0:
		return 1
	case se == 0 && excess > 0:
		return 0
	case se == 0:
		return 1
	}
	t, v := excess/se, df
	// P(|T| > t) = I_{v/(v+t²)}(v/2, 1/2), the regularised incomplete beta function.
	return mathx.BetaInc(v/(v+t*t), v/2, 0.5)
}

// pairDiffs returns |x_i - x_j| for every pair i < j of xs.
func pairDiffs(xs []float64) []float64 {
	var out []float64
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			out = append(out, math.Abs(xs[i]-xs[j]))
		}
	}
	return out
}

// Median returns the median of xs, 0 for none, without changing xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func sortSlots(s []slotValue) {
	sort.Slice(s, func(i, j int) bool { return s[i].slot < s[j].slot })
}

// meanSD returns the mean and the sample standard deviation (n-1 denominator) of xs, len(xs) >= 2.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// tQuantiles caches tQuantile: the simulations ask for the same few quantiles thousands of times.
var tQuantiles sync.Map

// tQuantile returns the p-quantile of Student's t distribution with df degrees of freedom, found by
// bisection on moremath's t CDF.
func tQuantile(p, df float64) float64 {
	type key struct{ p, df float64 }
	if q, ok := tQuantiles.Load(key{p, df}); ok {
		return q.(float64)
	}
	q := stats.InvCDF(stats.TDist{V: df})(p)
	tQuantiles.Store(key{p, df}, q)
	return q
}
