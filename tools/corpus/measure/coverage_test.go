package main

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
	"github.com/perfgate/perfgate/tools/corpus"
)

// simulate returns how often judge calls runs consistent, and how often judged runs contain the
// truth, when perfgate's estimate of a true log ratio theta has noise sd sigmaP but claims an
// interval of half-width claim·1.96·sigmaP, and the truth is n rounds of noise sd sigmaT.
func simulate(r *rand.Rand, runs int, theta, sigmaP, claim, sigmaT float64, n int) (consistent, judged, contains float64) {
	var c, j, in int
	for range runs {
		p := theta + sigmaP*r.NormFloat64()
		h := claim * 1.96 * sigmaP
		logs := make([]float64, n)
		for i := range logs {
			logs[i] = theta + sigmaT*r.NormFloat64()
		}
		run := coverageRun{class: record.ClassUnchanged, pct: pctOf(math.Exp(p)), lo: pctOf(math.Exp(p - h)),
			hi: pctOf(math.Exp(p + h))}
		run.judge(math.Exp(p), math.Exp(p-h), math.Exp(p+h), logs, 2)
		if run.consistent {
			c++
		}
		if run.judged {
			j++
			if run.contains {
				in++
			}
		}
	}
	if j == 0 {
		return float64(c) / float64(runs), 0, math.NaN()
	}
	return float64(c) / float64(runs), float64(j) / float64(runs), float64(in) / float64(j)
}

// TestJudgeKnownAnswers: on synthetic runs with a known answer, a calibrated interval is consistent
// with the truth about 95% of the time whatever the truth's precision, and an interval half as wide
// as its noise needs is caught (consistent far less often); a judged run's truth is precise enough
// that a calibrated interval contains its point at least 90% of the time.
func TestJudgeKnownAnswers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const runs = 20000
	for _, tc := range []struct {
		name           string
		sigmaP, sigmaT float64
		n              int
		claim          float64
		lo, hi         float64 // the range consistent must fall in
	}{
		{"calibrated, precise truth", 0.02, 0.02, 40, 1, 0.93, 0.97},
		{"calibrated, noisy truth", 0.01, 0.08, 12, 1, 0.93, 0.98},
		{"calibrated, truth as noisy as the run", 0.02, 0.07, 12, 1, 0.93, 0.97},
		{"twice too narrow", 0.02, 0.02, 40, 0.5, 0.55, 0.80},
	} {
		c, j, in := simulate(r, runs, 0.03, tc.sigmaP, tc.claim, tc.sigmaT, tc.n)
		t.Logf("%s: consistent %.3f, judged %.3f, judged containing %.3f", tc.name, c, j, in)
		if c < tc.lo || c > tc.hi {
			t.Errorf("%s: consistent in %.3f of runs, want %.2f to %.2f", tc.name, c, tc.lo, tc.hi)
		}
		if tc.claim == 1 && j > 0.05 && in < 0.90 {
			t.Errorf("%s: a calibrated interval contains a judged truth in %.3f of runs, want at least 0.90", tc.name, in)
		}
	}
}

// TestTruthChange lists the benchmarks whose retaken truth points another way, and those new to it.
func TestTruthChange(t *testing.T) {
	old := &corpus.Truth{Benches: []corpus.TruthBench{
		{Name: "A", Pct: 3.7, Lo: 0.4, Hi: 7.5}, {Name: "B", Pct: -5, Lo: -6, Hi: -4}}}
	retaken := &corpus.Truth{Benches: []corpus.TruthBench{
		{Name: "A", Pct: 2.1, Lo: -0.2, Hi: 4.1}, {Name: "B", Pct: -5.5, Lo: -6.5, Hi: -4.5},
		{Name: "C", Pct: 1, Lo: 0.5, Hi: 1.5}}}
	got := strings.Join(truthChange("p", old, retaken), "\n")
	want := "| p | A | slower +3.7% [+0.4, +7.5] | unchanged +2.1% [-0.2, +4.1] |\n| p | C | — | slower +1.0% [+0.5, +1.5] |"
	if got != want {
		t.Errorf("truthChange:\n%s\nwant:\n%s", got, want)
	}
}
