// Package mdreport renders a perfgate.Result as Markdown: the body of the sticky pull-request
// comment and of the job summary, led by Marker and never longer than MaxBody.
//
// Markdown builds the body as a list of blocks and fits it under MaxBody by dropping collapsed
// <details> sections first, then the least important table rows (unchanged benchmarks before faster
// ones before slower ones), with a visible note for each omission; Truncate is the line-safe last
// resort. Every string from the pull request is escaped (text.Markdown) or fenced (text.Block)
// before it reaches the body; the numbers and shared phrases come from package report.
package mdreport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// Markdown renders r as the body of the sticky PR comment and the job summary, in the order a
// reviewer reads it: Marker, the one-line verdict and its reasons; then what failed (the
// differential's mismatches, the panics and failed runs, the package tests' output), expanded; then
// the forest plot of the benchmarks that are not unchanged, why the inconclusive ones stayed open,
// and why the changed ones changed. Everything else — the per-unit tables, the differential,
// constant time, sizes, the benchstat-style table, the method and environment — follows in
// collapsed <details> sections. It is never longer than bodyBudget (under MaxBody): collapsed
// sections are dropped first, then the least important rows, each omission noted. A nil r renders
// as an error.
func Markdown(r *record.Result, opt report.Options) string {
	if r == nil {
		r = &record.Result{Verdict: record.Verdict{Status: record.StatusError, Reasons: []string{"no result to render"}}}
	}
	d := &doc{hint: hintOf(opt)}
	mdHeader(d, r, opt)
	mdFailed(d, r)
	mdChanged(d, r)
	mdWhy(d, r, opt)
	mdTables(d, r)
	mdRaw(d, r)
	mdDifferential(d, r)
	mdConstantTime(d, r)
	mdSizes(d, r)
	mdMethod(d, r)
	if opt.ArtifactHint != "" {
		d.para("<sub>Full results: " + text.Markdown(report.Clip(opt.ArtifactHint, 300)) + "</sub>")
	}
	return d.fit(bodyBudget)
}

func bold(s string) string { return "**" + s + "**" }

// htmlBold is bold inside HTML, such as a <summary>, where GitHub does not read Markdown's ** (s is
// escaped text).
func htmlBold(s string) string { return "<strong>" + s + "</strong>" }

// verdictLine is the line a maintainer reads first.
func verdictLine(r *record.Result) string {
	return "**perfgate: " + report.StatusWord(r) + "** — " + strings.Join(report.VerdictParts(r, text.Markdown, bold), " · ")
}

func mdHeader(d *doc, r *record.Result, opt report.Options) {
	lines := []string{Marker}
	if opt.Title != "" {
		lines = append(lines, "### "+text.Markdown(report.Clip(opt.Title, 200)), "")
	}
	d.para(append(lines, verdictLine(r))...)

	pkg := r.Package
	if pkg == "" {
		pkg = r.ImportPath
	}
	line := "base: " + report.Revision(r.Base, text.Markdown) + " → head: " + report.Revision(r.Head, text.Markdown)
	if pkg != "" {
		line = text.CodeSpan(report.Clip(pkg, 200)) + text.Markdown(report.Scope(r)) + " · " + line
	}
	d.para(line)

	list := &block{what: "item"}
	for _, s := range r.Verdict.Reasons {
		list.rows = append(list.rows, row{text: "- " + report.Cell(s, 500), prio: prioTop})
	}
	if ack := acknowledgedLine(r.Verdict.Acknowledged); ack != "" {
		list.rows = append(list.rows, row{text: "- " + ack, prio: prioTop})
	}
	if l := report.PolicyLine(r, text.Markdown); l != "" {
		list.rows = append(list.rows, row{text: "- Policy: " + l, prio: prioTop})
	}
	for _, s := range report.ReadingNotes(r) {
		list.rows = append(list.rows, row{text: "- Note: " + report.Cell(s, 500), prio: prioHigh})
	}
	if len(list.rows) > 0 {
		d.add(list)
	}
}

// acknowledgedLine says once which slower benchmarks were acknowledged and why: "Acknowledged by
// label perf-regression-ok: NewCipher/des, NewTripleEDE3", or each with its own reason when they
// differ.
func acknowledgedLine(ack []string) string {
	if len(ack) == 0 {
		return ""
	}
	const most = 10
	if reason := report.CommonReason(ack); reason != "" {
		var names []string
		for _, a := range ack[:min(len(ack), most)] {
			name, _, _ := strings.Cut(a, ": ")
			names = append(names, report.Cell(name, 100))
		}
		s := "Acknowledged " + report.Cell(strings.TrimPrefix(reason, "acknowledged "), 200) + ": " + strings.Join(names, ", ")
		if len(ack) > most {
			s += fmt.Sprintf(" and %d more", len(ack)-most)
		}
		return s
	}
	var parts []string
	for _, a := range ack[:min(len(ack), most)] {
		parts = append(parts, report.Cell(a, 200))
	}
	s := "Acknowledged: " + strings.Join(parts, "; ")
	if len(ack) > most {
		s += fmt.Sprintf("; and %d more", len(ack)-most)
	}
	return s
}

