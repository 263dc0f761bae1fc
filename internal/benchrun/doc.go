// Package benchrun runs the Go benchmarks of one package at two revisions, base and head: it is the
// runner half of benchmarking, and package bench is its data half (samples, bench.txt, statistics,
// the lanes' rules), which it fills. Package gobuild builds the test binaries it runs, benchout
// parses what they print, callgrind reads what valgrind counts in them, and progress reports the
// run.
//
// Data flows through it in these steps:
//
//  1. gobuild.Build compiles each side's test binary with go test -c, with identical flags and
//     environment; gobuild.Inspect and gobuild.ListPackages ask go list about the gated packages.
//  2. RunABBA (run.go, list.go) measures them. It lists the base binary's top-level benchmarks
//     (List), runs each once on base at the target benchmark time with -test.v to discover its leaf
//     benchmarks (sub-benchmarks included, since -test.list names top-level ones only) and their
//     iteration counts, keeps the leaves that RunConfig.Filter matches, and then runs the A–B–B–A
//     schedule of package abba: R rounds, in each of which every leaf runs base, head, head, base,
//     each run a fresh child process pinned to one CPU, running exactly that leaf
//     (benchout.Pattern: -test.bench=^BenchmarkEncrypt$/^des$/^single$) for its fixed iteration
//     count (-test.benchtime=Nx, the same on both sides) with -test.benchmem and -test.cpu=1, split
//     into benchtxt.SubRuns sub-runs (-test.count) after one more that warms the process up and is
//     discarded (warmup.go), the fastest of them becoming the slot's benchtxt.Sample (list.go),
//     with the process's page faults and collections per op (GODEBUG=gctrace=1) as the evidence of
//     its steady state (benchtxt.Process); a panic, a non-zero exit, a missing result line or a run
//     silent for longer than the timeout becomes a Failure of that side, and the run goes on
//     without that benchmark on that side. Every sample is written to bench.txt (benchtxt.BenchTxt)
//     as it comes. With a budget, rounds run in stages (sequential.go): a bench.Stager decides
//     after each stage which benchmarks are settled and stop being timed.
//  3. The instruction-count lane (instructions.go, reading package callgrind) replaces step 2 when
//     the metric is instructions: RunInstructions runs the same schedule over groups of leaves, one
//     valgrind callgrind process per group at N and one at 2N iterations per slot (GOMAXPROCS=1,
//     GODEBUG=asyncpreemptoff=1, GOGC=off). callgrind zeroes its counts when the testing package
//     resets or starts a benchmark timer and writes them out when it stops one or prints a result,
//     so each leaf's count is of what its timer measured, without start-up and set-up; the reader
//     attributes each instruction by address to a function of the binary's symbol table and counts
//     the code under test without the Go runtime's and the testing package's machinery.
//     instructions/op = (count at 2N − count at N) / N. Two counts of one binary that differ by
//     more than bench.RepeatTolerance are a failure of that benchmark, never averaged. A leaf
//     valgrind fails on is run natively (toolfail.go): only a native failure is a finding;
//     otherwise the lane gives it up with valgrind's diagnosis, and a lane that cannot run at all
//     switches itself off.
//
// Filter semantics: go test's -bench matching (bench.Matcher), over names without the "Benchmark"
// prefix (the top level matches with it too). All top-level benchmarks the first level selects are
// calibrated on base before the deeper levels filter their leaves.
//
// Names: children run with -test.cpu=1, so both sides run with GOMAXPROCS=1, pinned or not, and the
// testing package prints names without a "-N" suffix; a name such as "size-8" is kept whole.
//
// Progress goes to RunConfig.Progress: one line updated in place with "\r" when it is a terminal,
// plain lines (one per calibrated benchmark, failure and finished round) otherwise.
package benchrun
