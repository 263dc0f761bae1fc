package mdreport

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// mdConstantTime renders the constant-time check: how it ran, then one row per operation that
// changed between base and head or has findings on either side.
func mdConstantTime(d *doc, r *record.Result) {
	ct := r.ConstantTime
	if ct == nil || ctFails(ct) { // a failing check is under "What failed"
		return
	}
	d.collapsed("Constant time: "+ctSummary(ct), func() { mdConstantTimeBody(d, ct) })
}

// mdConstantTimeFailed shows the check expanded when it fails the gate (fail-new and a newly
// leaking operation).
func mdConstantTimeFailed(d *doc, r *record.Result) {
	if ct := r.ConstantTime; ct != nil && ctFails(ct) {
		d.para("**Constant time:** " + ctSummary(ct))
		mdConstantTimeBody(d, ct)
	}
}

func mdConstantTimeBody(d *doc, ct *record.ConstantTime) {
	if ct.Status != record.CTChecked {
		d.para(bold(report.Cell(string(ct.Status), 40)) + " — " + report.Cell(ct.Reason, 500))
		return
	}
	d.para(fmt.Sprintf("%s · %d secrets per operation (batch methods: %d, %d blocks) · seed %#x%s",
		text.Markdown(ct.Tool), ct.Secrets, ct.BatchSecrets, ct.BatchBlocks, ct.Seed, report.CTCost(ct)))
	t := &block{lines: []string{"| Constructor | Operation | Branches | Secret-indexed load sites | Lines per lookup " +
		"| Lines per site | Tables |", "| :-- | :-- | --: | --: | --: | --: | --: |"}}
	quiet := 0
	for _, o := range ct.Operations {
		if !o.Changed() && !o.Base.Findings() && !o.Head.Findings() {
			quiet++
			continue
		}
		prio := prioIdentical
		if o.Changed() {
			prio = prioHigh
		}
		cells := []string{report.Cell(record.Qualified(o.Package, o.Constructor), 100), report.Cell(o.Operation, 60),
			report.CTPair(o, func(s *record.CTSide) int { return len(s.Branches) }),
			report.CTPair(o, func(s *record.CTSide) int { return len(s.Loads) }),
			report.CTPair(o, (*record.CTSide).MaxLinesPerLookup), report.CTPair(o, (*record.CTSide).MaxLines),
			report.CTBytes(o)}
		t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: prio})
	}
	for _, n := range ct.NotTraced {
		cells := []string{report.Cell(record.Qualified(n.Package, n.Constructor), 100), report.CTNotTracedText(n), "—", "—", "—",
			"—", "—"}
		t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: prioIdentical})
	}
	if len(t.rows) > 0 {
		d.add(t)
	}
	if quiet > 0 {
		d.para(report.QuietOps(quiet))
	}
	for _, o := range ct.Operations {
		for _, s := range []*record.CTSide{o.Base, o.Head} {
			if s != nil && s.Error != "" {
				d.para(report.Cell(o.Constructor+" "+o.Operation+": "+s.Error, 300))
			}
		}
	}
}

// ctFails reports whether the check fails the gate.
func ctFails(ct *record.ConstantTime) bool {
	return ct.Mode == record.CTFailNew && len(ct.NewlyNotConstantTime()) > 0
}

// ctSummary is the check's outcome in a few words, for a <summary> (escaped text).
func ctSummary(ct *record.ConstantTime) string {
	if ct.Status != record.CTChecked {
		return report.Cell(string(ct.Status), 40)
	}
	changed, findings := 0, 0
	for _, o := range ct.Operations {
		if o.Changed() {
			changed++
		}
		if (o.Head != nil && o.Head.Findings()) || (o.Base != nil && o.Base.Findings()) {
			findings++
		}
	}
	s := text.PluralCommas(len(ct.Operations), "operation") + " traced, " + text.Commas(int64(findings)) + " with secret-dependent " +
		"branches or loads"
	if changed > 0 {
		s += ", " + text.Commas(int64(changed)) + " changed"
	}
	if n := len(ct.NewlyNotConstantTime()); n > 0 {
		s += ", " + htmlBold(text.Commas(int64(n))+" newly not constant time")
	}
	return s
}