// collapsed wraps the blocks that fill adds in one <details> section with the given summary. The
// opening and closing tags are blocks of their own, so fit can drop the rows between them and still
// leave valid Markdown.
func (d *doc) collapsed(summary string, fill func()) {
	n := len(d.blocks)
	d.para("<details>", "<summary>"+summary+"</summary>")
	fill()
	if len(d.blocks) == n+1 { // nothing to show
		d.blocks = d.blocks[:n]
		return
	}
	d.para("</details>")
}

// failing reports whether r's verdict is anything but a pass.
func failing(r *record.Result) bool { return r.Verdict.Status != record.StatusPass }

// mdFailed is what failed, expanded right under the verdict: the differential's mismatches and
// inconsistencies, the failed and panicking runs, the package tests' output.
func mdFailed(d *doc, r *record.Result) {
	n := len(d.blocks)
	d.para("### What failed")
	mdMismatchesOpen(d, r.Differential)
	mdConstantTimeFailed(d, r)
	mdFailures(d, r)
	mdTestOutput(d, r)
	if len(d.blocks) == n+1 {
		d.blocks = d.blocks[:n]
	}
}

// mdChanged is the forest plot of the benchmarks that are not unchanged, why the inconclusive ones
// stayed open, and where the two lanes disagree; the unchanged ones are counted and named in one
// line.
func mdChanged(d *doc, r *record.Result) {
	d.para("### Benchmarks")
	if len(r.Benchmarks) == 0 {
		d.para("No benchmarks were compared.")
		return
	}
	moved := *r
	moved.Benchmarks = nil
	var same []string
	seen := map[string]bool{}
	for _, b := range r.Benchmarks {
		if b.Class == record.ClassUnchanged {
			if (b.Unit == record.UnitTime || b.Unit == record.UnitInstructions) && !seen[b.Name] {
				seen[b.Name] = true
				same = append(same, record.Qualified(b.Package, b.Name))
			}
			continue
		}
		moved.Benchmarks = append(moved.Benchmarks, b)
	}
	mdForest(d, &moved)
	if len(same) > 0 {
		const most = 20
		names := make([]string, 0, most)
		for _, n := range same[:min(len(same), most)] {
			names = append(names, text.CodeSpan(report.Clip(n, 100)))
		}
		line := "Unchanged (" + text.Commas(int64(len(same))) + "): " + strings.Join(names, ", ")
		if len(same) > most {
			line += fmt.Sprintf(" and %d more", len(same)-most)
		}
		d.para(line)
	}
	if open := report.InconclusiveLines(r, 10); len(open) > 0 {
		b := &block{lines: []string{"**Why inconclusive:**", ""}, what: "item"}
		for _, l := range open {
			b.rows = append(b.rows, row{text: "- " + l, prio: prioSlower})
		}
		d.add(b)
	}
	if lanes := laneLines(r.Benchmarks); len(lanes) > 0 {
		d.add(&block{lines: []string{"**Where the lanes disagree:**", ""}, rows: lanes, what: "item"})
	}
}

// mdTables is every benchmark of every unit in a table, collapsed.
func mdTables(d *doc, r *record.Result) {
	if len(r.Benchmarks) == 0 {
		return
	}
	d.collapsed("Every benchmark, per unit", func() { mdBenchmarks(d, r) })
}

// benchPrio is how much a benchmark's row matters when rows must go.
func benchPrio(class record.Class) int {
	switch class {
	case record.ClassFailed:
		return prioFailed
	case record.ClassSlower:
		return prioSlower
	case record.ClassUnchanged:
		return prioUnchanged
	}
	return prioFaster
}

// classCell is the class as a plain word, slower and failed in bold.
func classCell(b record.Benchmark) string {
	c := report.Cell(string(b.Class), 40)
	switch b.Class {
	case record.ClassSlower, record.ClassFailed:
		c = bold(c)
	}
	if b.Acknowledged {
		c += ", acknowledged"
	}
	if b.RuledOut {
		c += ", not blocking"
	}
	return c
}

