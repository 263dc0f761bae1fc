package perfgate

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
)

// GatedUnit is the unit whose class gates the merge. Other units (B/s, B/op, allocs/op) are reported only.
const GatedUnit = "sec/op"

// FailureRemoved is the Failure kind of a base benchmark that head does not have (removed or renamed). One removed
// benchmark does not fail the gate; a head without any of base's benchmarks does, since nothing could be compared.
const FailureRemoved = "removed"

// Decide sets r.Verdict from what r holds, following DESIGN.md's gate: a slower benchmark not acknowledged, a
// differential mismatch, a head that failed to build or whose tests failed, a benchmark that crashed or hung on
// head, or size growth beyond the configured limit fail the gate. headBuildFailed reports that head did not build,
// which fails the gate; runErr is the error that stopped the pipeline early, if any, and makes the verdict an
// error (exit code 3), as does r.Incomplete.
func (c *Config) Decide(r *Result, headBuildFailed bool, runErr error) {
	v := Verdict{Status: StatusPass, ExitCode: ExitPass, Reasons: []string{}}
	fail := func(format string, args ...any) {
		v.Reasons = append(v.Reasons, fmt.Sprintf(format, args...))
		if v.Status == StatusPass {
			v.Status, v.ExitCode = StatusFail, ExitFail
		}
	}
	if headBuildFailed {
		fail("head does not build")
	}
	if r.Functional.Head.Ran && !r.Functional.Head.Passed {
		fail("head's tests fail")
	}
	switch r.Differential.Status {
	case DiffMismatch:
		if r.Differential.Reason != "" {
			fail("differential check: %s", r.Differential.Reason)
		} else {
			fail("differential check: head computes different bytes (%d mismatches)", totalMismatches(r.Differential))
		}
	}
	headFailures := map[string]bool{}
	removed := 0
	for _, f := range r.Failures {
		if f.Side != "head" || headFailures[f.Name] {
			continue
		}
		headFailures[f.Name] = true
		if f.Kind == FailureRemoved {
			removed++ // Compare notes which ones
			continue
		}
		if f.Kind == "no-result" {
			// Removed or skipped on head: nothing crashed, and there is nothing to compare.
			r.Notes = append(r.Notes, fmt.Sprintf("benchmark %s printed no result on head (removed or skipped?)", f.Name))
			continue
		}
		fail("benchmark %s fails on head (%s)", f.Name, f.Kind)
	}
	if removed > 0 && !anyCompared(r.Benchmarks) {
		fail("head has none of base's benchmarks (%d removed or renamed): nothing could be compared", removed)
	}
	patterns := c.compiledThresholds()
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if b.Unit != GatedUnit || b.Class != ClassSlower {
			continue
		}
		if r.Method.BinariesSame {
			// Byte-identical test binaries run the same instructions: a difference can only be noise (a false
			// positive of the test, which an A/A run exists to show), never a regression to block.
			b.Acknowledged = true
			v.Acknowledged = append(v.Acknowledged, fmt.Sprintf("%s: base and head test binaries are byte-identical, so %+.1f%% is noise", b.Name, pctOf(b)))
			continue
		}
		if why, ok := c.acknowledges(patterns, b); ok {
			b.Acknowledged = true
			v.Acknowledged = append(v.Acknowledged, fmt.Sprintf("%s: %s", b.Name, why))
			continue
		}
		fail("%s is slower (%+.1f%%)", b.Name, pctOf(b))
	}
	if c.MaxSizeGrowth > 0 {
		var delta int64
		for _, s := range r.Sizes.Sections {
			delta += s.Head - s.Base
		}
		if delta > c.MaxSizeGrowth {
			fail("the package grew by %d bytes, more than max-size-growth %d", delta, c.MaxSizeGrowth)
		}
	}
	if runErr != nil || r.Incomplete {
		v.Status, v.ExitCode = StatusError, ExitCannotRun
		var ce *ConfigError
		if errors.As(runErr, &ce) {
			v.ExitCode = ExitUsage
		}
		if runErr != nil {
			v.Reasons = append(v.Reasons, runErr.Error())
		} else {
			v.Reasons = append(v.Reasons, "the comparison did not finish")
		}
	}
	r.Verdict = v
}

type thresholdPattern struct {
	re  *regexp.Regexp
	pct float64
	src string
}

func (c *Config) compiledThresholds() []thresholdPattern {
	var out []thresholdPattern
	for _, k := range sortedKeys(c.Thresholds) {
		re, err := regexp.Compile(k)
		if err != nil {
			continue // Validate reports it
		}
		out = append(out, thresholdPattern{re, c.Thresholds[k], k})
	}
	return out
}

// acknowledges reports whether a slower benchmark is allowed, and why: the label, or a per-benchmark threshold
// that the estimated slowdown stays within.
func (c *Config) acknowledges(patterns []thresholdPattern, b *Benchmark) (string, bool) {
	if c.Acknowledged {
		return fmt.Sprintf("acknowledged by label %s", c.AcknowledgeLabel), true
	}
	pct := pctOf(b)
	for _, p := range patterns {
		if p.re.MatchString(b.Name) && pct <= p.pct {
			return fmt.Sprintf("%+.1f%% is within its threshold %g%% (%s)", pct, p.pct, p.src), true
		}
	}
	return "", false
}

// pctOf is the slowdown of b in percent: the paired estimate when there is one, else benchstat's delta.
func pctOf(b *Benchmark) float64 {
	if b.Paired != nil {
		return (b.Paired.Ratio - 1) * 100
	}
	return b.DeltaPct
}

// anyCompared reports whether some benchmark has samples of the gated unit on both sides.
func anyCompared(bs []Benchmark) bool {
	for _, b := range bs {
		if b.Unit == GatedUnit && b.Class != ClassFailed {
			return true
		}
	}
	return false
}

func totalMismatches(d Differential) int {
	n := 0
	for _, c := range d.Ciphers {
		n += c.Mismatches
	}
	return n
}

// sortBenchmarks orders benchmarks by name, then sec/op before other units.
func sortBenchmarks(bs []Benchmark) {
	sort.SliceStable(bs, func(i, j int) bool {
		if bs[i].Name != bs[j].Name {
			return bs[i].Name < bs[j].Name
		}
		return unitRank(bs[i].Unit) < unitRank(bs[j].Unit)
	})
}

func unitRank(u string) int {
	switch u {
	case "sec/op":
		return 0
	case "B/s":
		return 1
	case "B/op":
		return 2
	case "allocs/op":
		return 3
	}
	return 4
}
