package corpus

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMedianIntervalRanks(t *testing.T) {
	// The sign test's 95% interval for n = 20 is x(6)..x(15) (P(B ≤ 5) = 0.0207, P(B ≤ 6) =
	// 0.0577), and for n = 10 it is x(2)..x(9) (P(B ≤ 1) = 0.0107, P(B ≤ 2) = 0.0547); values 1..n
	// make ranks visible.
	for _, tc := range []struct{ n, lo, hi int }{{20, 6, 15}, {10, 2, 9}} {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = float64(tc.n - i) // reversed: MedianInterval sorts
		}
		med, lo, hi := MedianInterval(xs, 0.95)
		if lo != float64(tc.lo) || hi != float64(tc.hi) || med != float64(tc.n+1)/2 {
			t.Errorf("n=%d: median %v [%v, %v], want %v [%d, %d]", tc.n, med, lo, hi, float64(tc.n+1)/2, tc.lo, tc.hi)
		}
	}
	if _, lo, hi := MedianInterval([]float64{3, 1, 2}, 0.95); lo != 1 || hi != 3 {
		t.Errorf("n=3: [%v, %v], want the extremes [1, 3]", lo, hi)
	}
}

func TestMedianIntervalCoverage(t *testing.T) {
	// Log ratios of rounds on a loaded machine: mostly N(0.05, 0.02), one in five disturbed by up
	// to +60%. The true median of that mixture is found by a large sample; the 95% interval must
	// cover it in at least 94% of 2,000 runs of 40 rounds (seed fixed).
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func() float64 {
		x := 0.05 + 0.02*rng.NormFloat64()
		if rng.IntN(5) == 0 {
			x += 0.6 * rng.Float64()
		}
		return x
	}
	big := make([]float64, 400_001)
	for i := range big {
		big[i] = draw()
	}
	truth, _, _ := MedianInterval(big, 0.95)
	covered := 0
	const runs = 2000
	for range runs {
		xs := make([]float64, 40)
		for i := range xs {
			xs[i] = draw()
		}
		if _, lo, hi := MedianInterval(xs, 0.95); lo <= truth && truth <= hi {
			covered++
		}
	}
	if share := float64(covered) / runs; share < 0.94 || math.IsNaN(share) {
		t.Errorf("coverage %.3f, want ≥ 0.94 (true median %.4f)", share, truth)
	}
}
