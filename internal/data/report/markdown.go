package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/leaf/text"
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
func Markdown(r *record.Result, opt Options) string {
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
		d.para("<sub>Full results: " + text.Markdown(clip(opt.ArtifactHint, 300)) + "</sub>")
	}
	return d.fit(bodyBudget)
}

func bold(s string) string { return "**" + s + "**" }

// htmlBold is bold inside HTML, such as a <summary>, where GitHub does not read Markdown's ** (s is
// escaped text).
func htmlBold(s string) string { return "<strong>" + s + "</strong>" }

// verdictLine is the line a maintainer reads first.
func verdictLine(r *record.Result) string {
	return "**perfgate: " + statusWord(r) + "** — " + strings.Join(verdictParts(r, text.Markdown, bold), " · ")
}

func mdHeader(d *doc, r *record.Result, opt Options) {
	lines := []string{Marker}
	if opt.Title != "" {
		lines = append(lines, "### "+text.Markdown(clip(opt.Title, 200)), "")
	}
	d.para(append(lines, verdictLine(r))...)

	pkg := r.Package
	if pkg == "" {
		pkg = r.ImportPath
	}
	line := "base: " + revision(r.Base, text.Markdown) + " → head: " + revision(r.Head, text.Markdown)
	if pkg != "" {
		line = text.CodeSpan(clip(pkg, 200)) + text.Markdown(scope(r)) + " · " + line
	}
	d.para(line)

	list := &block{what: "item"}
	for _, s := range r.Verdict.Reasons {
		list.rows = append(list.rows, row{text: "- " + cell(s, 500), prio: prioTop})
	}
	if ack := acknowledgedLine(r.Verdict.Acknowledged); ack != "" {
		list.rows = append(list.rows, row{text: "- " + ack, prio: prioTop})
	}
	if l := policyLine(r, text.Markdown); l != "" {
		list.rows = append(list.rows, row{text: "- Policy: " + l, prio: prioTop})
	}
	for _, s := range readingNotes(r) {
		list.rows = append(list.rows, row{text: "- Note: " + cell(s, 500), prio: prioHigh})
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
	if reason := commonReason(ack); reason != "" {
		var names []string
		for _, a := range ack[:min(len(ack), most)] {
			name, _, _ := strings.Cut(a, ": ")
			names = append(names, cell(name, 100))
		}
		s := "Acknowledged " + cell(strings.TrimPrefix(reason, "acknowledged "), 200) + ": " + strings.Join(names, ", ")
		if len(ack) > most {
			s += fmt.Sprintf(" and %d more", len(ack)-most)
		}
		return s
	}
	var parts []string
	for _, a := range ack[:min(len(ack), most)] {
		parts = append(parts, cell(a, 200))
	}
	s := "Acknowledged: " + strings.Join(parts, "; ")
	if len(ack) > most {
		s += fmt.Sprintf("; and %d more", len(ack)-most)
	}
	return s
}

// methodNotes are the notes that say how the run was made but not how to read its numbers: they go
// to the method section, not under the verdict. Notes are the pipeline's prose (record has no codes
// for them), so this matches the sentences internal/pipeline writes; a note it does not know stays
// at the top, where a reader sees it.
var methodNotes = []string{
	// valgrind hides CPU features no binary uses: a no-op
	"but neither test binary has an instruction of them",
	// the forest says "same machine code"
	"run the same machine code on both sides: unchanged without timing",
}

// isMethodNote reports whether note belongs to the method section (methodNotes).
func isMethodNote(note string) bool {
	for _, m := range methodNotes {
		if strings.Contains(note, m) {
			return true
		}
	}
	return false
}

// readingNotes are the notes of r that change how its numbers read, shown under the verdict.
func readingNotes(r *record.Result) []string {
	var out []string
	for _, s := range slices.Concat(r.Notes, r.Verdict.Notes) {
		if !isMethodNote(s) {
			out = append(out, s)
		}
	}
	return out
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
			names = append(names, text.CodeSpan(clip(n, 100)))
		}
		line := "Unchanged (" + text.Commas(int64(len(same))) + "): " + strings.Join(names, ", ")
		if len(same) > most {
			line += fmt.Sprintf(" and %d more", len(same)-most)
		}
		d.para(line)
	}
	if open := inconclusiveLines(r, 10); len(open) > 0 {
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
	c := cell(string(b.Class), 40)
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
	alpha := alphaOf(r.Method)
	d.para(fmt.Sprintf("Base and head: median ± the larger half-width of its 95%% interval. Δ: change of the median, "+
		"“~” when not significant (Mann–Whitney U, p > %s). Paired: head/base from the A–B–B–A rounds, with its 95%% "+
		"interval.",
		strconv.FormatFloat(alpha, 'g', -1, 64)))
	units, groups, quiet := shownUnits(r.Benchmarks, r.Method.Metric)
	if len(quiet) > 0 {
		defer d.para(text.Markdown(strings.Join(quiet, ", ")) + ": unchanged in every benchmark.")
	}
	// Where the lanes disagree, mdChanged's lines say which gates and why; the tables leave it out.
	lanes := laneLines(r.Benchmarks)
	noteOf := noteOf
	if len(lanes) > 0 {
		noteOf = func(b record.Benchmark) string { return strings.Join(ownNotes(b), "; ") }
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
				cell(record.Qualified(b.Package, b.Name), 200), text.Markdown(spread(unit, b.Base)), text.Markdown(spread(unit,
					b.Head)), delta(b, alpha), pvalue(b),
				paired(b.Paired) + roundsOf(r.Method, b), classCell(b),
			}
			if notes {
				cells = append(cells, cell(noteOf(b), 500))
			}
			t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: benchPrio(b.Class)})
		}
		if base, head, change, n, ok := geomeanRow(r, unit); ok {
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
	d.collapsed("Differential: "+diffSummary(r, text.Markdown, htmlBold), func() { mdDifferentialBody(d, r) })
}

