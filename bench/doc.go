// Package bench builds, runs and compares the Go benchmarks of one package at two revisions, base and head.
//
// Data flows through it in four steps:
//
//  1. Build (build.go) compiles each side's test binary with go test -c, with identical flags and environment.
//  2. RunABBA (run.go, list.go) measures them. It lists the base binary's top-level benchmarks (List), runs each
//     once on base at the target benchmark time with -test.v to discover its leaf benchmarks (sub-benchmarks
//     included, since -test.list names top-level ones only) and their iteration counts, keeps the leaves that
//     RunConfig.Filter matches, and then runs the A–B–B–A schedule of package abba: R rounds, in each of which
//     every leaf runs base, head, head, base, each run a fresh child process pinned to one CPU, running exactly
//     that leaf (Pattern: -test.bench=^BenchmarkEncrypt$/^des$/^single$) for its fixed iteration count
//     (-test.benchtime=Nx, the same on both sides) with -test.benchmem and -test.cpu=1, split into SubRuns
//     sub-runs (-test.count) of which the fastest becomes the slot's Sample (sample.go, list.go); a panic, a
//     non-zero exit, a missing result line or a run silent for longer than the timeout becomes a Failure of that
//     side, and the run goes on without that benchmark on that side.
//  3. BenchTxt (benchtxt.go) writes every sample in the Go benchmark format with perfgate-side, perfgate-round,
//     perfgate-slot and perfgate-commit configuration lines: the results directory's bench.txt, which stock
//     benchstat compares (BenchstatCommand) and ReadBenchTxt reads back.
//  4. Analyze (stats.go, paired.go) summarises the samples per benchmark and unit: benchstat's statistics and the
//     paired A–B–B–A estimator that gates. Slower and faster need its test to rule out every change up to half the
//     threshold, so that a true change within half the threshold fails in at most 1% of budgeted runs (the
//     simulations in margin_test.go; -long runs them ten times larger). Each process's own peak resident set
//     size, measured through abba's launcher, is compared as one more unit, peak-RSS-B. Geomeans gives the
//     geometric-mean row of each unit.
//  5. The instruction-count lane (instructions.go, valgrind.go, instrstats.go) replaces steps 2 and 4 when the
//     metric is instructions: RunInstructions runs the same schedule over groups of leaves, one valgrind
//     callgrind process per group at N and one at 2N iterations per slot (GOMAXPROCS=1,
//     GODEBUG=asyncpreemptoff=1, GOGC=off). callgrind zeroes its counts when the testing package resets or starts a
//     benchmark timer and writes them out when it stops one or prints a result, so each leaf's count is of
//     what its timer measured, without start-up and set-up; the reader attributes each instruction by address
//     to a function of the binary's symbol table and counts the code under test without the Go runtime's and
//     the testing package's machinery. instructions/op = (count at 2N − count at N) / N. CompareInstructions
//     classifies without a statistical test: it first checks that the counts of one binary (the A–A and B–B
//     pairs) agree within RepeatTolerance (0.01%), else the benchmark is failed, never averaged; then
//     head/base − 1 beyond ±threshold (default 0.5%) is slower or faster, and anything else unchanged. This
//     is valid because the check just proved each count repeatable to 0.01%, so the delta is known to within
//     0.02%, a 25th of the threshold: the class cannot change between runs unless the delta lies within 0.02%
//     of the threshold, which the Note then says. MetricNote words a disagreement between the time and
//     instruction classes of one benchmark. Where a benchmark sets bytes and the timing lane ran too, PerByte
//     (perbyte.go) divides each count by the bytes per op (B/s × sec/op of the timed runs), for instructions/B
//     and, with the cache simulation, est-cycles/B, compared as counts.
//  6. With metric auto, CombineLanes (auto.go) gives each benchmark one class from both lanes: a conclusive time
//     class always stands (an instruction count can point the wrong way: fewer instructions at a lower IPC); an
//     inconclusive one becomes unchanged only when the instruction counts and allocations are equal and the
//     time interval still reaches the ±threshold band, and slower or faster only when the count moved that way
//     and the time's 95% interval lies wholly beyond half the threshold on the same side; counts alone settle
//     no direction; and where valgrind hides CPU features the binary has instructions of (HiddenFeatures,
//     UsesFeatures in cpufeatures.go), the counts settle nothing. Every disagreement is worded in MetricNote.
//     Under auto the pipeline counts alongside the timing lane, on another CPU (or first, with one CPU), and
//     gives the counts to the timing lane as RunConfig.Counts: a budgeted run's looks stop timing a benchmark
//     as soon as rule 2 or 3 would settle it (CountClass), and spend their rounds on the others.
//
// Filter semantics: go test's -bench matching (Matcher), over names without the "Benchmark" prefix (the top level
// matches with it too): the pattern is split at '/' into one unanchored regular expression per level, so -bench
// '^Sum256$' selects every sub-benchmark of Sum256, -bench 'Encrypt/des' selects Encrypt/des/single and
// Encrypt/des/batch, and -bench '^Encrypt$/^des$/^single$' exactly one. All top-level benchmarks the first level
// selects are calibrated on base before the deeper levels filter their leaves.
//
// Names: children run with -test.cpu=1, so both sides run with GOMAXPROCS=1, pinned or not, and the testing package
// prints names without a "-N" suffix; a name such as "size-8" is kept whole.
//
// Progress goes to RunConfig.Progress: one line updated in place with "\r" when it is a terminal, plain lines (one per
// calibrated benchmark, failure and finished round) otherwise.
package bench
