package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/internal/leaf/text"
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

// ctFails reports whether the check fails the gate.
func ctFails(ct *record.ConstantTime) bool {
	return ct.Mode == record.CTFailNew && len(ct.NewlyNotConstantTime()) > 0
}

// ctSummary is the check's outcome in a few words, for a <summary> (escaped text).
func ctSummary(ct *record.ConstantTime) string {
	if ct.Status != record.CTChecked {
		return cell(string(ct.Status), 40)
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

func mdConstantTimeBody(d *doc, ct *record.ConstantTime) {
	if ct.Status != record.CTChecked {
		d.para(bold(cell(string(ct.Status), 40)) + " — " + cell(ct.Reason, 500))
		return
	}
	d.para(fmt.Sprintf("%s · %d secrets per operation (batch methods: %d, %d blocks) · seed %#x%s",
		text.Markdown(ct.Tool), ct.Secrets, ct.BatchSecrets, ct.BatchBlocks, ct.Seed, ctCost(ct)))
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
		cells := []string{cell(record.Qualified(o.Package, o.Constructor), 100), cell(o.Operation, 60),
			ctPair(o, func(s *record.CTSide) int { return len(s.Branches) }),
			ctPair(o, func(s *record.CTSide) int { return len(s.Loads) }),
			ctPair(o, (*record.CTSide).MaxLinesPerLookup), ctPair(o, (*record.CTSide).MaxLines),
			ctBytes(o)}
		t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: prio})
	}
	for _, n := range ct.NotTraced {
		cells := []string{cell(record.Qualified(n.Package, n.Constructor), 100), ctNotTracedText(n), "—", "—", "—",
			"—", "—"}
		t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: prioIdentical})
	}
	if len(t.rows) > 0 {
		d.add(t)
	}
	if quiet > 0 {
		d.para(quietOps(quiet))
	}
	for _, o := range ct.Operations {
		for _, s := range []*record.CTSide{o.Base, o.Head} {
			if s != nil && s.Error != "" {
				d.para(cell(o.Constructor+" "+o.Operation+": "+s.Error, 300))
			}
		}
	}
}

// quietOps says how many operations the table leaves out for having no findings.
func quietOps(n int) string {
	if n == 1 {
		return "1 more operation shows no secret-dependent branch or load on either side."
	}
	return fmt.Sprintf("%d more operations show no secret-dependent branch or load on either side.", n)
}

// ctPair writes head's value and, when it differs, base's: "16 (base 8)"; "—" for a side without
// the operation.
func ctPair(o record.CTOperation, f func(*record.CTSide) int) string {
	return pairText(o, func(s *record.CTSide) string { return strconv.Itoa(f(s)) })
}

func ctBytes(o record.CTOperation) string {
	return pairText(o, func(s *record.CTSide) string { return text.Commas(int64(s.TableBytes())) + " B" })
}

func pairText(o record.CTOperation, f func(*record.CTSide) string) string {
	h, b := "—", "—"
	if o.Head != nil {
		h = f(o.Head)
	}
	if o.Base != nil {
		b = f(o.Base)
	}
	if h == b {
		return h
	}
	return h + " (base " + b + ")"
}

// ctView is the constant-time section of report.html: how the check ran, and every operation with
// findings, its sites listed side by side.
type ctView struct {
	Line string // status, tool and secrets, or why it did not run
	Ops  []ctOpView
	More string // how many operations have no findings on either side, as quietOps says it
}

type ctOpView struct {
	Name    string // "NewCipher Encrypt"
	Summary string // the comment's cells: branches, load sites, lines per lookup, per site, tables
	Sites   []ctSiteView
	Cut     int // sites left out
}

type ctSiteView struct {
	Side, Kind, Where, Table, Lines string
}

// ctSitesShown bounds the sites report.html lists per operation and side; result.json has them all.
const ctSitesShown = 40

