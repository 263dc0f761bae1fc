package htmlreport

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/record"
)

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
		v := whyView{Heading: report.WhyHeading(w, id), Items: report.WhyItems(w, id), Unit: w.Unit}
		for _, l := range w.Lines {
			lv := lineView{File: l.File, Func: l.Func, Inlined: l.Inlined, Base: countCell(l.Base),
				Head: countCell(l.Head), Delta: report.SignedCount(l.Head - l.Base)}
			if l.Line > 0 {
				lv.Line = fmt.Sprint(l.Line)
			}
			if l.BaseLine > 0 {
				lv.BaseLine = fmt.Sprint(l.BaseLine)
			}
			if !math.IsNaN(l.Share) && l.Share != 0 {
				lv.Delta += " (" + report.SignedPercent(l.Share) + ")"
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
					row.Delta = report.SignedCount(dd)
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
	return report.CountText(x)
}
