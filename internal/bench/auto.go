package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// AutoOptions configures CombineLanes.
type AutoOptions struct {
	// ThresholdPct is the time threshold in percent, as StatsOptions.ThresholdPct.
	ThresholdPct float64
	// Hidden lists the CPU features the host has and valgrind hides (e.g. "avx512f", "sha"); with
	// any, the counts settle nothing.
	Hidden []string
}

// CombineLanes sets the class of every sec/op comparison of cs that has an instructions/op
// comparison of the same benchmark (and package) by the rule in the file comment, and the
// MetricNote of both rows where the lanes disagree. It changes cs in place; comparisons without a
// partner keep their class.
//
// # One class from two lanes: metric auto
//
// With metric auto both lanes run: the A–B–B–A timing lane (sec/op) and the instruction-count lane
// (instructions/op under callgrind). CombineLanes gives every benchmark one class, its sec/op
// row's, by this rule:
//
//  1. A conclusive time class (slower, faster, unchanged) stands. Time is what a user feels, and
//     the count can point the wrong way: an inlining change ran 6% fewer instructions at a lower
//     IPC and 9.5% more time, and real speedups of 6% to 45% counted 0.5–0.8% more instructions. So
//     no count ever overturns a time class.
//  2. An inconclusive time class becomes unchanged when the counts are equal: the instruction
//     counts of base and head agree to the lane's resolution (2·RepeatTolerance, 0.2%), B/op and
//     allocs/op are unchanged, the exact lane is trusted for the benchmark (see below), and the
//     time interval still reaches into the ±threshold band (a time interval wholly beyond the band
//     is evidence of a change the count does not see). The same instructions doing the same
//     allocations is the same work; what is left is layout and the machine, which at a 2% threshold
//     is noise: the demo's KeySetup runs 1–2% slower from layout alone, with identical counts.
//  3. An inconclusive time class becomes slower (faster) when both lanes point that way: the
//     instruction count moved beyond its threshold in that direction, and the time's paired 95%
//     interval lies wholly beyond half the time threshold on the same side. The time lane alone
//     leaves such a benchmark inconclusive when its test, corrected for every look of a budgeted
//     run and every benchmark, is not significant; here the exact count says the work changed, and
//     the time says which way: the count alone never gives the direction.
//  4. Otherwise the time class stands, inconclusive included. Counts that moved never settle a
//     direction by themselves: a change in the count says the work changed, not which way the time
//     went.
//
// A benchmark the lane did not count (record.Benchmark.Uncounted: its counts did not repeat, its
// timer stops inside its loop, …) is judged by wall time alone: its time class stands, and both
// rows say why.
//
// Every disagreement is shown in the sec/op row's MetricNote (and the instructions/op row's): the
// two numbers, what their combination means and which lane gates, "instructions −6.1%, time +9.5%:
// fewer instructions at a lower IPC; time gates: a settled time class stands, whatever the count".
//
// The exact lane is not trusted for a benchmark when the code may take another path under valgrind
// than on the host: valgrind 3.19 hides CPU features the host has (AVX-512, SHA, VAES and more), so
// code that dispatches on golang.org/x/sys/cpu or internal/cpu runs its fallback under callgrind.
// AutoOptions.Hidden names such features; with any, no count settles anything and the note says
// which features were hidden.
func CombineLanes(cs []record.Benchmark, opt AutoOptions) {
	type key struct{ pkg, name, unit string }
	at := map[key]int{}
	for i, c := range cs {
		at[key{c.Package, c.Name, c.Unit}] = i
	}
	moved := allocsMoved(cs)
	for i := range cs {
		t := &cs[i]
		if t.Unit != record.UnitTime {
			continue
		}
		j, ok := at[key{t.Package, t.Name, record.UnitInstructions}]
		if !ok {
			continue
		}
		in := &cs[j]
		if in.Uncounted != "" {
			// No count to settle anything with: the time class stands, and both rows say why.
			t.Uncounted = in.Uncounted
			t.MetricNote = "judged by wall time alone; instructions " + in.Note
			in.MetricNote = "judged by wall time alone" // its own Note says why it was not counted
			continue
		}
		note := laneNote(*t, *in, opt)
		cl := record.Class("")
		if len(opt.Hidden) == 0 {
			cl = CountClass(*t, *in, !moved[record.Qualified(t.Package, t.Name)], opt.ThresholdPct)
		}
		switch cl {
		case record.ClassUnchanged:
			t.Class = record.ClassUnchanged
			// "interval … exceeds ±2%" no longer explains the class
			t.Note = classifierFree(t.Note, t.Warnings)
			note = fmt.Sprintf("time inconclusive (%+.1f%% to %+.1f%%), instructions/op and allocations equal: "+
				"unchanged by the instruction count", 100*(t.Paired.Lo-1), 100*(t.Paired.Hi-1))
		case record.ClassSlower, record.ClassFaster:
			t.Class = cl
			t.Note = classifierFree(t.Note, t.Warnings)
			note = fmt.Sprintf("time %+.1f%% to %+.1f%%, beyond half the threshold, but not significant after the "+
				"corrections for looks and benchmarks; instructions %+.1f%% the same way: %s by both lanes",
				100*(t.Paired.Lo-1), 100*(t.Paired.Hi-1), 100*(in.Head.Center/in.Base.Center-1), cl)
		}
		if note != "" && cl == "" {
			note += "; " + gatesNote(*t, len(opt.Hidden) > 0)
		}
		t.MetricNote, in.MetricNote = note, note
	}
}