func newCTView(ct *record.ConstantTime) *ctView {
	if ct == nil {
		return nil
	}
	v := &ctView{Line: string(ct.Status) + " — " + ct.Reason}
	if ct.Status != record.CTChecked {
		return v
	}
	v.Line = fmt.Sprintf("%s · %d secrets per operation (batch methods: %d, %d blocks) · seed %#x%s", ct.Tool,
		ct.Secrets, ct.BatchSecrets, ct.BatchBlocks, ct.Seed, ctCost(ct))
	quiet := 0
	for _, o := range ct.Operations {
		if !o.Base.Findings() && !o.Head.Findings() {
			quiet++
			continue
		}
		ov := ctOpView{Name: record.Qualified(o.Package, o.Constructor) + " " + o.Operation,
			Summary: fmt.Sprintf("branches %s · load sites %s · lines per lookup %s · per site %s · tables %s",
				ctPair(o, func(s *record.CTSide) int { return len(s.Branches) }),
				ctPair(o, func(s *record.CTSide) int { return len(s.Loads) }),
				ctPair(o, (*record.CTSide).MaxLinesPerLookup), ctPair(o, (*record.CTSide).MaxLines), ctBytes(o))}
		for _, sd := range []struct {
			name string
			s    *record.CTSide
		}{{"base", o.Base}, {"head", o.Head}} {
			if sd.s == nil {
				continue
			}
			sites := append(append([]record.CTSite{}, sd.s.Branches...), sd.s.Loads...)
			for i, s := range sites {
				if i == ctSitesShown {
					ov.Cut += len(sites) - i
					break
				}
				ov.Sites = append(ov.Sites, ctSiteHTML(sd.name, s))
			}
		}
		v.Ops = append(v.Ops, ov)
	}
	if quiet > 0 {
		v.More = quietOps(quiet)
	}
	for _, n := range ct.NotTraced {
		v.More += " " + record.Qualified(n.Package, n.Constructor) + ": " + ctNotTracedText(n) + "."
	}
	return v
}

func ctSiteHTML(side string, s record.CTSite) ctSiteView {
	where := fmt.Sprintf("%s+%#x", s.Function, s.Offset)
	if s.Inlined != "" {
		where += " (inlined " + s.Inlined + ")"
	}
	if s.File != "" {
		where += fmt.Sprintf(" %s:%d", s.File, s.Line)
	}
	sv := ctSiteView{Side: side, Kind: "branch", Where: where}
	if s.Kind != "" {
		sv.Kind = s.Kind
		sv.Table = s.Table
		if s.TableSize > 0 {
			sv.Table += fmt.Sprintf(" (%s B)", text.Commas(int64(s.TableSize)))
		}
		sv.Lines = fmt.Sprintf("%d per lookup, %d in all", s.LinesPerLookup, s.Lines)
	}
	return sv
}

// textConstantTime is the terminal's constant-time section: the comment's table, in columns.
func textConstantTime(w io.Writer, r *record.Result) {
	ct := r.ConstantTime
	if ct == nil {
		return
	}
	if ct.Status != record.CTChecked {
		fmt.Fprintf(w, "\nconstant time: %s — %s\n", text.Plain(string(ct.Status)), text.Plain(ct.Reason))
		return
	}
	fmt.Fprintf(w, "\nconstant time: %s, %d secrets per operation (batch methods: %d, %d blocks)%s\n", text.Plain(ct.Tool),
		ct.Secrets, ct.BatchSecrets, ct.BatchBlocks, ctCost(ct))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "constructor\toperation\tbranches\tload sites\tlines per lookup\tper site\ttables")
	quiet := 0
	for _, o := range ct.Operations {
		if !o.Changed() && !o.Base.Findings() && !o.Head.Findings() {
			quiet++
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", text.Plain(clip(record.Qualified(o.Package, o.Constructor), 100)),
			text.Plain(clip(o.Operation, 60)), ctPair(o, func(s *record.CTSide) int { return len(s.Branches) }),
			ctPair(o, func(s *record.CTSide) int { return len(s.Loads) }),
			ctPair(o, (*record.CTSide).MaxLinesPerLookup), ctPair(o, (*record.CTSide).MaxLines), ctBytes(o))
	}
	for _, n := range ct.NotTraced {
		fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\n", text.Plain(clip(record.Qualified(n.Package, n.Constructor), 100)),
			ctNotTracedText(n))
	}
	tw.Flush()
	if quiet > 0 {
		fmt.Fprintln(w, quietOps(quiet))
	}
}
