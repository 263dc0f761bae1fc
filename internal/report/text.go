package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// ANSI colours, used only when Options.Color is set.
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	boldOn = "\x1b[1m"
	reset  = "\x1b[0m"
)

// paint wraps s in an ANSI colour when on.
func paint(on bool, color, s string) string {
	if !on || s == "" {
		return s
	}
	return color + s + reset
}

// classPaint colours a class word: slower and failed red, faster green.
func classPaint(on bool, class record.Class) string {
	switch class {
	case record.ClassSlower, record.ClassFailed:
		return paint(on, red, string(class))
	case record.ClassFaster:
		return paint(on, green, string(class))
	}
	return string(class)
}

// RawTable writes the benchmarks in benchstat's layout, one aligned table per unit: center ±
// interval per side, the median's change with the Mann–Whitney p and the sample counts, the paired
// estimate with its Holm-corrected p, and the class. The class is the last column so that its
// colour escapes never disturb the alignment.
//
// With all unset, rows of units other than sec/op whose class is unchanged are left out
// (shownUnits).
func RawTable(w io.Writer, r *record.Result, color, all bool) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	alpha := AlphaOf(r.Method)
	units, groups := byUnit(r.Benchmarks)
	var quiet []string
	if !all {
		units, groups, quiet = ShownUnits(r.Benchmarks, r.Method.Metric)
	}
	for i, unit := range units {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s\tbase\thead\tΔ\tpaired (head/base)\tclass\n", text.Plain(unit))
		for _, b := range groups[unit] {
			d := Delta(b, alpha) + " (" + PValue(b) + ")"
			class := classPaint(color, record.Class(text.Plain(string(b.Class))))
			if b.Acknowledged {
				class += " (acknowledged)"
			}
			if b.RuledOut {
				class += " (not blocking)"
			}
			if note := NoteOf(b); note != "" {
				class += "  " + text.Plain(Clip(note, 400))
			}
			pr := Paired(b.Paired)
			if b.Paired != nil && !math.IsNaN(b.PHolm) {
				pr += fmt.Sprintf(" (p=%.3f Holm)", b.PHolm)
			}
			pr += RoundsOf(r.Method, b)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", text.Plain(Clip(record.Qualified(b.Package, b.Name), 120)),
				text.Plain(Spread(unit, b.Base)), text.Plain(Spread(unit, b.Head)),
				d, pr, class)
		}
		if base, head, change, n, ok := GeomeanRow(r, unit); ok {
			fmt.Fprintf(tw, "geomean\t%s\t%s\t%s (%d benchmarks)\t\t\n", text.Plain(base), text.Plain(head), change, n)
		}
	}
	if len(quiet) > 0 {
		fmt.Fprintf(tw, "\n%s: unchanged in every benchmark\n", text.Plain(strings.Join(quiet, ", ")))
	}
	tw.Flush()
}

// Text writes r for a terminal: the verdict line, the reasons, aligned tables of benchmarks,
// ciphers and sections, the method and environment, then failures and failed test output. Colour
// only when opt.Color is set.
func Text(w io.Writer, r *record.Result, opt Options) error {
	if r == nil {
		return fmt.Errorf("rendering text: no result")
	}
	bw := bufio.NewWriter(w)
	c := opt.Color
	strong := func(s string) string { return paint(c, red, s) }
	if opt.Title != "" {
		fmt.Fprintln(bw, paint(c, boldOn, text.Plain(opt.Title)))
	}
	status := StatusWord(r)
	switch r.Verdict.Status {
	case record.StatusPass:
		status = paint(c, green, status)
	default:
		status = paint(c, red, status)
	}
	fmt.Fprintf(bw, "perfgate: %s — %s\n", status, strings.Join(VerdictParts(r, text.Plain, strong), " · "))
	pkg := r.Package
	if pkg == "" {
		pkg = r.ImportPath
	}
	fmt.Fprintf(bw, "%s%s · base: %s → head: %s\n", text.Plain(pkg), text.Plain(Scope(r)), Revision(r.Base, text.Plain),
		Revision(r.Head, text.Plain))
	for _, s := range r.Verdict.Reasons {
		fmt.Fprintf(bw, "  - %s\n", text.Plain(s))
	}
	for _, s := range r.Verdict.Acknowledged {
		fmt.Fprintf(bw, "  - acknowledged: %s\n", text.Plain(s))
	}
	if l := PolicyLine(r, text.Plain); l != "" {
		fmt.Fprintf(bw, "  - policy: %s\n", l)
	}
	for _, s := range ReadingNotes(r) {
		fmt.Fprintf(bw, "  - note: %s\n", text.Plain(s))
	}

	fmt.Fprintln(bw)
	if len(r.Benchmarks) == 0 {
		fmt.Fprintln(bw, "no benchmarks were compared")
	} else {
		for _, f := range Forests(r, ForestMaxRows) {
			fmt.Fprintf(bw, "%s\n\n", strings.Join(ForestText(f, opt.Unicode, c), "\n"))
		}
		RawTable(bw, r, c, false)
		for _, l := range InconclusiveLines(r, 10) {
			fmt.Fprintf(bw, "inconclusive: %s\n", text.Plain(strings.ReplaceAll(l, "`", "")))
		}
	}
	textWhy(bw, r)
	if f := r.Functional; f.Base.Ran || f.Head.Ran {
		fmt.Fprintf(bw, "\npackage tests: base %s, head %s\n", TestStatus(f.Base), TestStatus(f.Head))
	}
	textDifferential(bw, r, strong)
	textConstantTime(bw, r)
	textSizes(bw, r.Sizes)

	fmt.Fprintln(bw)
	for _, l := range MethodLines(r, text.Plain) {
		fmt.Fprintf(bw, "%s: %s\n", strings.ToLower(l[0]), l[1])
	}
	for _, s := range slices.Concat(r.Notes, r.Verdict.Notes) {
		if IsMethodNote(s) {
			fmt.Fprintf(bw, "note: %s\n", text.Plain(s))
		}
	}
	textFailures(bw, r)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("rendering text: %w", err)
	}
	return nil
}

