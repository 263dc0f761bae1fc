package main

import "math"

// welch accumulates two classes of measurements and gives Welch's t
// statistic for the difference of their means. It keeps, per class, the
// count, mean and sum of squared deviations (Welford's online update), so
// it needs no memory per measurement.
type welch struct {
	n, mean, m2 [2]float64
}

// add records measurement x of class c (0 or 1).
func (w *welch) add(c int, x float64) {
	w.n[c]++
	d := x - w.mean[c]
	w.mean[c] += d / w.n[c]
	w.m2[c] += d * (x - w.mean[c])
}

// variance returns the unbiased sample variance of class c.
func (w *welch) variance(c int) float64 {
	if w.n[c] < 2 {
		return math.NaN()
	}
	return w.m2[c] / (w.n[c] - 1)
}

// t returns Welch's t statistic, (mean0 - mean1) / sqrt(var0/n0 + var1/n1),
// or NaN if a class has fewer than two measurements.
func (w *welch) t() float64 {
	se := math.Sqrt(w.variance(0)/w.n[0] + w.variance(1)/w.n[1])
	return (w.mean[0] - w.mean[1]) / se
}
