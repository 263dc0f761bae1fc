package report

import (
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// The "why it changed" section: one short block per changed benchmark, nothing for the others. The
// comment shows the top whyLines lines by change of instructions per op, the compiler's decisions
// that differ and the CPU profile's top functions; report.html shows every attributed line and the
// annotated source.

// WhyLines is how many lines, functions and profile rows the comment and the terminal show per
// benchmark.
const WhyLines = 3

// shortFunc drops a function name's import path but keeps its package name:
// "example.com/xtea.(*Cipher).Encrypt" becomes "xtea.(*Cipher).Encrypt".
func shortFunc(fn string) string {
	// The import path is what comes before the last slash that precedes any receiver or type
	// argument list (a type argument may have a path of its own).
	prefix := fn
	if i := strings.IndexAny(fn, "(["); i >= 0 {
		prefix = fn[:i]
	}
	return fn[strings.LastIndexByte(prefix, '/')+1:]
}

// whyLineText words one line of the attribution: "xtea.go:53 xtea.(*Cipher).Encrypt +96
// instructions/op (71%)".
func whyLineText(w record.Why, l record.WhyLine, esc func(string) string) string {
	where := path.Base(l.File)
	switch {
	case l.Line > 0:
		where += fmt.Sprintf(":%d", l.Line)
	default:
		where += fmt.Sprintf(":%d (base; removed)", l.BaseLine)
	}
	fn := shortFunc(l.Func)
	if l.Inlined != "" {
		fn = shortFunc(l.Inlined) + " inlined into " + fn
	}
	s := esc(where) + " " + esc(fn) + " " + SignedCount(l.Head-l.Base) + " " + esc(w.Unit)
	if !math.IsNaN(l.Share) && l.Share != 0 {
		s += " (" + SignedPercent(l.Share) + ")"
	}
	return s
}

// replacedText words what replaced base-only code: "replaced: highwayhash.finalizeSSE4 (base only,
// 172) → highwayhash.finalizeAVX2 (head only, 81 instructions/op)".
func replacedText(w record.Why, esc func(string) string) string {
	r := w.Replaced
	return "replaced: " + esc(shortFunc(r.Func)) + " (base only, " + CountText(r.Base) + ") → " +
		esc(shortFunc(r.By)) + " (head only, " + CountText(r.Head) + " " + esc(w.Unit) + ")"
}

// SignedCount writes a change of a count per op with its sign: whole numbers with thousands
// separators, others to 3 significant digits.
func SignedCount(d float64) string {
	sign := "+"
	if d < 0 {
		sign, d = "−", -d
	}
	return sign + CountText(d)
}

// SignedPercent writes a share or change as a whole percentage with its sign when negative: "71%",
// "−7%".
func SignedPercent(x float64) string {
	if x < 0 {
		return fmt.Sprintf("−%.0f%%", -100*x)
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// profileText words one row of the CPU profile diff: "runtime.mallocgc +150ns/op flat, +150ns/op
// cum".
func profileText(p record.WhyProfile, esc func(string) string) string {
	return esc(shortFunc(p.Func)) + " " + signedDuration(p.HeadFlat-p.BaseFlat) + "/op flat, " +
		signedDuration(p.HeadCum-p.BaseCum) + "/op cumulative"
}

func signedDuration(sec float64) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "−", -sec
	}
	switch {
	case sec >= 1e-3:
		return fmt.Sprintf("%s%.3gms", sign, sec*1e3)
	case sec >= 1e-6:
		return fmt.Sprintf("%s%.3gµs", sign, sec*1e6)
	default:
		return fmt.Sprintf("%s%.3gns", sign, sec*1e9)
	}
}

// WhyHeading is a benchmark's first line: its name, class and count change.
func WhyHeading(w record.Why, esc func(string) string) string {
	s := esc(record.Qualified(w.Package, w.Name)) + " (" + esc(string(w.Class)) + ")"
	if w.Unit != "" && w.BaseCount > 0 {
		d := w.HeadCount - w.BaseCount
		s += fmt.Sprintf(" · %s %s → %s (%s, %+.1f%%)", esc(w.Unit), CountText(w.BaseCount), CountText(w.HeadCount),
			SignedCount(d), 100*d/w.BaseCount)
	}
	return s
}

func CountText(x float64) string {
	if r := math.Round(x); math.Abs(x-r) < 1e-9 || x >= 1000 {
		return text.Commas(int64(r))
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// WhyItems are the short lines under a benchmark's heading, most telling first.
func WhyItems(w record.Why, esc func(string) string) []string {
	var items []string
	for i, l := range w.Lines {
		if i == WhyLines {
			break
		}
		items = append(items, whyLineText(w, l, esc))
		if i == 0 && w.Replaced != nil {
			items = append(items, replacedText(w, esc)) // what the top line's code gave way to
		}
	}
	for i, c := range w.Compiler {
		if i == WhyLines {
			break
		}
		items = append(items, "compiler: "+esc(c))
	}
	for i, s := range w.Symbols {
		if i == WhyLines {
			break
		}
		items = append(items, fmt.Sprintf("size: %s %s → %s B", esc(shortFunc(s.Name)), text.Commas(s.Base), text.Commas(s.Head)))
	}
	for i, p := range w.Profile {
		if i == WhyLines {
			break
		}
		items = append(items, "profile: "+profileText(p, esc))
	}
	for _, n := range w.Notes {
		items = append(items, "note: "+esc(n))
	}
	return items
}

// textWhy renders the section for the terminal.
func textWhy(w io.Writer, r *record.Result) {
	if len(r.Why) == 0 {
		return
	}
	fmt.Fprintln(w, "\nwhy it changed:")
	if same := SameSourceText(r, text.Plain); same != "" {
		fmt.Fprintf(w, "  %s\n", same)
	}
	for _, y := range r.Why {
		fmt.Fprintf(w, "  %s\n", WhyHeading(y, text.Plain))
		for _, it := range WhyItems(y, text.Plain) {
			fmt.Fprintf(w, "    %s\n", it)
		}
	}
}