// mdBenchmarks is the legend and one table per unit shown.
func mdBenchmarks(d *doc, r *record.Result) {
	alpha := report.AlphaOf(r.Method)
	d.para(fmt.Sprintf("Base and head: median ± the larger half-width of its 95%% interval. Δ: change of the median, "+
		"“~” when not significant (Mann–Whitney U, p > %s). Paired: head/base from the A–B–B–A rounds, with its 95%% "+
		"interval.",
		strconv.FormatFloat(alpha, 'g', -1, 64)))
	units, groups, quiet := report.ShownUnits(r.Benchmarks, r.Method.Metric)
	if len(quiet) > 0 {
		defer d.para(text.Markdown(strings.Join(quiet, ", ")) + ": unchanged in every benchmark.")
	}
	// Where the lanes disagree, mdChanged's lines say which gates and why; the tables leave it out.
	lanes := laneLines(r.Benchmarks)
	noteOf := report.NoteOf
	if len(lanes) > 0 {
		noteOf = func(b record.Benchmark) string { return strings.Join(report.OwnNotes(b), "; ") }
	}
	for _, unit := range units {
		bs := groups[unit]
		notes := false
		for _, b := range bs {
			notes = notes || noteOf(b) != ""
		}
		header := "| Benchmark | Base | Head | Δ | p | Paired (head/base) | Class |"
		delim := "| :-- | --: | --: | --: | :-- | --: | :-- |"
		if notes {
			header += " Note |"
			delim += " :-- |"
		}
		t := &block{lines: []string{"#### " + text.Markdown(unit), "", header, delim}}
		for _, b := range bs {
			cells := []string{
				report.Cell(record.Qualified(b.Package, b.Name), 200), text.Markdown(report.Spread(unit, b.Base)), text.Markdown(report.Spread(unit,
					b.Head)), report.Delta(b, alpha), report.PValue(b),
				report.Paired(b.Paired) + report.RoundsOf(r.Method, b), classCell(b),
			}
			if notes {
				cells = append(cells, report.Cell(noteOf(b), 500))
			}
			t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: benchPrio(b.Class)})
		}
		if base, head, change, n, ok := report.GeomeanRow(r, unit); ok {
			cells := []string{"*geomean*", text.Markdown(base), text.Markdown(head), change,
				fmt.Sprintf("%d benchmarks", n), "", ""}
			if notes {
				cells = append(cells, "")
			}
			t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: benchPrio(record.ClassSlower)})
		}
		d.add(t)
	}
}

func mdDifferential(d *doc, r *record.Result) {
	d.collapsed("Differential: "+report.DiffSummary(r, text.Markdown, htmlBold), func() { mdDifferentialBody(d, r) })
}

func mdDifferentialBody(d *doc, r *record.Result) {
	df := r.Differential
	line := report.DiffSummary(r, text.Markdown, bold)
	if df.Status != "" {
		line += fmt.Sprintf(" · seed %#x", df.Seed)
	}
	if df.Reason != "" {
		line += " — " + report.Cell(df.Reason, 500)
	}
	d.para(line)
	if len(df.Ciphers) > 0 {
		t := &block{lines: []string{"| Constructor | Family | Key sizes | Vectors | Result | Digest |",
			"| :-- | :-- | :-- | --: | :-- | :-- |"}}
		for _, c := range df.Ciphers {
			prio := prioIdentical
			if c.Mismatches > 0 || c.InconsistentHead > 0 {
				prio = prioHigh
			}
			digest := digestCell(c.DigestBase)
			if c.DigestBase != c.DigestHead {
				digest = "base " + digest + " · head " + digestCell(c.DigestHead)
			}
			cells := []string{report.Cell(record.Qualified(c.Package, c.Name), 100), report.Cell(report.FamilyOf(c), 20), report.SizesCell(c), report.Vectors(c),
				report.CipherResult(c, bold), digest}
			t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: prio})
		}
		d.add(t)
	}
	if notes := report.CipherNotes(df, 20); len(notes) > 0 {
		lines := make([]string, len(notes))
		for i, n := range notes {
			lines[i] = "- " + report.Cell(n, 300)
		}
		d.para(lines...)
	}
	var only []string
	if len(df.Added) > 0 {
		only = append(only, "Only in head: "+names(df.Added))
	}
	if len(df.Removed) > 0 {
		only = append(only, "Only in base: "+names(df.Removed))
	}
	if len(only) > 0 {
		d.para(strings.Join(only, " · "))
	}
}

// digestCell shows the start of a hex digest as code; anything else the harness printed is escaped
// text.
func digestCell(s string) string {
	if report.IsHex(s) && s != "" {
		return text.CodeSpan(report.ShortHash(s))
	}
	return report.Cell(s, 13)
}

