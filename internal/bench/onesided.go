package bench

import (
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// SettledForGate reports whether the gate's question is answered for c, a sec/op comparison of a
// look: its class is settled (slower, faster, unchanged), or it is inconclusive but its one-sided
// bound rules out a slowdown beyond thresholdPct. A budgeted run stops timing a benchmark once it
// is, so that the budget goes to the benchmarks that could still block the merge.
//
// # The gate's one-sided question
//
// The classes are two-sided: slower, faster, unchanged (the interval inside ±threshold) or
// inconclusive. The gate's question is one-sided: "is head slower than base by more than the
// threshold?". A benchmark answers it no when its one-sided bound on the worse side
// (record.Paired.Bound: the upper bound of head/base for costs such as sec/op) lies within the
// threshold, whatever the two-sided class: a speedup whose size is unclear (−4.1% to −0.8%) is
// inconclusive, and rules out every slowdown. Such a benchmark does not block the merge
// (gate.RulesOutWorse, gate.Decide), and a budgeted run stops timing it
// (SettledForGate, at the looks).
//
// The bound spends the same error rate as the two-sided interval, all of it on the side the
// question asks about: exp(mean d + t(confidence, R−1) · s_d / √R), at the level of the interval it
// comes with. In a budgeted run that level is the look's share of 1 − confidence, so, by the union
// bound over the looks, a benchmark whose true change is a slowdown beyond the threshold is let
// through (its bound ends up within it at some look) in at most 1 − confidence (5%) of runs; in
// simulation far fewer (TestSimOneSided: a true 1.5× the threshold blocks in every run). A true
// change of half the threshold or less is still called slower (exit 1) in at most 1% of runs
// (TestSimHalfThreshold): the one-sided rule stops benchmarks, it calls nothing slower.
func SettledForGate(c record.Benchmark, thresholdPct float64) bool {
	return settled(c.Class) || c.Class == record.ClassInconclusive && gate.RulesOutWorse(c, thresholdPct)
}
