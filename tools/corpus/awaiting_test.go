package corpus

// awaitingTruth names the pairs added while the machine was too loaded to measure their truth. Each
// must have no truth file yet; measure it (the command in the error of TestCorpusWellFormed) and
// take the name out of this set.
var awaitingTruth = map[string]bool{}