func names(ns []string) string {
	const most = 20
	s := make([]string, 0, min(len(ns), most))
	for _, n := range ns[:min(len(ns), most)] {
		s = append(s, report.Cell(n, 100))
	}
	out := strings.Join(s, ", ")
	if len(ns) > most {
		out += fmt.Sprintf(" and %d more", len(ns)-most)
	}
	return out
}

// mdMismatchesOpen shows the differential's mismatch and inconsistency examples expanded, under
// "What failed".
func mdMismatchesOpen(d *doc, df record.Differential) {
	if ex, n := report.MismatchText(df, 20); n > 0 {
		d.add(&block{lines: []string{"**Differential: " + text.PluralCommas(n, "mismatch example") +
			"** (base and head given the same input)", ""}, rows: []row{{text: text.Block(ex), prio: prioHigh}},
			what: "example list"})
	}
	if ex, n := report.InconsistencyText(df, 10); n > 0 {
		d.add(&block{lines: []string{"**A side disagrees with itself (" + text.PluralCommas(n, "example") + ")**", ""},
			rows: []row{{text: text.Block(ex), prio: prioHigh}}, what: "example list"})
	}
}

// details builds a collapsed section of the given drop rank around Markdown body.
func details(rank int, title, summary string, body ...string) *block {
	lines := []string{"<details>", "<summary>" + summary + "</summary>", ""}
	lines = append(lines, body...)
	lines = append(lines, "", "</details>")
	return &block{lines: lines, details: rank, title: title}
}

func mdSizes(d *doc, r *record.Result) {
	d.collapsed("Size: "+report.SizeSummary(r.Sizes, text.Markdown), func() {
		mdSizesBody(d, r)
		mdSymbols(d, r)
	})
}

func mdSizesBody(d *doc, r *record.Result) {
	s := r.Sizes
	if s.Error != "" {
		d.para("The size diff failed: " + report.Cell(s.Error, 500))
		return
	}
	if len(s.Sections) == 0 {
		d.para("Sizes were not measured.")
		return
	}
	if report.NoCode(s) {
		d.para("The package has no code of its own on either side: its functions are inlined into their callers.")
	}
	t := &block{lines: []string{"| Section | Base → head | Δ bytes | Δ% |", "| :-- | --: | --: | --: |"}}
	var base, head int64
	for _, sec := range s.Sections {
		base += sec.Base
		head += sec.Head
		t.rows = append(t.rows, row{text: sizeRow(report.Cell(record.Qualified(sec.Package, sec.Name), 60), sec.Base, sec.Head),
			prio: prioHigh})
	}
	t.rows = append(t.rows, row{text: sizeRow("**total**", base, head), prio: prioTop})
	d.add(t)
}

func sizeRow(name string, base, head int64) string {
	return "| " + name + " | " + text.Commas(base) + " → " + text.Commas(head) + " | " + report.BytesDelta(head-base) + " | " +
		report.SizePercent(base, head) + " |"
}

func mdMethod(d *doc, r *record.Result) {
	d.collapsed("Method and environment", func() {
		var rows []row
		if f := r.Functional; f.Base.Ran || f.Head.Ran {
			rows = append(rows, row{text: "- **Package tests:** base " + report.TestStatus(f.Base) + " · head " +
				report.TestStatus(f.Head), prio: prioTop})
		}
		for _, l := range report.MethodLines(r, text.Markdown) {
			rows = append(rows, row{text: "- **" + l[0] + ":** " + l[1], prio: prioTop})
		}
		for _, s := range slices.Concat(r.Notes, r.Verdict.Notes) {
			if report.IsMethodNote(s) {
				rows = append(rows, row{text: "- **Note:** " + report.Cell(s, 500), prio: prioHigh})
			}
		}
		d.add(&block{rows: rows, what: "item"})
	})
}

func mdFailures(d *doc, r *record.Result) {
	if len(r.Failures) == 0 {
		return
	}
	const most = 30
	b := &block{lines: []string{fmt.Sprintf("**Failed runs (%d)**", len(r.Failures)), ""}, what: "failure"}
	first := map[string]string{} // a message → the failure that showed it first
	for i, f := range r.Failures {
		if i == most {
			b.after = []string{"", fmt.Sprintf("_… %d more failures; the full list is in result.json._",
				len(r.Failures)-most)}
			break
		}
		name := report.Cell(record.Qualified(f.Package, f.Name), 200)
		head := fmt.Sprintf("%s — %s, round %d: %s", bold(name), report.Cell(string(f.Side), 20), f.Round,
			report.Cell(string(f.Kind), 40))
		// The same crash of several benchmarks (a tool's, say) is shown once.
		if earlier, ok := first[f.Message]; ok && f.Message != "" {
			b.rows = append(b.rows, row{text: head + ", the same output as " + earlier + "\n", prio: prioFailed})
			continue
		}
		first[f.Message] = name
		b.rows = append(b.rows, row{text: head + "\n\n" + text.Block(report.ClipHead(f.Message, 4000, 40)), prio: prioFailed})
	}
	d.add(b)
}

