package bench

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/mathx"
	"github.com/perfgate/perfgate/internal/changepoint"
)

// RegimeAlpha is the level of the permutation test of a step in the rounds' level (see "Steps and
// bursts" in paired.go).
const RegimeAlpha = 0.01

// RegimeEffectAlpha is the level of the F-test of whether the rounds' log ratios differ between the
// regimes the steps divide. It is low because a regime effect makes the interval as wide as the
// regimes allow, and the F-test, which assumes one spread in every regime, fires more often than
// its level when a step also changes the noise (at 0.01 it cost a run with a step 2 points of power
// to find +3.5%, at 20 rounds); a ratio that really depends on the host's state differs by far
// more.
const RegimeEffectAlpha = 0.001

// BurstScreen is how many pair standard deviations, by the lower quartile of the pairs'
// deviations, a round's A–A or B–B pair may stray from its series' median before the round is kept
// out of the noise floor (see calmNoise).
const BurstScreen = 8

// minRegimeRounds is the fewest rounds the search for steps looks at. With three rounds a segment
// at least, a permutation test of fewer than ten values cannot reach RegimeAlpha: of the C(9,4) =
// 126 ways to place four rounds, two are as extreme as a clean step, 1.6%.
const minRegimeRounds = 10

// regimeBlocks is the most values the search for regimes looks at (see regimes).
const regimeBlocks = 24

// regimePermutations is the number of permutations behind a step's p-value: 1/(199+1) lies well
// below RegimeAlpha, and a series without a step stops after a few of them.
const regimePermutations = 199

// calmNoise returns the noise floor σ of the file comment in paired.go over the calm rounds, and
// which rounds are disturbed by that σ. Shamos' estimator over all rounds breaks down once about
// three rounds in ten are a burst: the burst's pairs then set σ, and no round of the burst stands
// out from it. So the rounds are first screened by a scale that a burst of up to three rounds in
// four does not move, the lower quartile of the deviations |a_r − median a| and |b_r − median b|
// (for normal pairs 0.3186 of their standard deviation √2·σ): a round whose pair lies more than
// BurstScreen such standard deviations out is screened off. When two consecutive rounds are
// screened off (a burst), σ is Shamos' estimator over the rounds that remain; otherwise, over every
// round, as it was. Every round is then judged by σ as before. The screen is wide, and asks for two
// rounds in a row, because a lower quartile of few rounds is itself noisy: on a calm run it almost
// never fires (TestSimRegimes measures how rarely).
func calmNoise(a, b []float64) (sigma float64, disturbed []bool) {
	ma, mb := Median(a), Median(b)
	dev := make([]float64, 0, 2*len(a))
	for r := range a {
		dev = append(dev, math.Abs(a[r]-ma), math.Abs(b[r]-mb))
	}
	pairSD := quantile(dev, 0.25) / 0.3186
	keep := make([]bool, len(a))
	n := 0
	for r := range a {
		keep[r] = max(dev[2*r], dev[2*r+1]) <= max(BurstScreen*pairSD, 0.01)
		if keep[r] {
			n++
		}
	}
	screened := make([]bool, len(a))
	for r := range keep {
		screened[r] = !keep[r]
	}
	if n < 2 || burstRounds(screened) == 0 {
		for r := range keep {
			keep[r] = true
		}
	}
	sigma = shamos(a, b, keep)
	return sigma, pairsDisturbed(a, b, sigma)
}

// quantile returns the q-quantile of xs (linear between order statistics), without changing xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := q * float64(len(s)-1)
	i := int(h)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// shamos is σ of paired.go's file comment over the rounds keep marks.
func shamos(a, b []float64, keep []bool) float64 {
	var ka, kb []float64
	for i, k := range keep {
		if k {
			ka, kb = append(ka, a[i]), append(kb, b[i])
		}
	}
	return 1.0483 * Median(append(pairDiffs(ka), pairDiffs(kb)...)) / math.Sqrt2
}

// pairsDisturbed marks the rounds whose A–A pair a_r or B–B pair b_r lies more than DisturbedRound
// pair standard deviations (and at least 1%) from its series' median.
func pairsDisturbed(a, b []float64, sigma float64) []bool {
	limit := max(DisturbedRound*math.Sqrt2*sigma, 0.01)
	ma, mb := Median(a), Median(b)
	out := make([]bool, len(a))
	for r := range a {
		out[r] = math.Abs(a[r]-ma) > limit || math.Abs(b[r]-mb) > limit
	}
	return out
}

// burstRounds counts the disturbed rounds that have a disturbed neighbour: a burst is two or more
// consecutive rounds whose pairs of equal code stray far beyond the run's typical pair.
func burstRounds(disturbed []bool) int {
	n := 0
	for r, d := range disturbed {
		if d && (r > 0 && disturbed[r-1] || r+1 < len(disturbed) && disturbed[r+1]) {
			n++
		}
	}
	return n
}

