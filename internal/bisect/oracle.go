package bisect

import (
	"context"
	"fmt"
	"time"
)

// Outcome is what one comparison of a commit with a base commit found.
type Outcome string

// The outcomes. With -check differential, Slower reads "differs" and NotSlower "identical".
const (
	// slower than the base beyond the threshold (or outputs differ)
	Slower Outcome = "slower"
	// a slowdown beyond the threshold is ruled out (or outputs identical)
	NotSlower    Outcome = "not-slower"
	Inconclusive Outcome = "inconclusive" // neither could be shown
	// the commit's package does not build: skipped, like git bisect skip
	NoBuild Outcome = "does-not-build"
	// it built, but its benchmarks (or outputs) could not be compared
	NoRun Outcome = "could-not-run"
)

// skipped reports whether o leaves the commit untested: the search tries a neighbour instead.
func (o Outcome) skipped() bool { return o == NoBuild || o == NoRun }

// Commit is one commit of the searched path.
type Commit struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"` // first line of the message (untrusted text)
}

// Short is the commit's name in 12 hexadecimal digits.
func (c Commit) Short() string {
	if len(c.SHA) > 12 {
		return c.SHA[:12]
	}
	return c.SHA
}

// Request is one comparison the search asks of its oracle.
type Request struct {
	Step int    // 1-based number of the comparison in the bisection
	Head Commit // the commit under test
	Base Commit // GOOD, or the culprit's parent for the confirmation
	// Try is 1 for the first run of a step, 2 and more for re-runs of an inconclusive one, which
	// should get more budget than the run before.
	Try int
}

// Change is how one benchmark moved from the base to the head of a comparison.
type Change struct {
	// the full name, package-qualified when several packages ran
	Benchmark string `json:"benchmark"`
	Unit      string `json:"unit"` // the row that decided: sec/op or instructions/op
	// record.Class of that row as bisect reads it (see Classify)
	Class string `json:"class"`
	// "time", "count" (the exact count decided), or "differential"
	Lane string  `json:"lane"`
	Pct  float64 `json:"pct"`    // the estimate, in percent: (head/base − 1) × 100
	Lo   float64 `json:"lo_pct"` // the interval of Pct; Lo == Hi == Pct for an exact count
	Hi   float64 `json:"hi_pct"`
}

// String is "Encrypt/des +37.9% [+36.2%, +39.5%] (time)".
func (c Change) String() string {
	if c.Lane == "differential" {
		return c.Benchmark
	}
	if c.Lo == c.Hi {
		return fmt.Sprintf("%s %+.1f%% (%s, exact)", c.Benchmark, c.Pct, c.Lane)
	}
	return fmt.Sprintf("%s %+.1f%% [%+.1f%%, %+.1f%%] (%s)", c.Benchmark, c.Pct, c.Lo, c.Hi, c.Lane)
}

// Probe is an oracle's answer to one Request.
type Probe struct {
	Outcome Outcome
	// Change is the change that decided: the largest slowdown of a Slower comparison, the widest
	// interval of an Inconclusive one, the largest estimate otherwise; nil when nothing was
	// compared.
	Change *Change
	// Changes are every selected benchmark's, in the result's order; Change is one of them.
	Changes []Change
	Reason  string // why a commit was skipped or a step stayed inconclusive, one line
	Dir     string // the comparison's results directory, "" when it wrote none
}

// changeOf returns p's change of the named benchmark, or nil.
func (p Probe) changeOf(name string) *Change {
	for i := range p.Changes {
		if p.Changes[i].Benchmark == name {
			return &p.Changes[i]
		}
	}
	return nil
}

// Oracle compares one commit with another. An error means the bisection cannot go on at all (the
// good commit does not build, a configuration error, an interruption); a commit that cannot be
// tested is an Outcome.
type Oracle interface {
	Compare(ctx context.Context, req Request) (Probe, error)
}

// clock is the time source of the progress estimate; tests replace it.
type clock func() time.Time
