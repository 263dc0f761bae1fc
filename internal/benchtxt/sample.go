package benchtxt

import "github.com/perfgate/perfgate/record"

// Value is one measurement of a benchmark result line, as in the Go benchmark format: "1234 ns/op"
// is Value{Value: 1.234e-6, Unit: "sec/op"} after benchfmt's unit normalisation.
type Value struct {
	Value float64
	Unit  string // "sec/op", "B/s", "B/op", "allocs/op", or a custom unit
}

// Sample is one benchmark result from one child process: a single line of benchmark output, the
// fastest of the run's sub-runs (SubRuns), with where in the A–B–B–A schedule it was taken.
type Sample struct {
	// without the "Benchmark" prefix and the -N suffix, e.g. "Encrypt/des/single"
	Name    string
	Side    record.Side // base or head
	Round   int         // 0-based round of the schedule
	Slot    int         // 0..3: the position in the round's A B B A
	Iters   int         // the iteration count of the sub-run (the fixed -test.benchtime=Nx)
	Values  []Value     // the measurements, sec/op first
	PeakRSS int64       // the child's peak resident set size in bytes, 0 when unknown
	// Process is what the run's process said about its steady state, nil when unknown. It is
	// evidence, never compared: bench.txt carries it (UnitFaults, UnitGCs), the statistics do not.
	Process *Process
}

// Process is one run's evidence that it measured the steady state: its process's minor page
// faults and garbage collections, per op over every iteration the process ran (the discarded
// warm-up sub-run and the testing package's b.N = 1 calls included, start-up and set-up spread
// over them). A process that still touches fresh pages or grows its heap in its timed sub-runs
// measures first-touch page faults and heap growth, not the code (on a VM whose host reclaims
// guest memory a first touch can cost a VM exit).
type Process struct {
	Faults float64 // minor page faults per op (the child's ru_minflt)
	// collections the runtime started on its own per op (GODEBUG=gctrace=1, the testing package's
	// forced ones between sub-runs left out); -1 when unknown
	GCs float64
	// CPUShare is the process's CPU time (user and system) over its wall time, from its start to
	// its exit: near 1 when it had its CPU to itself, lower when it waited for it, time-shared with
	// other work (then a long call of the benchmark is timed with the waits in it); 0 when unknown.
	CPUShare float64
}

// Get returns the value of unit in s, and whether it is present.
func (s Sample) Get(unit string) (float64, bool) {
	for _, v := range s.Values {
		if v.Unit == unit {
			return v.Value, true
		}
	}
	return 0, false
}

// SecFirst returns vs with sec/op moved to the front, the order Sample.Values promises.
func SecFirst(vs []Value) []Value {
	out := make([]Value, 0, len(vs))
	for _, v := range vs {
		if v.Unit == "sec/op" {
			out = append(out, v)
		}
	}
	for _, v := range vs {
		if v.Unit != "sec/op" {
			out = append(out, v)
		}
	}
	return out
}
