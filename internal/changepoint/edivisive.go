// Package changepoint finds the points at which a series of measurements changes level: E-divisive
// means (Matteson and James, "A nonparametric approach for multiple change point analysis of
// multivariate data", JASA 2014), the variant performance CI systems run on per-commit results
// (energy statistic with exponent 1, the best split of a segment, a permutation test of its
// significance, applied recursively).
//
// Data flows one way: Detect takes the series (one value per commit, in commit order) and a Config,
// and returns the change points it found, each with its index, the means of the segments either
// side, the relative change and the permutation p-value. It is pure: the permutations draw from a
// generator seeded by Config.Seed, so the same series gives the same answer.
//
// # The test and its false-alarm rate
//
// For a segment x[0:n) and a split τ the statistic is
//
//	Q(τ) = τ(n−τ)/n · ( 2/(τ(n−τ)) Σ|x_i−y_j| − 1/C(τ,2) Σ|x_i−x_k| − 1/C(n−τ,2) Σ|y_j−y_k| )
//
// with x the values before τ and y those from τ on. The candidate is the τ that maximises Q; its
// p-value is the share of random permutations of the segment whose best split scores at least as
// high (counting the series itself). Under no change, values that are independent and identically
// distributed (noise, outliers included) are exchangeable, so the first test calls a flat series
// changed with probability at most Alpha: that is the false-alarm rate, and TestFlatFalseAlarms
// measures it on simulated series. After a significant split the segments are searched again, and
// the search stops at the first candidate that is not significant.
package changepoint

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Config tunes Detect. The zero value is the default.
type Config struct {
	// Alpha is the significance level of each permutation test: the false-alarm rate on a series
	// without a change. Default 0.005.
	Alpha float64
	// Permutations is the number of random permutations behind each p-value (default 499). The
	// smallest p-value it can give is 1/(Permutations+1), which must be below Alpha.
	Permutations int
	// MinSize is the fewest values a segment may have (default 3, at least 2): a change shows once
	// MinSize values after it are known.
	MinSize int
	// Seed seeds the permutations (default 1).
	Seed uint64
}

// Defaults of Config.
const (
	DefaultAlpha        = 0.005
	DefaultPermutations = 499
	DefaultMinSize      = 3
	DefaultSeed         = 1
)

func (c Config) withDefaults() Config {
	if c.Alpha <= 0 {
		c.Alpha = DefaultAlpha
	}
	if c.Permutations <= 0 {
		c.Permutations = DefaultPermutations
	}
	if c.MinSize <= 0 {
		c.MinSize = DefaultMinSize
	}
	c.MinSize = max(c.MinSize, 2)
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	return c
}

// ChangePoint is one change of level in a series.
type ChangePoint struct {
	// the first index of the new level: values[Index-1] is the last before the change
	Index int
	// mean of the segment that ends at Index (from the previous change point, or the start)
	Before float64
	// mean of the segment that starts at Index (up to the next change point, or the end)
	After  float64
	Change float64 // After/Before − 1: +0.05 is 5% higher; 0 when Before is 0
	P      float64 // the permutation p-value of the split when it was found
	Q      float64 // the split's energy statistic Q (in the series' unit)
}

