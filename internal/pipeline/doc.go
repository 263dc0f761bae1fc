// Package pipeline runs one comparison: Run takes a config.Config and returns the record.Result
// with its verdict.
//
// It is composed of phases, one file each: export both revisions (gitsrc), locate the package's
// module on each side, build both test binaries (bench), run the package's tests, check the
// differential (differential), measure sizes (sizes), compare machine code (samecode), choose the
// like-for-like benchmark source, and time the benchmarks A–B–B–A (bench, abba). Each phase returns
// its own record; assemble puts the records into one Result, gate.Judge decides its verdict, and
// evidence.Write keeps the evidence in the results directory. One scheduler (scheduler.go) says
// which job (timing, counting, tracing, profiling) runs on which CPU and when: nothing runs beside
// the timed CPU unless a probe measured a valgrind there harmless on this host (neighbour.go).
// Several packages run as one pipeline per package (multipkg.go), and a shard of a job matrix runs
// the part shard.Plan gives it.
package pipeline
