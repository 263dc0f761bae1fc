package record

import (
	"sort"
	"strings"
)

// UnitTime is the time unit: the unit the noise floor, the budget and the report's headline are
// about. Which units gate the merge is the gate's policy.
const UnitTime = "sec/op"

// UnitInstructions is the unit of the instruction-count lane, which gates under metric instructions
// or both.
const UnitInstructions = "instructions/op"

// UnitEstCycles is the estimated cycles per op of the instruction-count lane with the cache
// simulation on: instructions and data accesses weighted by where the cache simulation found them
// (L1 1, last level 5, memory 35). It is reported, and gates only when gate-units names it.
const UnitEstCycles = "est-cycles/op"

// UnitInstructionsPerByte and UnitEstCyclesPerByte are instructions/op and est-cycles/op per byte
// the benchmark processes (b.SetBytes): the cipher world's cycles per byte, from the exact lane.
// They are reported, and gate only when gate-units names them.
const (
	UnitInstructionsPerByte = "instructions/B"
	UnitEstCyclesPerByte    = "est-cycles/B"
)

// CountUnit reports whether unit is one of the instruction-count lane's: exact counts and their
// estimates.
func CountUnit(unit string) bool {
	switch unit {
	case UnitInstructions, UnitEstCycles, UnitInstructionsPerByte, UnitEstCyclesPerByte:
		return true
	}
	return false
}

// HigherIsBetter reports whether unit is a rate (B/s, ops/s), where a larger head value is an
// improvement.
func HigherIsBetter(unit string) bool {
	return strings.HasSuffix(unit, "/s")
}

// Qualified is a benchmark's name as messages give it: the name, followed by its package in
// parentheses when the comparison gates several ("Encrypt/des/single (./cipher/des)"), so that
// names never collide.
func Qualified(pkg, name string) string {
	if pkg == "" {
		return name
	}
	return name + " (" + pkg + ")"
}

// SortBenchmarks orders benchmarks by name, then sec/op before other units.
func SortBenchmarks(bs []Benchmark) {
	sort.SliceStable(bs, func(i, j int) bool {
		if bs[i].Name != bs[j].Name {
			return bs[i].Name < bs[j].Name
		}
		return UnitRank(bs[i].Unit) < UnitRank(bs[j].Unit)
	})
}

// UnitRank is the one order of units in every table: sec/op, instructions/op, est-cycles/op,
// instructions/B, est-cycles/B, B/s, B/op, allocs/op, then the rest.
func UnitRank(u string) int {
	switch u {
	case "sec/op":
		return 0
	case UnitInstructions:
		return 1
	case UnitEstCycles:
		return 2
	case UnitInstructionsPerByte:
		return 3
	case UnitEstCyclesPerByte:
		return 4
	case "B/s":
		return 5
	case "B/op":
		return 6
	case "allocs/op":
		return 7
	}
	return 8
}

// The metrics: which lane measures and gates.
const (
	MetricTime = "time" // wall time, sec/op: the A–B–B–A timing lane
	// instructions/op under valgrind: the instruction-count lane
	MetricInstructions = "instructions"
	MetricBoth         = "both" // both lanes run, and each gates
	// MetricAuto: both lanes run and give one class per benchmark (bench.CombineLanes), its sec/op
	// row's, which gates; without valgrind it falls back to time.
	MetricAuto = "auto"
)

// The benchmark source: which test files each side's timed binary was built with
// (Method.BenchSource).
const (
	// BenchSourceHead: both sides ran head's benchmark code. Base's timed binary is base's package
	// built with head's _test.go files (or the test files are the same on both sides).
	BenchSourceHead = "head"
	// BenchSourceEach: each side ran its own benchmark code, because head's test files do not
	// compile against base's package. Method.BenchChanged names the benchmarks whose code differs.
	BenchSourceEach = "each"
)

// NoteSameCode is the Note of a benchmark that is unchanged because its machine code is the same on
// both sides.
const NoteSameCode = "same machine code"

// Uncounted is why the instruction-count lane has no count of a benchmark that may settle anything
// (Benchmark.Uncounted). It is a failure of neither side: the benchmark is judged by wall time
// alone under metric auto, and is inconclusive under metric instructions.
type Uncounted string

// The reasons a benchmark is not counted.
const (
	// UncountedUnrepeatable: two counts of one binary differ by more than the lane's tolerance
	// (time-seeded randomness, I/O, the runtime's work moving with wall-clock events).
	UncountedUnrepeatable Uncounted = "unrepeatable"
	// UncountedTimerInLoop: the benchmark stops and starts its timer inside its loop, which
	// callgrind cannot follow reliably and which would write a dump per iteration.
	UncountedTimerInLoop Uncounted = "timer-in-loop"
	// UncountedLostTimer: callgrind lost track of the benchmark timer in every run it was given.
	UncountedLostTimer Uncounted = "lost-timer"
	// UncountedBudget: counting it under callgrind would not fit in the lane's share of the time
	// budget.
	UncountedBudget Uncounted = "budget"
	// UncountedTool: valgrind failed while counting it (a crash, a signal, a hang, output it could
	// not write), and the benchmark ran cleanly without valgrind: the tool's failure, not the
	// code's.
	UncountedTool Uncounted = "tool-failure"
)

// Exit codes of the command line and the Action.
const (
	ExitPass      = 0 // the gate passed
	ExitFail      = 1 // the gate failed
	ExitUsage     = 2 // usage or configuration error
	ExitCannotRun = 3 // could not run: base does not build, git error, …
	// ExitInconclusive: the gate could not tell whether gating benchmarks changed
	// (StatusInconclusive), and on-inconclusive is fail.
	ExitInconclusive = 4
)
