// Package bench is the statistics of benchmarking: the rules that compare the samples of one
// package's Go benchmarks at two revisions, base and head. It runs nothing. Package benchrun runs
// the benchmarks, and package benchtxt holds their samples and the bench.txt format. Config,
// report, results and shard read them without pulling in a process runner.
//
// Data flows through it in these steps:
//
//  1. benchtxt.Sample holds one run's result line; benchtxt.ReadBenchTxt reads bench.txt back.
//  2. Package and Matcher (package.go, match.go) say what a pattern selected.
//  3. Analyze (stats.go, paired.go) summarises the samples per benchmark and unit: benchstat's
//     statistics and the paired A–B–B–A estimator that gates. Slower and faster need its test to
//     rule out every change up to half the threshold, so that a true change within half the
//     threshold fails in at most 1% of budgeted runs (the simulations in margin_test.go; -long runs
//     them ten times larger). Each process's own peak resident set size is compared as one more
//     unit, peak-RSS-B. Geomeans gives the geometric-mean row of each unit; Rejudge and
//     RejudgeFamilies (rejudge.go) classify rows again under another family, as shards' merges do.
//  4. A budgeted run looks after every stage (sequential.go): SequentialPlan spends the error rate
//     across the looks, and Stager (stager.go) decides, from the samples so far, how many rounds
//     the next stage gets and which benchmarks are settled. It runs nothing itself: benchrun's
//     staged runner and the simulations in sequential_test.go drive it alike.
//  5. The instruction-count lane's rules (instrstats.go): CompareInstructions classifies without a
//     statistical test: it first checks that the counts of one binary (the A–A and B–B pairs) agree
//     within RepeatTolerance (0.1%), else the benchmark is not counted, never averaged; then
//     head/base − 1 beyond ±threshold (default 0.5%) is slower or faster, and anything else
//     unchanged. This is valid because the check just proved each count repeatable to 0.1%, so the
//     delta is known to within 0.2%: the class cannot change between runs unless the delta lies
//     within 0.2% of the threshold, which the Note then says. MetricNote words a disagreement
//     between the time and instruction classes of one benchmark. Where a benchmark sets bytes and
//     the timing lane ran too, PerByte (perbyte.go) divides each count by the bytes per op (B/s ×
//     sec/op of the timed runs), for instructions/B and, with the cache simulation, est-cycles/B,
//     compared as counts.
//  6. With metric auto, CombineLanes (auto.go) gives each benchmark one class from both lanes: a
//     conclusive time class always stands (an instruction count can point the wrong way: fewer
//     instructions at a lower IPC); an inconclusive one becomes unchanged only when the instruction
//     counts and allocations are equal and the time interval still reaches the ±threshold band, and
//     slower or faster only when the count moved that way and the time's 95% interval lies wholly
//     beyond half the threshold on the same side; counts alone settle no direction; and where
//     valgrind hides CPU features the binary has instructions of, the counts settle nothing. Every
//     disagreement is worded in MetricNote. A budgeted run's looks stop timing a benchmark as soon
//     as rule 2 or 3 would settle it (CountClass, Stager.Counts).
//
// Filter semantics: go test's -bench matching (Matcher), over names without the "Benchmark" prefix
// (the top level matches with it too): the pattern is split at '/' into one unanchored regular
// expression per level, so -bench '^Sum256$' selects every sub-benchmark of Sum256, -bench
// 'Encrypt/des' selects Encrypt/des/single and Encrypt/des/batch, and -bench
// '^Encrypt$/^des$/^single$' exactly one.
package bench