// gatesNote says which lane gates a benchmark whose lanes disagree and that no count settled (rule
// 1 or 4), and why, for the end of its MetricNote.
func gatesNote(t record.Benchmark, hidden bool) string {
	switch {
	case hidden:
		return "time gates alone"
	case t.Class == record.ClassInconclusive:
		return "time gates: the count alone never settles which way the time went"
	}
	return "time gates: a settled time class stands, whatever the count"
}

// CountClass returns the class rules 2 and 3 give the time row t by the instruction counts in,
// given whether its allocations are unchanged (sameAllocs): unchanged for equal counts and
// allocations with an interval that reaches into the ±thresholdPct band, slower or faster when the
// count moved that way and the interval lies wholly beyond half the threshold on the same side, and
// "" when t is not inconclusive or neither rule applies. The caller decides whether the exact lane
// may be trusted (AutoOptions.Hidden). The budgeted run's looks stop benchmarks by the same test
// (stager.settleByCounts).
func CountClass(t, in record.Benchmark, sameAllocs bool, thresholdPct float64) record.Class {
	if t.Class != record.ClassInconclusive {
		return ""
	}
	if EqualCounts(in) {
		if sameAllocs && reachesBand(t, thresholdPct/100) {
			return record.ClassUnchanged
		}
		return ""
	}
	return agreeing(t, in, thresholdPct/100)
}

// allocsMoved names (record.Qualified) the benchmarks of cs whose B/op or allocs/op is not
// unchanged.
func allocsMoved(cs []record.Benchmark) map[string]bool {
	moved := map[string]bool{}
	for _, c := range cs {
		if (c.Unit == "B/op" || c.Unit == "allocs/op") && c.Class != record.ClassUnchanged {
			moved[record.Qualified(c.Package, c.Name)] = true
		}
	}
	return moved
}

// agreeing returns the class both lanes point to when they agree on a direction: the instruction
// count moved beyond its threshold (slower or faster) and the time's paired 95% interval lies
// wholly beyond half the time threshold on the same side. It returns "" otherwise. The time lane
// alone would leave such a benchmark inconclusive when its test, corrected for every look and
// benchmark, is not significant; the exact count says the work changed, and the interval says which
// way the time went.
func agreeing(t, in record.Benchmark, threshold float64) record.Class {
	p := t.Paired
	if p == nil || in.Class == record.ClassFailed || in.Uncounted != "" || !(in.Base.Center > 0) {
		return ""
	}
	switch {
	case in.Class == record.ClassSlower && p.Lo > 1+threshold/2:
		return record.ClassSlower
	case in.Class == record.ClassFaster && p.Hi < 1-threshold/2:
		return record.ClassFaster
	}
	return ""
}

// EqualCounts reports whether an instructions/op comparison found the same count on both sides, to
// the lane's resolution.
func EqualCounts(in record.Benchmark) bool {
	if in.Class == record.ClassFailed || in.Uncounted != "" || !(in.Base.Center > 0) {
		return false
	}
	return math.Abs(in.Head.Center/in.Base.Center-1) <= 2*RepeatTolerance
}

// reachesBand reports whether the time interval of t overlaps 1 ± threshold.
func reachesBand(t record.Benchmark, threshold float64) bool {
	p := t.Paired
	return p != nil && p.Lo <= 1+threshold && p.Hi >= 1-threshold
}

// laneNote words how the two lanes' numbers relate, "" when there is nothing to say (they agree, or
// a lane has nothing to offer).
func laneNote(t, in record.Benchmark, opt AutoOptions) string {
	if len(opt.Hidden) > 0 && in.Class != record.ClassFailed {
		return fmt.Sprintf("valgrind hides CPU features this machine has (%s): the code may take another path "+
			"under callgrind, so instructions/op settle nothing", strings.Join(opt.Hidden, ", "))
	}
	if t.Class == record.ClassFailed || in.Class == record.ClassFailed || t.Paired == nil || !(in.Base.Center > 0) {
		return ""
	}
	dt := 100 * (t.Paired.Ratio - 1)
	di := 100 * (in.Head.Center/in.Base.Center - 1)
	moved := func(c record.Class) bool { return c == record.ClassSlower || c == record.ClassFaster }
	switch {
	case moved(t.Class) && moved(in.Class) && (dt > 0) != (di > 0):
		if di < 0 {
			return fmt.Sprintf("instructions %+.1f%%, time %+.1f%%: fewer instructions at a lower IPC", di, dt)
		}
		return fmt.Sprintf("instructions %+.1f%%, time %+.1f%%: more instructions at a higher IPC", di, dt)
	case moved(t.Class) && EqualCounts(in):
		return fmt.Sprintf("instructions equal, time %+.1f%%: the same instructions run %s (layout, caches, "+
			"or work the count leaves out)", dt, t.Class)
	case t.Class == record.ClassInconclusive && moved(in.Class):
		return fmt.Sprintf("instructions %+.1f%%, time inconclusive (%+.1f%% to %+.1f%%): the work changed, "+
			"which way the time went is not known", di, 100*(t.Paired.Lo-1), 100*(t.Paired.Hi-1))
	}
	return MetricNote(t, in, "")
}
