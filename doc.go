// Package perfgate compares two revisions of a Go package on speed, correctness and size, and decides whether a
// pull request may merge.
//
// Compare exports both revisions, builds their test binaries, runs the package's tests, checks that base and head
// compute byte-identical outputs (package differential), measures the package's section sizes (package sizes), runs
// the benchmarks interleaved A–B–B–A pinned to one CPU (packages abba and bench), and turns it all into a Result
// whose Verdict gates the merge. Package report renders a Result; cmd/perfgate is the command line.
package perfgate
