package config

import (
	"fmt"
	"slices"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// Recheck decides res again under c's gate policy: perfgate comment's check of an artifact against
// the configuration file of the default branch's checkout, which is trusted, unlike the artifact,
// which the benchmark job wrote next to the pull request's code. The acknowledge label is judged on
// the pull request's labels as GitHub reports them. It never loosens: a fail or error stays; a pass
// that this policy fails becomes a fail, with a note. It also notes a result whose policy the
// benchmark job took from head's file, and measurements made with another alpha or threshold (which
// the comment job cannot redo).
func (c *Config) Recheck(res *record.Result, labels []string) {
	p := c.Policy()
	p.Acknowledged = slices.Contains(labels, c.AcknowledgeLabel)
	var notes []string
	if res.Policy.From == record.Head {
		notes = append(notes, "the benchmark job took the gate policy from head's configuration file (policy-from head), "+
			"which the pull request can change")
	}
	if m := res.Method; m.Alpha != c.Alpha || m.Threshold != c.Threshold {
		notes = append(notes, fmt.Sprintf("the benchmarks were classified with alpha %g and threshold %g%%; "+
			"the default branch's configuration says alpha %g and threshold %g%%", m.Alpha, m.Threshold, c.Alpha,
			c.Threshold))
	}
	if s := res.Verdict.Status; s == record.StatusPass || s == record.StatusInconclusive {
		// Tighten only: a pass that is no longer one, or an exit code that becomes a non-zero other
		// one.
		v, exit := gate.Decide(*res, p), res.Verdict.ExitCode
		if s == record.StatusPass && v.Status != s || v.ExitCode != record.ExitPass && v.ExitCode != exit {
			*res = gate.Apply(*res, v)
			notes = append(notes, fmt.Sprintf("the benchmark job's verdict was %s (exit %d); under the default branch's "+
				"gate policy it is %s (exit %d)", s, exit, v.Status, v.ExitCode))
		}
	}
	res.Verdict.Notes = append(res.Verdict.Notes, notes...)
}
