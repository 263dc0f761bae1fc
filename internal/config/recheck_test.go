package config

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestRecheck: a pass that the trusted policy fails becomes a fail with a note; the acknowledge
// label of the pull request lets it pass again; a fail is never loosened; a head policy and another
// alpha are noted.
func TestRecheck(t *testing.T) {
	c := Default()
	slower := func() *record.Result {
		return &record.Result{
			Method: record.Method{Metric: record.MetricTime, Alpha: c.Alpha, Threshold: c.Threshold},
			Policy: record.PolicyOrigin{From: record.Base},
			Benchmarks: []record.Benchmark{{Name: "Encrypt", Unit: record.UnitTime, Class: record.ClassSlower,
				DeltaPct: 30, Rounds: 5}},
			Verdict: record.Verdict{Status: record.StatusPass, ExitCode: record.ExitPass},
		}
	}

	res := slower()
	c.Recheck(res, nil)
	if res.Verdict.Status != record.StatusFail || len(res.Verdict.Notes) != 1 ||
		!strings.Contains(res.Verdict.Notes[0], "verdict was pass (exit 0)") {
		t.Errorf("a pass with a slower benchmark: %s, notes %q; want a fail with a note", res.Verdict.Status,
			res.Verdict.Notes)
	}

	res = slower()
	c.Recheck(res, []string{c.AcknowledgeLabel})
	if res.Verdict.Status != record.StatusPass || len(res.Verdict.Notes) != 0 {
		t.Errorf("acknowledged: %s, notes %q; want the pass kept without a note", res.Verdict.Status,
			res.Verdict.Notes)
	}

	res = slower()
	res.Benchmarks = nil
	res.Verdict = record.Verdict{Status: record.StatusFail, ExitCode: record.ExitFail, Reasons: []string{"x"}}
	res.Policy.From, res.Method.Alpha = record.Head, c.Alpha/2
	c.Recheck(res, nil)
	if res.Verdict.Status != record.StatusFail || len(res.Verdict.Notes) != 2 ||
		!strings.Contains(res.Verdict.Notes[0], "policy-from head") || !strings.Contains(res.Verdict.Notes[1], "alpha") {
		t.Errorf("a fail from head's policy with another alpha: %s, notes %q; want the fail kept, two notes",
			res.Verdict.Status, res.Verdict.Notes)
	}
}
