// Package corpus is perfgate's accuracy test: pairs of commits whose performance change is known, and the means to
// score a configuration of perfgate against them.
//
// Each pair is one txtar archive under pairs/. Its header says what the pair is (the change, the package to gate,
// where its code came from), its files under base/ form the base commit's tree and its files under head/ overlay
// that tree to form the head commit (a "delete:" line removes a path). A pair whose header says "demo: BASE HEAD"
// has no files: it is two commits of the internal/demo fixture history. Materialize turns a pair into a git
// repository with two commits, branches base and head, made with a fixed identity and clock.
//
// Beside each archive, pairs/NAME.truth holds the pair's truth: per benchmark, the head/base ratio of wall time
// measured once by a long interleaved run (the measure command), with its interval, the command that measured it,
// the date and the machine's load. A truth whose interval contains 1 is "unchanged within ±X%".
//
// The score command builds perfgate (or takes a binary), runs perfgate compare with the given flags on every pair,
// and compares the classes perfgate gives with the truth: direction errors, false failures, changes found, the
// settled share and the wall time. It is a benchmark run by hand; the package's tests only check that the corpus is
// well formed.
package corpus
