package record

// Class is the verdict on one benchmark in one unit.
type Class string

// The classes.
const (
	// significant after Holm correction and worse than the threshold
	ClassSlower Class = "slower"
	// significant after Holm correction and better than the threshold
	ClassFaster       Class = "faster"
	ClassUnchanged    Class = "unchanged"    // the paired interval lies inside ±threshold
	ClassInconclusive Class = "inconclusive" // neither: the interval is too wide to tell
	// no samples on a side, or fewer than two complete rounds
	ClassFailed Class = "failed"
)

// Benchmark compares base and head for one benchmark in one unit. Package bench computes it; only
// Acknowledged is set later, from the Verdict.
type Benchmark struct {
	// without the "Benchmark" prefix and the -N suffix, e.g. "Encrypt/des/single"
	Name string  `json:"name"`
	Unit string  `json:"unit"` // tidied by benchunit: "sec/op", "B/s", "B/op", "allocs/op", …
	Base Summary `json:"base"`
	Head Summary `json:"head"`
	// (head center / base center - 1) × 100; 0 when base's center is 0 or a side is empty
	DeltaPct float64 `json:"delta_pct"`
	// benchmath's p-value: Mann–Whitney U, 0 for exact units, 1 when not computable
	P float64 `json:"p"`
	// PHolm is the paired test's p-value that the change lies within half the threshold
	// (Paired.PMargin) after Holm correction across the benchmarks of this unit; 0 for exact
	// changes, 1 when unknown. In a run with a time budget it is Bonferroni-corrected over the
	// benchmarks and the looks instead (the p-value divided by the share of alpha its last look
	// spends, times the benchmarks), so that PHolm < alpha stays the test.
	PHolm float64 `json:"p_holm"`
	// nil when fewer than two complete rounds or a value is not positive
	Paired *Paired `json:"paired,omitempty"`
	// single-run noise from the A–A and B–B pairs: 100 × their log standard deviation
	NoisePct float64 `json:"noise_pct"`
	MDEPct   float64 `json:"mde_pct"` // smallest effect this run could detect, in percent
	// decided as an exact unit (allocs/op, B/op), without statistics
	Exact bool `json:"exact,omitempty"`
	// A–B–B–A rounds timed (with a budget, settled benchmarks stop early)
	Rounds int   `json:"rounds"`
	Class  Class `json:"class"`
	// SameCode is true when package samecode found that the benchmark reaches the same machine code
	// on both sides. Such a benchmark is unchanged without timing (Rounds 0, no samples, one row
	// per top-level benchmark), unless the configuration times it anyway: then its timed class
	// stands.
	SameCode bool `json:"same_code"`
	// a short reason for failed, inconclusive and exact classes
	Note string `json:"note,omitempty"`
	// Warnings are benchmath's warnings about the summaries and the comparison, e.g. too few
	// samples.
	Warnings []string `json:"warnings,omitempty"`
	// slower, but the gate let it pass (Verdict.Acknowledged says why)
	Acknowledged bool `json:"acknowledged,omitempty"`
	// RuledOut is set by the gate on an inconclusive row of a gating unit whose one-sided bound
	// (Paired.Bound) rules out a change for the worse beyond the threshold: the two-sided class
	// stays inconclusive, but the row does not block the merge.
	RuledOut bool `json:"ruled_out,omitempty"`
	// MetricNote, with metric "both", says how the time and instruction-count lanes disagree about
	// this benchmark (bench.MetricNote); set on the benchmark's sec/op and instructions/op rows, ""
	// when they agree.
	MetricNote string `json:"metric_note,omitempty"`
	// Uncounted, on a benchmark's instructions/op row (and, under metric auto, its sec/op row),
	// says why the instruction-count lane has no count of it that may settle anything: its counts
	// did not repeat, its timer is stopped inside its loop, callgrind lost track of its timer, or
	// counting it did not fit the lane's budget. Such a row is inconclusive, its Note says how (by
	// how much the counts differed, …); under metric auto the benchmark is judged by wall time
	// alone. "" when it was counted.
	Uncounted Uncounted `json:"uncounted,omitempty"`
	// Package is the gated package the benchmark belongs to, as given ("./cipher/des"); set when a
	// comparison gates several packages or runs as shards, "" otherwise (Result.Package then names
	// it).
	Package string `json:"package,omitempty"`
	// Tested says the paired p-value took part in the Holm correction, so that results combined
	// across packages or shards are corrected again over the union.
	Tested bool `json:"tested,omitempty"`
	// PFamily is PHolm as its own package's run corrected it, kept when packages are combined after
	// a staged run (alpha spending), whose correction perfgate then widens over the packages
	// (Bonferroni).
	PFamily float64 `json:"p_family,omitempty"`
}