func mdTestOutput(d *doc, r *record.Result) {
	var body []string
	for _, side := range []struct {
		name string
		run  record.TestRun
	}{{"base", r.Functional.Base}, {"head", r.Functional.Head}} {
		if !side.run.Ran || side.run.Passed {
			continue
		}
		body = append(body, "**Package tests failed on "+side.name+"**; the end of their output:", "",
			text.Block(report.ClipTail(side.run.Output, 6000, 60)), "")
	}
	if len(body) == 0 {
		return
	}
	d.add(&block{rows: []row{{text: strings.Join(body[:len(body)-1], "\n"), prio: prioHigh}}, what: "test output"})
}

func mdSymbols(d *doc, r *record.Result) {
	syms := r.Sizes.Symbols
	if len(syms) == 0 {
		return
	}
	const most = 20
	shown := syms[:min(len(syms), most)]
	body := []string{"| Symbol | Section | Base → head | Δ |", "| :-- | :-- | --: | --: |"}
	for _, s := range shown {
		body = append(body, "| "+report.Cell(s.Name, 150)+" | "+report.Cell(s.Section, 40)+" | "+text.Commas(s.Base)+" → "+text.Commas(s.Head)+
			" | "+report.BytesDelta(s.Head-s.Base)+" |")
	}
	summary := fmt.Sprintf("Symbols that changed (%d)", len(syms))
	if len(syms) > most {
		summary = fmt.Sprintf("Symbols that changed (top %d of %d)", most, len(syms))
	}
	d.add(details(2, "symbols", summary, body...))
}

func mdRaw(d *doc, r *record.Result) {
	if len(r.Benchmarks) == 0 {
		return
	}
	var b strings.Builder
	report.RawTable(&b, r, false, true)
	d.add(details(1, "raw table", "benchstat-style table", text.Block(b.String())))
}

// laneLines are the benchmarks whose time and instruction-count lanes disagree, one Markdown list
// item each with the note that says how and which lane gates (record.Benchmark.MetricNote, set on
// the sec/op row and the instructions/op row alike), escaped and clipped.
func laneLines(bs []record.Benchmark) []row {
	// One line per note, naming every benchmark it is about: the same reason (valgrind hides a CPU
	// feature, say) is said once.
	var notes []string
	who := map[string][]string{}
	prio := map[string]int{}
	seen := map[string]bool{}
	for _, b := range bs {
		name := record.Qualified(b.Package, b.Name)
		if b.MetricNote == "" || seen[name] || !(b.Unit == record.UnitTime || b.Unit == record.UnitInstructions) {
			continue
		}
		seen[name] = true
		if _, ok := who[b.MetricNote]; !ok {
			notes = append(notes, b.MetricNote)
		}
		who[b.MetricNote] = append(who[b.MetricNote], name)
		prio[b.MetricNote] = max(prio[b.MetricNote], benchPrio(b.Class))
	}
	const most = 10
	var rows []row
	for _, n := range notes {
		var names []string
		for _, name := range who[n][:min(len(who[n]), most)] {
			names = append(names, text.CodeSpan(report.Clip(name, 200)))
		}
		list := strings.Join(names, ", ")
		if len(who[n]) > most {
			list += fmt.Sprintf(" and %d more", len(who[n])-most)
		}
		rows = append(rows, row{text: "- " + list + ": " + report.Cell(n, 300), prio: prio[n]})
	}
	return rows
}

// Marker is the hidden first line of every comment perfgate writes; with an author check it finds
// the sticky comment to edit.
const Marker = "<!-- perfgate:comment -->"

// MaxBody is GitHub's limit on the body of an issue comment, in characters.
const MaxBody = 65536

// bodyBudget is the length Markdown aims for, in bytes, leaving room below MaxBody for a caller's
// additions. Bytes are never fewer than characters, so a body within the budget is within GitHub's
// limit.
const bodyBudget = 60000

// defaultHint says where the full report lives when Options.ArtifactHint is empty.
const defaultHint = "the results directory (job artifacts)"

func hintOf(opt report.Options) string {
	if opt.ArtifactHint != "" {
		return text.Markdown(report.Clip(opt.ArtifactHint, 300))
	}
	return defaultHint
}
