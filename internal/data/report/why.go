package report

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/leaf/text"
	"github.com/perfgate/perfgate/record"
)

// The "why it changed" section: one short block per changed benchmark, nothing for the others. The
// comment shows the top whyLines lines by change of instructions per op, the compiler's decisions
// that differ and the CPU profile's top functions; report.html shows every attributed line and the
// annotated source.

// whyLines is how many lines, functions and profile rows the comment and the terminal show per
// benchmark.
const whyLines = 3

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
	s := esc(where) + " " + esc(fn) + " " + signedCount(l.Head-l.Base) + " " + esc(w.Unit)
	if !math.IsNaN(l.Share) && l.Share != 0 {
		s += " (" + signedPercent(l.Share) + ")"
	}
	return s
}

// replacedText words what replaced base-only code: "replaced: highwayhash.finalizeSSE4 (base only,
// 172) → highwayhash.finalizeAVX2 (head only, 81 instructions/op)".
func replacedText(w record.Why, esc func(string) string) string {
	r := w.Replaced
	return "replaced: " + esc(shortFunc(r.Func)) + " (base only, " + countText(r.Base) + ") → " +
		esc(shortFunc(r.By)) + " (head only, " + countText(r.Head) + " " + esc(w.Unit) + ")"
}

// signedCount writes a change of a count per op with its sign: whole numbers with thousands
// separators, others to 3 significant digits.
func signedCount(d float64) string {
	sign := "+"
	if d < 0 {
		sign, d = "−", -d
	}
	return sign + countText(d)
}