func mdDifferentialBody(d *doc, r *record.Result) {
	df := r.Differential
	line := diffSummary(r, text.Markdown, bold)
	if df.Status != "" {
		line += fmt.Sprintf(" · seed %#x", df.Seed)
	}
	if df.Reason != "" {
		line += " — " + cell(df.Reason, 500)
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
			cells := []string{cell(record.Qualified(c.Package, c.Name), 100), cell(familyOf(c), 20), sizesCell(c), vectors(c),
				cipherResult(c, bold), digest}
			t.rows = append(t.rows, row{text: "| " + strings.Join(cells, " | ") + " |", prio: prio})
		}
		d.add(t)
	}
	if notes := cipherNotes(df, 20); len(notes) > 0 {
		lines := make([]string, len(notes))
		for i, n := range notes {
			lines[i] = "- " + cell(n, 300)
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
	if isHex(s) && s != "" {
		return text.CodeSpan(shortHash(s))
	}
	return cell(s, 13)
}

func keySizes(ks []int) string { return record.SizeRanges(ks) }

// vectors is what one constructor was fed: "1,024 keys × 17 blocks" for a block cipher, "8 keys ×
// 52 lengths" for an AEAD, stream cipher or hash (per key size).
func vectors(c record.Cipher) string {
	if isBlock(c) {
		return text.PluralCommas(c.Keys, "key") + " × " + text.PluralCommas(c.Blocks, "block")
	}
	s := text.PluralCommas(c.Keys, "key") + ", " + text.PluralCommas(len(c.Lengths), "length")
	if c.Inputs > 0 {
		s += ", " + text.PluralCommas(c.Inputs, "message")
	}
	return s
}

// isBlock reports whether c is a block cipher's comparison; results from before families have no
// Family.
func isBlock(c record.Cipher) bool { return c.Family == record.FamilyBlock || c.Family == "" }

// familyOf is the constructor's family, "block" when the result predates families (untrusted: the
// caller escapes).
func familyOf(c record.Cipher) string {
	if c.Family == "" {
		return string(record.FamilyBlock)
	}
	return clip(string(c.Family), 20)
}

// sizesCell is the key sizes, and the nonce sizes of an AEAD or a stream cipher that takes one:
// "16, 32 · nonce 12".
func sizesCell(c record.Cipher) string {
	s := keySizes(c.KeySizes)
	if len(c.NonceSizes) > 0 {
		s += " · nonce " + keySizes(c.NonceSizes)
	}
	return s
}

// cipherResult is "identical", "3 mismatches", with head's inconsistencies added: "identical, head
// inconsistent on 2".
func cipherResult(c record.Cipher, strong func(string) string) string {
	result := "identical"
	switch {
	case c.Mismatches == 1:
		result = strong("1 mismatch")
	case c.Mismatches > 1:
		result = strong(text.Commas(int64(c.Mismatches)) + " mismatches")
	}
	if c.InconsistentHead > 0 {
		result += ", " + strong("head inconsistent on "+text.Commas(int64(c.InconsistentHead)))
	}
	if c.InconsistentBase > 0 {
		result += ", base inconsistent on " + text.Commas(int64(c.InconsistentBase))
	}
	return result
}

// cipherNotes are the constructors' notes, "NAME: NOTE", a note that several constructors share
// once with all their names ("New, New128: NOTE"), at most most of them (untrusted text: the caller
// escapes).
func cipherNotes(df record.Differential, most int) []string {
	var order []string
	who := map[string][]string{}
	for _, c := range df.Ciphers {
		for _, n := range c.Notes {
			if _, ok := who[n]; !ok {
				order = append(order, n)
			}
			who[n] = append(who[n], clip(record.Qualified(c.Package, c.Name), 100))
		}
	}
	var out []string
	for _, n := range order[:min(len(order), most)] {
		out = append(out, strings.Join(who[n], ", ")+": "+clip(n, 200))
	}
	if len(order) > most {
		out = append(out, "… "+text.PluralCommas(len(order)-most, "more note"))
	}
	return out
}

func names(ns []string) string {
	const most = 20
	s := make([]string, 0, min(len(ns), most))
	for _, n := range ns[:min(len(ns), most)] {
		s = append(s, cell(n, 100))
	}
	out := strings.Join(s, ", ")
	if len(ns) > most {
		out += fmt.Sprintf(" and %d more", len(ns)-most)
	}
	return out
}

// mismatchText lists mismatch examples as plain text, for a code block or the terminal.
func mismatchText(df record.Differential, most int) (string, int) {
	return exampleText(df, most, func(c record.Cipher) []record.Mismatch { return c.Examples }, writeMismatch)
}

// writeMismatch writes mismatch m of constructor c as lines of plain text.
func writeMismatch(b *strings.Builder, c record.Cipher, m record.Mismatch) {
	if m.Part != "" { // an AEAD, stream or hash message: say what differed
		fmt.Fprintf(b, "%s  key size %d  key %s  length %d  %s differs\n", text.Plain(clip(record.Qualified(c.Package,
			c.Name), 100)), m.KeySize,
			text.Plain(clip(m.Key.String(), 100)), m.Length, text.Plain(clip(m.Part, 40)))
		b.WriteString(messageDetails(m.Nonce, m.AD, m.Chunks))
		fmt.Fprintf(b, "  input %s\n  base  %s\n  head  %s\n", text.Plain(clip(m.Input.String(), 200)),
			text.Plain(clip(m.Base.String(), 200)), text.Plain(clip(m.Head.String(), 200)))
	} else {
		fmt.Fprintf(b, "%s  key size %d  key %s  block %d  %s via %s\n  input %s\n  base  %s\n  head  %s\n",
			text.Plain(clip(record.Qualified(c.Package, c.Name), 100)), m.KeySize, text.Plain(clip(m.Key.String(), 100)), m.Block,
			text.Plain(clip(m.Direction, 20)),
			text.Plain(clip(m.Method, 40)), text.Plain(clip(m.Input.String(), 200)), text.Plain(clip(m.Base.String(), 200)),
			text.Plain(clip(m.Head.String(), 200)))
	}
	if m.Note != "" { // a key one side accepts and the other rejects: the two outcomes
		fmt.Fprintf(b, "  note  %s\n", text.Plain(clip(m.Note, 300)))
	}
}

// messageDetails is the nonce, additional data and chunk sizes of a message, each when set, as
// indented lines.
func messageDetails(nonce, ad record.Hex, chunks []int) string {
	var b strings.Builder
	if len(nonce) > 0 {
		fmt.Fprintf(&b, "  nonce %s\n", text.Plain(clip(nonce.String(), 100)))
	}
	if len(ad) > 0 {
		fmt.Fprintf(&b, "  ad    %s\n", text.Plain(clip(ad.String(), 200)))
	}
	if len(chunks) > 0 {
		fmt.Fprintf(&b, "  chunks %s\n", clip(keySizes(chunks), 200))
	}
	return b.String()
}

// inconsistencyText lists the examples of a side disagreeing with itself as plain text: a batch
// method against the single-block method, or chunked writes, Open, Reset against the reference
// output.
func inconsistencyText(df record.Differential, most int) (string, int) {
	return exampleText(df, most, func(c record.Cipher) []record.Inconsistency { return c.Inconsistencies },
		writeInconsistency)
}

// writeInconsistency writes inconsistency in of constructor c as lines of plain text.
func writeInconsistency(b *strings.Builder, c record.Cipher, in record.Inconsistency) {
	if in.Part != "" {
		fmt.Fprintf(b, "%s  %s  key size %d  key %s  length %d  %s\n", text.Plain(clip(record.Qualified(c.Package, c.Name),
			100)),
			text.Plain(string(in.Side)), in.KeySize, text.Plain(clip(in.Key.String(), 100)), in.Length, text.Plain(clip(in.Part, 40)))
		b.WriteString(messageDetails(nil, nil, in.Chunks))
	} else {
		fmt.Fprintf(b, "%s  %s  key size %d  key %s  block %d  %s via %s\n", text.Plain(clip(record.Qualified(c.Package,
			c.Name), 100)),
			text.Plain(string(in.Side)), in.KeySize, text.Plain(clip(in.Key.String(), 100)), in.Block,
			text.Plain(clip(in.Direction, 20)), text.Plain(clip(in.Method, 40)))
	}
	fmt.Fprintf(b, "  input     %s\n  reference %s\n  other     %s\n", text.Plain(clip(in.Input.String(), 200)),
		text.Plain(clip(in.Single.String(), 200)), text.Plain(clip(in.Batch.String(), 200)))
	if in.Note != "" {
		fmt.Fprintf(b, "  note  %s\n", text.Plain(clip(in.Note, 300)))
	}
}

// exampleText writes the first most of the examples that of picks from each constructor of df with
// write, then how many more there are. It returns the text and the number of examples.
func exampleText[T any](df record.Differential, most int, of func(record.Cipher) []T,
	write func(*strings.Builder, record.Cipher, T)) (string, int) {
	var b strings.Builder
	n, total := 0, 0
	for _, c := range df.Ciphers {
		for _, x := range of(c) {
			total++
			if n == most {
				continue
			}
			n++
			write(&b, c, x)
		}
	}
	if total > n {
		fmt.Fprintf(&b, "… %d more examples\n", total-n)
	}
	return b.String(), total
}

// mdMismatchesOpen shows the differential's mismatch and inconsistency examples expanded, under
// "What failed".
func mdMismatchesOpen(d *doc, df record.Differential) {
	if ex, n := mismatchText(df, 20); n > 0 {
		d.add(&block{lines: []string{"**Differential: " + text.PluralCommas(n, "mismatch example") +
			"** (base and head given the same input)", ""}, rows: []row{{text: text.Block(ex), prio: prioHigh}},
			what: "example list"})
	}
	if ex, n := inconsistencyText(df, 10); n > 0 {
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
	d.collapsed("Size: "+sizeSummary(r.Sizes, text.Markdown), func() {
		mdSizesBody(d, r)
		mdSymbols(d, r)
	})
}

func mdSizesBody(d *doc, r *record.Result) {
	s := r.Sizes
	if s.Error != "" {
		d.para("The size diff failed: " + cell(s.Error, 500))
		return
	}
	if len(s.Sections) == 0 {
		d.para("Sizes were not measured.")
		return
	}
	if noCode(s) {
		d.para("The package has no code of its own on either side: its functions are inlined into their callers.")
	}
	t := &block{lines: []string{"| Section | Base → head | Δ bytes | Δ% |", "| :-- | --: | --: | --: |"}}
	var base, head int64
	for _, sec := range s.Sections {
		base += sec.Base
		head += sec.Head
		t.rows = append(t.rows, row{text: sizeRow(cell(record.Qualified(sec.Package, sec.Name), 60), sec.Base, sec.Head),
			prio: prioHigh})
	}
	t.rows = append(t.rows, row{text: sizeRow("**total**", base, head), prio: prioTop})
	d.add(t)
}

func sizeRow(name string, base, head int64) string {
	return "| " + name + " | " + text.Commas(base) + " → " + text.Commas(head) + " | " + bytesDelta(head-base) + " | " +
		sizePercent(base, head) + " |"
}

func mdMethod(d *doc, r *record.Result) {
	d.collapsed("Method and environment", func() {
		var rows []row
		if f := r.Functional; f.Base.Ran || f.Head.Ran {
			rows = append(rows, row{text: "- **Package tests:** base " + testStatus(f.Base) + " · head " +
				testStatus(f.Head), prio: prioTop})
		}
		for _, l := range methodLines(r, text.Markdown) {
			rows = append(rows, row{text: "- **" + l[0] + ":** " + l[1], prio: prioTop})
		}
		for _, s := range slices.Concat(r.Notes, r.Verdict.Notes) {
			if isMethodNote(s) {
				rows = append(rows, row{text: "- **Note:** " + cell(s, 500), prio: prioHigh})
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
		name := cell(record.Qualified(f.Package, f.Name), 200)
		head := fmt.Sprintf("%s — %s, round %d: %s", bold(name), cell(string(f.Side), 20), f.Round,
			cell(string(f.Kind), 40))
		// The same crash of several benchmarks (a tool's, say) is shown once.
		if earlier, ok := first[f.Message]; ok && f.Message != "" {
			b.rows = append(b.rows, row{text: head + ", the same output as " + earlier + "\n", prio: prioFailed})
			continue
		}
		first[f.Message] = name
		b.rows = append(b.rows, row{text: head + "\n\n" + text.Block(clipHead(f.Message, 4000, 40)), prio: prioFailed})
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
			text.Block(clipTail(side.run.Output, 6000, 60)), "")
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
		body = append(body, "| "+cell(s.Name, 150)+" | "+cell(s.Section, 40)+" | "+text.Commas(s.Base)+" → "+text.Commas(s.Head)+
			" | "+bytesDelta(s.Head-s.Base)+" |")
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
	rawTable(&b, r, false, true)
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
			names = append(names, text.CodeSpan(clip(name, 200)))
		}
		list := strings.Join(names, ", ")
		if len(who[n]) > most {
			list += fmt.Sprintf(" and %d more", len(who[n])-most)
		}
		rows = append(rows, row{text: "- " + list + ": " + cell(n, 300), prio: prio[n]})
	}
	return rows
}
