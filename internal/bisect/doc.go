// Package bisect finds the commit that made a package slower: perfgate bisect GOOD BAD.
//
// It walks the first-parent path from GOOD to BAD (FirstParentPath) and searches it with an Oracle
// that compares a commit with GOOD and says Slower, NotSlower, Inconclusive, NoBuild or NoRun:
//
//	FirstParentPath(dir, GOOD, BAD) ─ []Commit ─ Search(Config{Path, Oracle}) ─ Report
//	                                                  │                            ├ WriteText
//	                                                  │                            └ bisect.json
//	PipelineOracle.Compare ─ pipeline.Run (GOOD as base, the commit as head)
//	    ─ Result ─ Classify
//
// Search checks BAD first (nothing to find when BAD is not slower), halves the path, skips commits
// that do not build or cannot be compared (trying the untested commit nearest the middle instead,
// like git bisect skip), re-runs a step that stays inconclusive with more budget and then treats it
// as untestable rather than guess, and confirms the culprit against its parent. About ⌈log₂ n⌉ + 2
// comparisons for n commits.
//
// The search knows nothing of benchmarks: tests drive it with a synthetic Oracle. Classify reads
// the typed Result (classes, paired intervals, the differential status), never its text;
// PipelineOracle keeps each comparison's results directory under the bisection's own, beside
// bisect.json.
package bisect