// signedPercent writes a share or change as a whole percentage with its sign when negative: "71%",
// "−7%".
func signedPercent(x float64) string {
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

// whyHeading is a benchmark's first line: its name, class and count change.
func whyHeading(w record.Why, esc func(string) string) string {
	s := esc(record.Qualified(w.Package, w.Name)) + " (" + esc(string(w.Class)) + ")"
	if w.Unit != "" && w.BaseCount > 0 {
		d := w.HeadCount - w.BaseCount
		s += fmt.Sprintf(" · %s %s → %s (%s, %+.1f%%)", esc(w.Unit), countText(w.BaseCount), countText(w.HeadCount),
			signedCount(d), 100*d/w.BaseCount)
	}
	return s
}

func countText(x float64) string {
	if r := math.Round(x); math.Abs(x-r) < 1e-9 || x >= 1000 {
		return text.Commas(int64(r))
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// whyItems are the short lines under a benchmark's heading, most telling first.
func whyItems(w record.Why, esc func(string) string) []string {
	var items []string
	for i, l := range w.Lines {
		if i == whyLines {
			break
		}
		items = append(items, whyLineText(w, l, esc))
		if i == 0 && w.Replaced != nil {
			items = append(items, replacedText(w, esc)) // what the top line's code gave way to
		}
	}
	for i, c := range w.Compiler {
		if i == whyLines {
			break
		}
		items = append(items, "compiler: "+esc(c))
	}
	for i, s := range w.Symbols {
		if i == whyLines {
			break
		}
		items = append(items, fmt.Sprintf("size: %s %s → %s B", esc(shortFunc(s.Name)), text.Commas(s.Base), text.Commas(s.Head)))
	}
	for i, p := range w.Profile {
		if i == whyLines {
			break
		}
		items = append(items, "profile: "+profileText(p, esc))
	}
	for _, n := range w.Notes {
		items = append(items, "note: "+esc(n))
	}
	return items
}

// mdWhy renders the section in the comment: a list per changed benchmark, its rows dropped (least
// important benchmark's first) when the comment would not fit; collapsed when the gate passed.
func mdWhy(d *doc, r *record.Result, opt Options) {
	if len(r.Why) == 0 {
		return
	}
	if !failing(r) { // a pass needs no explanation at first sight: collapsed, like the tables
		d.collapsed("Why it changed ("+text.PluralCommas(len(r.Why), "benchmark")+")", func() { mdWhyBody(d, r, opt) })
		return
	}
	d.para("### Why it changed")
	mdWhyBody(d, r, opt)
}

func mdWhyBody(d *doc, r *record.Result, opt Options) {
	esc := func(s string) string { return text.Markdown(clip(s, 200)) }
	for _, w := range r.Why {
		prio := prioFaster
		if w.Class == record.ClassSlower {
			prio = prioSlower
		}
		b := &block{lines: []string{bold(whyHeading(w, esc))}, what: "items"}
		for i, it := range whyItems(w, esc) {
			if i < len(w.Lines) && i < whyLines {
				it = linkLine(r, w, w.Lines[i], it, opt.RepoURL)
			}
			b.rows = append(b.rows, row{text: "- " + it, prio: prio})
		}
		d.add(b)
	}
}

// linkLine makes the "file:line" that starts line a link to that line at head's commit on GitHub,
// when repo (the repository's URL, "https://github.com/OWNER/NAME") is set, head is a commit (not a
// dirty working tree) and the line's file maps to a path in the repository; otherwise it returns
// line as it is.
func linkLine(r *record.Result, w record.Why, l record.WhyLine, line, repo string) string {
	if repo == "" || l.Line <= 0 || r.Head.Dirty || !isHex(r.Head.Commit) || len(r.Head.Commit) < 40 {
		return line
	}
	p, ok := repoPath(r, w, l.File)
	if !ok {
		return line
	}
	where := text.Markdown(path.Base(l.File)) + fmt.Sprintf(":%d", l.Line)
	rest, ok := strings.CutPrefix(line, where)
	if !ok {
		return line
	}
	u := strings.TrimSuffix(repo, "/") + "/blob/" + r.Head.Commit + "/" + escapePath(p) + fmt.Sprintf("#L%d", l.Line)
	return "[" + where + "](" + u + ")" + rest
}

// repoPath maps a file as the binaries name it (import path of its package, then its name) to its
// path in the repository, through the gated package's directory:
// "example.com/m/cipher/des/block.go" of the package ./cipher/des is cipher/des/block.go. A file
// outside the gated package, or a pattern of packages, has none.
func repoPath(r *record.Result, w record.Why, file string) (string, bool) {
	pkg := w.Package
	if pkg == "" {
		pkg = r.Package
	}
	if pkg == "" || strings.ContainsAny(pkg, ", ") || strings.Contains(pkg, "...") || !strings.HasPrefix(pkg, ".") {
		return "", false
	}
	rel := strings.TrimPrefix(path.Clean(pkg), "./")
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	dir, name := path.Dir(file), path.Base(file)
	switch {
	case w.Package == "" && r.ImportPath != "" && dir == r.ImportPath:
		return path.Join(rel, name), true
	case rel != "." && strings.HasSuffix(dir, "/"+rel):
		return path.Join(rel, name), true
	}
	return "", false
}

// escapePath escapes each element of a slash-separated path for a URL.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// textWhy renders the section for the terminal.
func textWhy(w io.Writer, r *record.Result) {
	if len(r.Why) == 0 {
		return
	}
	fmt.Fprintln(w, "\nwhy it changed:")
	for _, y := range r.Why {
		fmt.Fprintf(w, "  %s\n", whyHeading(y, text.Plain))
		for _, it := range whyItems(y, text.Plain) {
			fmt.Fprintf(w, "    %s\n", it)
		}
	}
}

// whyView is one benchmark's explanation in report.html: everything, and the annotated source.
type whyView struct {
	Heading string
	Items   []string
	Lines   []lineView
	Unit    string
	Funcs   []annotatedView
}

// lineView is one attributed line in report.html's table.
type lineView struct {
	File, Line, BaseLine, Func, Inlined, Base, Head, Delta string
}

type annotatedView struct {
	Func, File string
	Rows       []annotatedRow
}

type annotatedRow struct {
	Line, BaseLine string
	Text           string
	Base, Head     string
	Delta          string
	Class          string // "up", "down", "added", "removed" or ""
}

func newWhyViews(r *record.Result) []whyView {
	id := func(s string) string { return s }
	var vs []whyView
	for _, w := range r.Why {
		v := whyView{Heading: whyHeading(w, id), Items: whyItems(w, id), Unit: w.Unit}
		for _, l := range w.Lines {
			lv := lineView{File: l.File, Func: l.Func, Inlined: l.Inlined, Base: countCell(l.Base),
				Head: countCell(l.Head), Delta: signedCount(l.Head - l.Base)}
			if l.Line > 0 {
				lv.Line = fmt.Sprint(l.Line)
			}
			if l.BaseLine > 0 {
				lv.BaseLine = fmt.Sprint(l.BaseLine)
			}
			if !math.IsNaN(l.Share) && l.Share != 0 {
				lv.Delta += " (" + signedPercent(l.Share) + ")"
			}
			v.Lines = append(v.Lines, lv)
		}
		for _, a := range w.Annotated {
			av := annotatedView{Func: a.Func, File: a.File}
			for _, l := range a.Lines {
				row := annotatedRow{Text: l.Text, Base: countCell(l.Base), Head: countCell(l.Head)}
				if l.Line > 0 {
					row.Line = fmt.Sprint(l.Line)
				}
				if l.BaseLine > 0 {
					row.BaseLine = fmt.Sprint(l.BaseLine)
				}
				if dd := l.Head - l.Base; dd != 0 {
					row.Delta = signedCount(dd)
				}
				switch {
				case l.BaseLine == 0:
					row.Class = "added"
				case l.Line == 0:
					row.Class = "removed"
				case l.Head > l.Base:
					row.Class = "up"
				case l.Head < l.Base:
					row.Class = "down"
				}
				av.Rows = append(av.Rows, row)
			}
			v.Funcs = append(v.Funcs, av)
		}
		vs = append(vs, v)
	}
	return vs
}

func countCell(x float64) string {
	if x == 0 {
		return ""
	}
	return countText(x)
}
