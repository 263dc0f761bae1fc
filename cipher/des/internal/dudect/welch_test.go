package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWelchKnown checks t on a small hand-computed example: class 0 is
// 1, 2, 3, 4, 5 (mean 3, variance 2.5), class 1 is 2, 4, 6 (mean 4,
// variance 4), so t = (3-4)/sqrt(2.5/5 + 4/3) = -0.738548946...
func TestWelchKnown(t *testing.T) {
	var w welch
	for _, x := range []float64{1, 2, 3, 4, 5} {
		w.add(0, x)
	}
	for _, x := range []float64{2, 4, 6} {
		w.add(1, x)
	}
	want := -1 / math.Sqrt(2.5/5+4.0/3)
	if got := w.t(); math.Abs(got-want) > 1e-12 {
		t.Errorf("t = %.15f, want %.15f", got, want)
	}
	if got := w.variance(1); math.Abs(got-4) > 1e-12 {
		t.Errorf("variance = %v, want 4", got)
	}
}

// TestWelchSynthetic checks t on large synthetic samples with known answers:
// two samples of one normal distribution stay below the 4.5 threshold, and
// a shift of 0.1 standard deviations over 200,000 samples a class gives
// t near -0.1/sqrt(2/200000) = -31.6.
func TestWelchSynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 200000
	var same, shifted welch
	for range n {
		same.add(0, 100+rng.NormFloat64())
		same.add(1, 100+rng.NormFloat64())
		shifted.add(0, 100+rng.NormFloat64())
		shifted.add(1, 100.1+rng.NormFloat64())
	}
	if got := same.t(); math.Abs(got) > 4.5 {
		t.Errorf("same distribution: t = %.2f, want |t| < 4.5", got)
	}
	if got, want := shifted.t(), -0.1/math.Sqrt(2.0/n); math.Abs(got-want) > 4.5 {
		t.Errorf("shifted distribution: t = %.2f, want about %.2f", got, want)
	}
}

func TestWelchTooFew(t *testing.T) {
	var w welch
	w.add(0, 1)
	w.add(1, 2)
	if !math.IsNaN(w.t()) {
		t.Errorf("t with one measurement a class = %v, want NaN", w.t())
	}
}
