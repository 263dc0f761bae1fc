package gate

import (
	"fmt"

	"github.com/perfgate/perfgate/record"
)

// Judge returns r with its verdict under p (Decide, then Apply): the one verdict of a comparison
// (internal/pipeline) and of a merge of shards (shard.Merge). err is what stopped the comparison
// early, and code what the caller's ExitCode makes of it (Stopped); a nil err, for a comparison
// that ran to its end, leaves Decide's verdict as it is.
func Judge(r record.Result, p Policy, code int, err error) record.Result {
	return Apply(r, Stopped(Decide(r, p), code, err))
}

// Recheck decides res again under the trusted policy p: perfgate comment's check of an artifact
// against the configuration file of the default branch's checkout, which is trusted, unlike the
// artifact, which the benchmark job wrote next to the pull request's code (p.Acknowledged is the
// acknowledge label among the pull request's labels as GitHub reports them). It never loosens: a
// fail or error stays; a pass that p fails becomes a fail, with a note. It also notes a result
// whose policy the benchmark job took from head's file, and measurements made with another alpha
// or threshold than the trusted configuration's alpha and threshold (which the comment job cannot
// redo).
func Recheck(res *record.Result, p Policy, alpha, threshold float64) {
	var notes []string
	if res.Policy.From == record.Head {
		notes = append(notes, "the benchmark job took the gate policy from head's configuration file (policy-from head), "+
			"which the pull request can change")
	}
	if m := res.Method; m.Alpha != alpha || m.Threshold != threshold {
		notes = append(notes, fmt.Sprintf("the benchmarks were classified with alpha %g and threshold %g%%; "+
			"the default branch's configuration says alpha %g and threshold %g%%", m.Alpha, m.Threshold, alpha,
			threshold))
	}
	if s := res.Verdict.Status; s == record.StatusPass || s == record.StatusInconclusive {
		// Tighten only: a pass that is no longer one, or an exit code that becomes a non-zero other
		// one.
		v, exit := Decide(*res, p), res.Verdict.ExitCode
		if s == record.StatusPass && v.Status != s || v.ExitCode != record.ExitPass && v.ExitCode != exit {
			*res = Apply(*res, v)
			notes = append(notes, fmt.Sprintf("the benchmark job's verdict was %s (exit %d); under the default branch's "+
				"gate policy it is %s (exit %d)", s, exit, v.Status, v.ExitCode))
		}
	}
	res.Verdict.Notes = append(res.Verdict.Notes, notes...)
}
