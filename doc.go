// Package perfgate compares two revisions of a Go package on speed, correctness and size, and decides whether a
// pull request may merge.
//
// What comes in is a Config: the repository, the two revisions, the package, and the gate's settings (from flags,
// .perfgate.yml and the Action's inputs). Run exports both revisions, builds their test binaries, runs the
// package's tests, checks that base and head compute byte-identical outputs (package differential), measures the
// package's section sizes (package sizes), and runs the benchmarks interleaved A–B–B–A pinned to one CPU (packages
// abba and bench). Each phase returns its own record; one step assembles them into a Result.
//
// What goes out is the Result, whose Verdict is Decide(Result, Policy): a pure function of the Result and the
// Config's Policy. The records are the types of package record, which every stage produces directly; this
// package names them too (Result, Benchmark, …). Run also writes the results directory (ResultsDir): result.json,
// env.json, bench.txt, sizes.txt, differential.json, the build and test logs, and, written by the commands,
// report.md and github.json. Package report renders a Result; cmd/perfgate is the command line and the Action.
//
// Dependencies point down: cmd/perfgate and report import this package; this package imports internal/gitsrc,
// bench, differential and sizes, which exchange plain values and records and never import each other (bench uses
// abba, the schedule). Package record imports nothing of perfgate.
package perfgate