// regimes labels each round with the regime it ran in, 0 up: the segments between the change points
// of level, the round's level log(mean of its four runs), found by E-divisive means (package
// changepoint) at RegimeAlpha with segments of at least three rounds. Fewer than minRegimeRounds
// rounds are one regime; more than regimeBlocks rounds are searched in blocks of consecutive
// rounds. The level is both sides', not base's alone: base's level shares base's noise with d_r,
// with opposite signs, so regimes cut where base ran slow would be regimes of low d_r, and the test
// of regimeSpread would find them different (on calm runs it did, in a third of the runs where a
// regime was found by chance); the sum of the four runs and d_r, a difference, are uncorrelated
// when the sides are equally noisy.
func regimes(level []float64) (label []int, n int) {
	label = make([]int, len(level))
	if len(level) < minRegimeRounds {
		return label, 1
	}
	// A long run is searched in blocks of consecutive rounds, their mean level: the search costs
	// the square of its length a permutation (50 ms at 200 rounds, under 1 ms in 24 blocks).
	size := (len(level) + regimeBlocks - 1) / regimeBlocks
	var blocks []float64
	for lo := 0; lo < len(level); lo += size {
		hi := min(lo+size, len(level))
		var sum float64
		for _, x := range level[lo:hi] {
			sum += x
		}
		blocks = append(blocks, sum/float64(hi-lo))
	}
	cps := changepoint.Detect(blocks, changepoint.Config{
		Alpha: RegimeAlpha, Permutations: regimePermutations, MinSize: 3, Seed: 1,
	})
	for _, cp := range cps {
		for r := cp.Index * size; r < len(label); r++ {
			label[r]++
		}
	}
	return label, len(cps) + 1
}

// regimeSpread is the standard error of the mean of the kept log ratios d, and its degrees of
// freedom: the Student t one, s_d/√N with N−1, unless the rounds ran in more than one regime and
// their means differ between regimes beyond what the spread within them explains (the one-way ANOVA
// F-test at RegimeEffectAlpha). Then the regimes are a random effect, d_r = μ + u_g + e_r with u_g
// ~ N(0, τ²) and e_r ~ N(0, σ_e²), and the standard error is that of the mean under this model,
//
//	var(mean d) = τ²·Σ n_g²/N² + σ_e²/N,
//
// with τ² and σ_e² from the ANOVA's mean squares (τ² = (MSB − MSW)/n₀, σ_e² = MSW) and the degrees
// of freedom of that combination by Satterthwaite's rule. With equal regimes it is the t-interval
// over the K regime means, K−1 degrees of freedom: as wide as K rounds allow.
func regimeSpread(d []float64, label []int) (se, df float64) {
	n := float64(len(d))
	mean, sd := meanSD(d)
	se, df = sd/math.Sqrt(n), n-1
	label = mergeSmall(label)
	groups := 0
	for _, g := range label {
		groups = max(groups, g+1)
	}
	sum, cnt := make([]float64, groups), make([]float64, groups)
	for i, x := range d {
		sum[label[i]] += x
		cnt[label[i]]++
	}
	var k float64
	for _, c := range cnt {
		if c > 0 {
			k++
		}
	}
	if k < 2 || n-k < 1 {
		return se, df
	}
	var ssb, ssw, sq float64
	for g, c := range cnt {
		if c > 0 {
			ssb += c * (sum[g]/c - mean) * (sum[g]/c - mean)
			sq += c * c
		}
	}
	for i, x := range d {
		m := sum[label[i]] / cnt[label[i]]
		ssw += (x - m) * (x - m)
	}
	msb, msw := ssb/(k-1), ssw/(n-k)
	if msw == 0 || msb <= msw || fP(msb/msw, k-1, n-k) >= RegimeEffectAlpha {
		return se, df
	}
	n0 := (n - sq/n) / (k - 1)
	c := sq / (n * n)
	wb, ww := c/n0, 1/n-c/n0 // var = wb·MSB + ww·MSW
	v := wb*msb + ww*msw
	if v <= se*se {
		return se, df
	}
	df = v * v / ((wb*msb)*(wb*msb)/(k-1) + (ww*msw)*(ww*msw)/(n-k))
	return math.Sqrt(v), max(1, min(df, n-1))
}

// mergeSmall returns label (non-decreasing: rounds in order) with every regime of fewer than
// three kept rounds joined to the one before it, or the first to the one after. A regime of one
// or two kept rounds is mostly the edge of a burst, whose other rounds were left out: its mean says
// little, and its rounds are noisier than the rest, which the F-test, assuming one spread, would
// take for a difference of means (it did: in a tenth of the runs with a one-sided burst of 20
// rounds, costing them their power).
func mergeSmall(label []int) []int {
	out := slices.Clone(label)
	for {
		// runs of equal labels: [start, end)
		var starts []int
		for i := range out {
			if i == 0 || out[i] != out[i-1] {
				starts = append(starts, i)
			}
		}
		if len(starts) < 2 {
			return out
		}
		merged := false
		for k, lo := range starts {
			hi := len(out)
			if k+1 < len(starts) {
				hi = starts[k+1]
			}
			if hi-lo >= 3 {
				continue
			}
			to := out[max(lo-1, 0)]
			if lo == 0 {
				to = out[hi]
			}
			for i := lo; i < hi; i++ {
				out[i] = to
			}
			merged = true
			break
		}
		if !merged {
			return out
		}
	}
}

// fP is the upper tail P(F > f) of the F distribution with d1 and d2 degrees of freedom.
func fP(f, d1, d2 float64) float64 {
	return mathx.BetaInc(d2/(d2+d1*f), d2/2, d1/2)
}
