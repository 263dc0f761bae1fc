package mdreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

// instrResult is a comparison under metric both: Encrypt/des saves 20% of its instructions while
// its time is unchanged, and the two lanes' disagreement is on both rows.
func instrResult() *record.Result {
	r := reportfixture.Pass()
	r.Method.Metric, r.Method.InstrThreshold = record.MetricBoth, 0.5
	r.Env.Valgrind = "valgrind-3.19.0"
	note := "instructions/op are faster (−20.00%) but time is unchanged (+0.1%): the instructions saved are off " +
		"the critical path; both gate: a slower in either fails the gate"
	sec := reportfixture.Bench("Encrypt/des", "sec/op", 150e-9, 150.2e-9, 0.1, 0.8, &record.Paired{Ratio: 1.001, Lo: 0.99, Hi: 1.01}, record.ClassUnchanged)
	sec.MetricNote = note
	ins := record.Benchmark{Name: "Encrypt/des", Unit: record.UnitInstructions, Exact: true, P: 0, PHolm: 0,
		Base: record.Summary{Center: 20000, Lo: 20000, Hi: 20001, N: 2}, Head: record.Summary{Center: 16000, Lo: 16000, Hi: 16000, N: 2},
		DeltaPct: -20, Class: record.ClassFaster, MetricNote: note}
	same := record.Benchmark{Name: "KeySetup/des", Unit: record.UnitInstructions, Exact: true, P: 1, PHolm: 1,
		Base: record.Summary{Center: 5000, Lo: 5000, Hi: 5000, N: 2}, Head: record.Summary{Center: 5000, Lo: 5000, Hi: 5000, N: 2},
		Class: record.ClassUnchanged}
	r.Benchmarks = []record.Benchmark{sec, ins, same}
	return r
}

// TestInstructionsRendered: the instructions/op rows get their own table in Markdown and text,
// unchanged rows included (the unit gates), with counts as whole numbers; the disagreement note and
// the metric are shown.
func TestInstructionsRendered(t *testing.T) {
	r := instrResult()
	md := Markdown(r, report.Options{})
	var txt bytes.Buffer
	if err := report.Text(&txt, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md, "text": txt.String()} {
		for _, want := range []string{
			"instructions/op", "20,000", "16,000", "KeySetup/des", "off the critical path", "both gate",
			"valgrind-3.19.0", "threshold ±0.5%",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	if !strings.Contains(md, "#### instructions/op") {
		t.Errorf("markdown has no instructions/op table:\n%s", md)
	}
	// The forest of instructions/op draws the band at the lane's threshold, not time's 2%.
	f := report.NewForest(r, record.UnitInstructions, 0)
	if f == nil || f.Threshold != 0.005 || len(f.Rows) != 2 || f.Rows[0].Paired == nil {
		t.Fatalf("instructions Forest %+v, want threshold 0.005 and two rows with a point", f)
	}
	// HTML shows the note too.
	var html bytes.Buffer
	if err := htmlreport.HTML(&html, r, nil, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "off the critical path") {
		t.Errorf("report.html lacks the metric note")
	}
}
