package gate

import "github.com/perfgate/perfgate/record"

// RulesOutWorse reports whether b's paired estimate rules out a change for the worse beyond
// thresholdPct percent: its one-sided bound on the worse side (Paired.Bound) lies within the
// threshold. This is the gate's one-sided question ("slower by more than the threshold?") answered
// no, whatever the two-sided class says; a benchmark without a bound rules out nothing.
func RulesOutWorse(b record.Benchmark, thresholdPct float64) bool {
	p := b.Paired
	if p == nil || !(p.Bound > 0) {
		return false
	}
	if record.HigherIsBetter(b.Unit) {
		return p.Bound >= 1-thresholdPct/100
	}
	return p.Bound <= 1+thresholdPct/100
}
