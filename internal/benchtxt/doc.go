// Package benchtxt is the bench.txt format and its units, apart from the statistics in package
// bench, as golang.org/x/perf keeps benchfmt and benchunit apart from benchmath.
//
// Data flows through it in these steps:
//
//  1. Sample and Value (sample.go) hold one run's result line: the fastest of SubRuns sub-runs of
//     one slot of one round of the A–B–B–A schedule, on one side. Values are in benchfmt's tidy
//     units, sec/op first (SecFirst).
//  2. ValidUnit (unit.go) says which units read from benchmark output may be kept: the code under
//     test chooses them, so they are untrusted text.
//  3. BenchTxt (benchtxt.go) writes every sample in the Go benchmark format with perfgate-side,
//     perfgate-round, perfgate-slot and perfgate-commit configuration lines. That is the results
//     directory's bench.txt, which stock benchstat compares (BenchstatCommand) and ReadBenchTxt
//     reads back.
//
// It runs nothing and computes no statistics.
package benchtxt