func textDifferential(w io.Writer, r *record.Result, strong func(string) string) {
	df := r.Differential
	fmt.Fprintf(w, "\ndifferential: %s", DiffSummary(r, text.Plain, strong))
	if df.Status != "" {
		fmt.Fprintf(w, ", seed %#x", df.Seed)
	}
	if df.Reason != "" {
		fmt.Fprintf(w, " — %s", text.Plain(df.Reason))
	}
	fmt.Fprintln(w)
	if len(df.Ciphers) > 0 {
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "constructor\tfamily\tkey sizes\tvectors\tdigest base\tdigest head\tresult")
		for _, c := range df.Ciphers {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", text.Plain(Clip(record.Qualified(c.Package, c.Name), 100)),
				text.Plain(FamilyOf(c)), SizesCell(c),
				Vectors(c), text.Plain(ShortHash(c.DigestBase)), text.Plain(ShortHash(c.DigestHead)), CipherResult(c, strong))
		}
		tw.Flush()
	}
	for _, n := range CipherNotes(df, 20) {
		fmt.Fprintf(w, "note: %s\n", text.Plain(n))
	}
	if len(df.Added) > 0 {
		fmt.Fprintf(w, "only in head: %s\n", text.Plain(strings.Join(df.Added, ", ")))
	}
	if len(df.Removed) > 0 {
		fmt.Fprintf(w, "only in base: %s\n", text.Plain(strings.Join(df.Removed, ", ")))
	}
	if text, n := MismatchText(df, 10); n > 0 {
		fmt.Fprintf(w, "mismatch examples:\n%s", indent(text, "  "))
	}
	if text, n := InconsistencyText(df, 10); n > 0 {
		fmt.Fprintf(w, "inconsistencies (a side disagrees with itself):\n%s", indent(text, "  "))
	}
}

func textSizes(w io.Writer, s record.Sizes) {
	fmt.Fprintf(w, "\nsize: %s\n", SizeSummary(s, text.Plain))
	if s.Error != "" {
		fmt.Fprintf(w, "  %s\n", text.Plain(s.Error))
	}
	if len(s.Sections) == 0 {
		return
	}
	// Numbers align right; the names are padded to one width so that they still read left-aligned.
	width := len("section")
	for _, sec := range s.Sections {
		width = max(width, utf8.RuneCountInString(text.Plain(record.Qualified(sec.Package, sec.Name))))
	}
	name := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tbase\thead\tΔ bytes\tΔ%%\t\n", name("section"))
	var base, head int64
	for _, sec := range s.Sections {
		base += sec.Base
		head += sec.Head
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name(text.Plain(record.Qualified(sec.Package, sec.Name))), text.Commas(sec.Base),
			text.Commas(sec.Head),
			BytesDelta(sec.Head-sec.Base), SizePercent(sec.Base, sec.Head))
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name("total"), text.Commas(base), text.Commas(head), BytesDelta(head-base),
		SizePercent(base, head))
	tw.Flush()
}

func textFailures(w io.Writer, r *record.Result) {
	if len(r.Failures) > 0 {
		fmt.Fprintf(w, "\nfailures:\n")
		for _, f := range r.Failures {
			fmt.Fprintf(w, "  %s (%s, round %d, %s)\n", text.Plain(record.Qualified(f.Package, f.Name)), text.Plain(string(f.Side)),
				f.Round, text.Plain(string(f.Kind)))
			fmt.Fprint(w, indent(text.Lines(ClipHead(f.Message, 2000, 10)), "    "))
		}
	}
	for _, side := range []struct {
		name string
		run  record.TestRun
	}{{"base", r.Functional.Base}, {"head", r.Functional.Head}} {
		if side.run.Ran && !side.run.Passed {
			fmt.Fprintf(w, "\n%s test output (end):\n", side.name)
			fmt.Fprint(w, indent(text.Lines(ClipTail(side.run.Output, 4000, 30)), "    "))
		}
	}
}

// indent prefixes every line of s and ends it with a newline.
func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}