// Summary is benchstat's summary of one side's values.
type Summary struct {
	// the median (or the mode for an exact unit), in the benchmark's unit
	Center float64 `json:"center"`
	// lower end of the confidence interval of Center; 0, 0 when too few samples
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"` // upper end
	N  int     `json:"n"`  // number of values
}

// Paired is the paired A–B–B–A estimate of head/base: a ratio, its interval, and the rounds behind
// it.
type Paired struct {
	Ratio float64 `json:"ratio"` // exp(mean d_r): the geometric mean over rounds of head/base
	Lo    float64 `json:"lo"`    // the t-interval of Ratio
	Hi    float64 `json:"hi"`    //
	// two-sided p-value of the t-test of d_r = 0, before Holm correction
	P float64 `json:"p"`
	// PMargin is the p-value that gates: the test that the change lies within half the threshold,
	// before Holm correction (package bench: a change that small is never called slower or faster).
	PMargin float64 `json:"p_margin,omitempty"`
	// Bound is the one-sided confidence bound of Ratio on the worse side of the unit — the upper
	// one for costs such as sec/op, the lower one for rates such as B/s — at the interval's level,
	// with all of its error on that side: the largest change for the worse that the data do not
	// rule out. 0 when not computed.
	Bound   float64 `json:"bound,omitempty"`
	Rounds  int     `json:"rounds"`  // complete, undisturbed rounds used
	Dropped int     `json:"dropped"` // rounds present but incomplete, not used
	// complete rounds left out because a run in them was disturbed, or the round ran wild
	Disturbed int `json:"disturbed"`
	// Bursts counts the complete rounds that were part of a burst: two or more consecutive rounds
	// whose A–A or B–B pair strayed far beyond the run's typical pair. They are among Disturbed,
	// left out. 0 when there was none.
	Bursts int `json:"bursts,omitempty"`
	// Regimes is the number of levels the run's base timings settled at, when the host's state
	// changed mid-run (a step in the per-round base level: a neighbour starting, memory reclaimed);
	// 0 when there was one.
	Regimes int `json:"regimes,omitempty"`
	// RegimeEffect says that the rounds' log ratios differed between the Regimes beyond their
	// spread within them, and that the interval treats the regime as a random effect: it is as wide
	// as the regimes, not the rounds, allow.
	RegimeEffect bool `json:"regime_effect,omitempty"`
}

// FailureKind says how a benchmark run failed.
type FailureKind string

// The failure kinds.
const (
	FailurePanic   FailureKind = "panic"   // the benchmark panicked
	FailureTimeout FailureKind = "timeout" // killed after printing nothing for the timeout
	FailureExit    FailureKind = "exit"    // exited non-zero, or printed too much
	// exited cleanly without a result line (skipped, or not there)
	FailureNoResult FailureKind = "no-result"
	// FailureRemoved is a base benchmark that head does not have (removed or renamed). One removed
	// benchmark does not fail the gate; a head without any of base's benchmarks does, since nothing
	// could be compared.
	FailureRemoved FailureKind = "removed"
	// FailureUnrepeatable is two instruction counts of one binary that differ by more than the
	// lane's tolerance: a failure of the instruction-count lane, not of head (the lane that cannot
	// count exactly checked nothing).
	FailureUnrepeatable FailureKind = "unrepeatable"
)

// Failure is a benchmark run that produced no result.
type Failure struct {
	Name  string `json:"name"` // the benchmark (pattern) that was run
	Side  Side   `json:"side"`
	Round int    `json:"round"` // 1-based round of the schedule; 0 for calibration
	// 0..3: the position in the round's A B B A; -1 for calibration
	Slot int         `json:"slot"`
	Kind FailureKind `json:"kind"`
	// the panic message or the tail of its output (untrusted text)
	Message string `json:"message"`
	Package string `json:"package,omitempty"` // as Benchmark.Package
	// Under names the measuring tool the run was under ("valgrind"); "" for a native run. A failure
	// under a tool is that lane's, never the code's: only a native run's failure is a finding
	// (gate).
	Under string `json:"under,omitempty"`
}
