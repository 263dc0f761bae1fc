package changepoint

import (
	"math/rand/v2"
)

// noise describes simulated per-commit results: each value is the median of a perfgate run,
// scattered around the true level with a coefficient of variation CV (normal), and with probability
// Outliers a disturbed run that reads 10–50% slower (a neighbour's load).
type noise struct {
	CV       float64
	Outliers float64
}

// series returns n simulated values of level 100 that rise by step (0.05: +5%) from index at on (no
// step when step is 0).
func series(rng *rand.Rand, n, at int, step float64, nz noise) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		level := 100.0
		if step != 0 && i >= at {
			level *= 1 + step
		}
		v := level * (1 + nz.CV*rng.NormFloat64())
		if rng.Float64() < nz.Outliers {
			v *= 1.1 + 0.4*rng.Float64()
		}
		xs[i] = v
	}
	return xs
}

// rates is what a simulation found.
type rates struct {
	Runs     int
	Exact    int // the step found at its index (step series), or nothing found (flat series)
	Near     int // found within one index of the truth
	Alarms   int // series with at least one change point
	Spurious int // step series with a change point more than one index away from the step
}

// simulate runs Detect on runs series of length n with a step of step at a random index in the
// middle half (flat series when step is 0), seeded by seed.
func simulate(seed uint64, runs, n int, step float64, nz noise, cfg Config) rates {
	rng := newRand(seed)
	var r rates
	for k := 0; k < runs; k++ {
		at := n/4 + rng.IntN(n/2+1)
		xs := series(rng, n, at, step, nz)
		c := cfg
		c.Seed = uint64(k + 1)
		cps := Detect(xs, c)
		r.Runs++
		if len(cps) > 0 {
			r.Alarms++
		}
		if step == 0 {
			continue
		}
		exact, near, spurious := false, false, false
		for _, cp := range cps {
			switch d := cp.Index - at; {
			case d == 0:
				exact, near = true, true
			case d == 1 || d == -1:
				near = true
			default:
				spurious = true
			}
		}
		if exact {
			r.Exact++
		}
		if near {
			r.Near++
		}
		if spurious {
			r.Spurious++
		}
	}
	return r
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 42)) }