// Detect returns the change points of xs in index order. A series shorter than 2×MinSize has none.
func Detect(xs []float64, cfg Config) []ChangePoint {
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	type found struct {
		index int
		p, q  float64
	}
	var points []found
	bounds := []int{0, len(xs)} // sorted segment boundaries
	for {
		// The candidate: the best split over all segments.
		best, bestQ, bestSeg := -1, math.Inf(-1), -1
		for s := 0; s+1 < len(bounds); s++ {
			lo, hi := bounds[s], bounds[s+1]
			tau, q := bestSplit(xs[lo:hi], cfg.MinSize, distanceCap(xs[lo:hi]))
			if tau >= 0 && q > bestQ {
				best, bestQ, bestSeg = lo+tau, q, s
			}
		}
		if best < 0 {
			break
		}
		lo, hi := bounds[bestSeg], bounds[bestSeg+1]
		p := permutationP(xs[lo:hi], cfg, rng)
		if p > cfg.Alpha {
			break
		}
		best = refine(xs[lo:hi], best-lo, cfg.MinSize) + lo
		points = append(points, found{best, p, bestQ})
		i, _ := slices.BinarySearch(bounds, best)
		bounds = slices.Insert(bounds, i, best)
	}
	out := make([]ChangePoint, 0, len(points))
	for _, f := range points {
		i, _ := slices.BinarySearch(bounds, f.index)
		before, after := mean(xs[bounds[i-1]:f.index]), mean(xs[f.index:bounds[i+1]])
		cp := ChangePoint{Index: f.index, Before: before, After: after, P: f.p, Q: f.q}
		if before != 0 {
			cp.Change = after/before - 1
		}
		out = append(out, cp)
	}
	slices.SortFunc(out, func(a, b ChangePoint) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// permutationP is the p-value of seg's best split: (1 + the permutations whose best split scores at
// least as high) / (1 + permutations), each permutation cleaned as the series is. It stops early
// once the p-value cannot fall to alpha any more.
func permutationP(seg []float64, cfg Config, rng *rand.Rand) float64 {
	dcap := distanceCap(seg)
	_, q := bestSplit(seg, cfg.MinSize, dcap)
	buf := slices.Clone(seg)
	var sums []float64
	// the p-value exceeds alpha once count+1 exceeds this
	limit := cfg.Alpha * float64(cfg.Permutations+1)
	count := 0
	for i := 0; i < cfg.Permutations; i++ {
		rng.Shuffle(len(buf), func(a, b int) { buf[a], buf[b] = buf[b], buf[a] })
		if _, pq := bestSplitBuf(buf, cfg.MinSize, dcap, &sums); pq >= q*(1-1e-12) {
			count++
			if float64(count+1) > limit {
				return float64(count+1) / float64(i+2) // an early estimate, already above alpha
			}
		}
	}
	return float64(count+1) / float64(cfg.Permutations+1)
}

// capScale is how many robust standard deviations of a segment its distances are capped at (see
// distanceCap).
var capScale = 3.0

// distanceCap is the largest distance between two values of seg that the energy statistic counts:
// capScale robust standard deviations (1.4826 × the median absolute deviation from the median),
// +Inf when that is 0 (most values equal, as in an exact count). Capping keeps one disturbed run
// from weighing more than a level shift: a run 30% slow is as far from the others as a run of
// another level, no farther. It depends only on the values, not their order, so every permutation
// has the same cap and the test stays exact.
func distanceCap(seg []float64) float64 {
	m := median(seg)
	dev := make([]float64, len(seg))
	for i, v := range seg {
		dev[i] = math.Abs(v - m)
	}
	c := capScale * 1.4826 * median(dev)
	if c == 0 {
		return math.Inf(1)
	}
	return c
}

// bestSplit returns the split τ of x (MinSize ≤ τ ≤ len(x)−MinSize) with the highest Q(τ, κ) over
// the ends κ of the segment after it (τ+MinSize ≤ κ ≤ len(x)), and that Q; τ is −1 when x is too
// short. Comparing the values before τ with those of x[τ:κ) rather than with all the rest is
// Matteson and James's way of finding a change that is undone later (a slowdown, then its fix).
// Distances are capped at dcap. With two-dimensional prefix sums of the distances it takes O(n²)
// time.
func bestSplit(x []float64, minSize int, dcap float64) (int, float64) {
	return bestSplitBuf(x, minSize, dcap, nil)
}

// bestSplitBuf is bestSplit with a buffer for the prefix sums, reused when it is large enough.
func bestSplitBuf(x []float64, minSize int, dcap float64, buf *[]float64) (int, float64) {
	n := len(x)
	if n < 2*minSize {
		return -1, 0
	}
	// sum[i*(n+1)+j] = Σ_{a<i, b<j} min(|x_a − x_b|, dcap)
	w := n + 1
	var sum []float64
	if buf != nil && cap(*buf) >= w*w {
		sum = (*buf)[:w*w]
		clear(sum[:w]) // row 0; the other rows' column 0 is cleared below, the rest is overwritten
	} else {
		sum = make([]float64, w*w)
		if buf != nil {
			*buf = sum
		}
	}
	for i := 0; i < n; i++ {
		row := 0.0
		sum[(i+1)*w] = 0
		for j := 0; j < n; j++ {
			row += min(math.Abs(x[i]-x[j]), dcap)
			sum[(i+1)*w+j+1] = sum[i*w+j+1] + row
		}
	}
	rect := func(a0, a1, b0, b1 int) float64 {
		return sum[a1*w+b1] - sum[a0*w+b1] - sum[a1*w+b0] + sum[a0*w+b0]
	}
	best, bestQ := -1, math.Inf(-1)
	for tau := minSize; tau <= n-minSize; tau++ {
		a := float64(tau)
		withinX := rect(0, tau, 0, tau) / 2 / (a * (a - 1) / 2)
		for kappa := tau + minSize; kappa <= n; kappa++ {
			b := float64(kappa - tau)
			between := rect(0, tau, tau, kappa) / (a * b)
			withinY := rect(tau, kappa, tau, kappa) / 2 / (b * (b - 1) / 2)
			q := a * b / (a + b) * (2*between - withinX - withinY)
			if q > bestQ {
				best, bestQ = tau, q
			}
		}
	}
	return best, bestQ
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// refineWindow is how far refine moves a split.
const refineWindow = 3

// outlierScale is how many robust standard deviations from both levels make a value an outlier for
// refine.
const outlierScale = 4

// refine moves the split tau of seg (found by the energy statistic) to where it fits two levels
// best, leaving outliers out. The energy statistic weighs every value by its distance: a disturbed
// run next to a step (a slow run just before a step up) drags the split onto itself. refine takes
// the medians of the two sides as the levels and a robust spread of the values around them, calls a
// value an outlier when it lies more than outlierScale spreads from both levels, and chooses,
// within refineWindow of tau, the split with the least absolute deviation of the other values from
// their side's level. Among equally good splits (they differ only by outliers) it keeps the one
// nearest tau, the earlier on a tie.
func refine(seg []float64, tau, minSize int) int {
	m1, m2 := median(seg[:tau]), median(seg[tau:])
	res := make([]float64, len(seg))
	for i, v := range seg {
		if i < tau {
			res[i] = math.Abs(v - m1)
		} else {
			res[i] = math.Abs(v - m2)
		}
	}
	spread := 1.4826 * median(res)
	inlier := func(v float64) bool {
		return math.Min(math.Abs(v-m1), math.Abs(v-m2)) <= outlierScale*spread
	}
	lo, hi := max(tau-refineWindow, minSize), min(tau+refineWindow, len(seg)-minSize)
	cost := func(t int) float64 {
		c := 0.0
		for i := lo - 1; i <= hi; i++ { // the values whose side depends on the split
			if i < 0 || i >= len(seg) || !inlier(seg[i]) {
				continue
			}
			if i < t {
				c += math.Abs(seg[i] - m1)
			} else {
				c += math.Abs(seg[i] - m2)
			}
		}
		return c
	}
	best, bestCost := tau, cost(tau)
	for d := 1; d <= refineWindow; d++ {
		for _, t := range []int{tau - d, tau + d} {
			if t < lo || t > hi {
				continue
			}
			if c := cost(t); c < bestCost*(1-1e-12) {
				best, bestCost = t, c
			}
		}
	}
	return best
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
