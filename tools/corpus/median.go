package corpus

import (
	"math"
	"slices"
)

// MedianInterval returns the median of xs and a distribution-free confidence interval for it at the
// given level (e.g. 0.95): the order statistics x(k) and x(n+1−k) for the largest k with
// P(Binomial(n, ½) < k) ≤ (1−level)/2, the interval of the sign test. It assumes only that the xs
// are independent draws from one distribution, so a few rounds disturbed by load move it little.
// With too few values for that level, lo and hi are the extremes.
func MedianInterval(xs []float64, level float64) (median, lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	tail := (1 - level) / 2
	k := 0 // P(B < k+1) = cdf(k) ≤ tail
	for cdf := binomPMF(n, 0); k < n/2 && cdf <= tail; {
		k++
		cdf += binomPMF(n, k)
	}
	// k is now the largest count with P(B ≤ k−1) ≤ tail: the interval is x(k), x(n+1−k), 1-based.
	if k == 0 {
		return median, s[0], s[n-1]
	}
	return median, s[k-1], s[n-k]
}

// binomPMF is P(B = k) for B ~ Binomial(n, ½).
func binomPMF(n, k int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) - float64(n)*math.Ln2)
}
