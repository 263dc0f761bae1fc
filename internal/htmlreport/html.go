// Package htmlreport renders a perfgate.Result as report.html: a self-contained page that also
// draws every sample of bench.txt, with the forest plot of package report drawn as SVG
// (htmlplot.go).
package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// HTML renders r as report.html: one self-contained page that opens offline. It holds the verdict,
// the forest plot of every gating benchmark, a timeline per benchmark of every sample in run order
// (samples, as read from bench.txt by benchtxt.ReadBenchTxt; nil leaves the timelines out), size
// bars per section with the symbols that changed, the differential table with mismatch examples,
// and the method and environment.
//
// The page has inline CSS and inline SVG, no script, and a Content-Security-Policy that forbids
// loading anything, so opening it makes no request to any host. It is produced by html/template:
// every string, above all the ones that come from the pull request (benchmark names, panic
// messages, test output, commit subjects), is escaped, and control characters and bidirectional
// overrides are replaced.
func HTML(w io.Writer, r *record.Result, samples []benchtxt.Sample, opt report.Options) error {
	if r == nil {
		return fmt.Errorf("rendering html: no result")
	}
	var b strings.Builder
	if err := htmlTemplate.Execute(&b, newPage(r, samples, opt)); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	// html/template escapes markup but leaves control characters and bidirectional overrides, which
	// the page's own text never has: they become U+FFFD, as in the other formats.
	if _, err := io.WriteString(w, text.Lines(b.String())); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	return nil
}

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"px":   px,
	"join": strings.Join,
	"add":  func(a, b float64) float64 { return a + b },
	"sub":  func(a, b float64) float64 { return a - b },
}).Parse(htmlSource))

// px formats an SVG coordinate with one decimal.
func px(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// page is what the template renders; every string in it is plain text for html/template to escape.
type page struct {
	Title        string
	Status       string // pass, fail or error: the banner's CSS class
	StatusWord   string // "PASS", "FAIL (incomplete)"
	Summary      string
	Package      string
	Base, Head   string
	Reasons      []string
	Acknowledged []string
	Notes        []string
	Forests      []svgForest
	Benches      []benchView
	Geomeans     [][5]string // per unit: unit, base, head, change, benchmarks
	Tests        string
	Diff         diffView
	CT           *ctView // nil when the constant-time check was off
	Why          []whyView
	Sizes        sizesView
	Method       [][2]string
	Failures     []record.Failure
	TestOutputs  [][2]string // side, output
}

func newPage(r *record.Result, samples []benchtxt.Sample, opt report.Options) page {
	id := func(s string) string { return s }
	p := page{
		Title:        opt.Title,
		Status:       string(r.Verdict.Status),
		StatusWord:   report.StatusWord(r),
		Summary:      strings.Join(report.VerdictParts(r, id, id), " · "),
		Package:      r.Package,
		Base:         report.Revision(r.Base, id),
		Head:         report.Revision(r.Head, id),
		Reasons:      r.Verdict.Reasons,
		Acknowledged: r.Verdict.Acknowledged,
		Notes:        slices.Clone(r.Notes),
		Method:       report.MethodLines(r, id),
		Failures:     r.Failures,
	}
	if p.Package == "" {
		p.Package = r.ImportPath
	}
	if l := report.PolicyLine(r, id); l != "" {
		p.Notes = append([]string{"Policy: " + l}, p.Notes...)
	}
	switch p.Status {
	case string(record.StatusPass), string(record.StatusFail), string(record.StatusInconclusive):
	default:
		p.Status = string(record.StatusError)
	}
	anchors := benchAnchors(r.Benchmarks)
	for _, f := range report.Forests(r, 0) {
		p.Forests = append(p.Forests, newSVGForest(f, anchors))
	}
	p.Benches = benchViews(r, samples, anchors)
	for _, g := range r.Geomeans {
		if base, head, change, n, ok := report.GeomeanRow(r, g.Unit); ok {
			p.Geomeans = append(p.Geomeans, [5]string{g.Unit, base, head, change, strconv.Itoa(n)})
		}
	}
	if f := r.Functional; f.Base.Ran || f.Head.Ran {
		p.Tests = "base " + report.TestStatus(f.Base) + " · head " + report.TestStatus(f.Head)
		for _, side := range []struct {
			name string
			run  record.TestRun
		}{{"base", f.Base}, {"head", f.Head}} {
			if side.run.Ran && !side.run.Passed {
				p.TestOutputs = append(p.TestOutputs, [2]string{side.name, report.ClipTail(side.run.Output, 20000, 300)})
			}
		}
	}
	p.Diff = newDiffView(r)
	p.CT = newCTView(r.ConstantTime)
	p.Why = newWhyViews(r)
	p.Sizes = newSizesView(r.Sizes)
	return p
}

// benchAnchors gives every benchmark name an element id, "b0", "b1", … in order of first
// appearance; the names themselves are untrusted and never become ids.
func benchAnchors(bs []record.Benchmark) map[string]string {
	ids := map[string]string{}
	for _, b := range bs {
		if name := record.Qualified(b.Package, b.Name); ids[name] == "" {
			ids[name] = "b" + strconv.Itoa(len(ids))
		}
	}
	return ids
}

// benchView is one benchmark's section: its comparisons in every unit and the timelines of its
// samples.
type benchView struct {
	ID, Name  string
	Class     string // the class in the gated unit, for the heading
	Rows      []benchRow
	Timelines []svgTimeline
	Constant  []string // units whose every sample was equal, with the value: "allocs/op 1"
}

type benchRow struct {
	Unit, Base, Head, Delta, Paired, Class, Note string
	Acknowledged                                 bool
}

func benchViews(r *record.Result, samples []benchtxt.Sample, anchors map[string]string) []benchView {
	alpha := report.AlphaOf(r.Method)
	var views []benchView
	index := map[string]int{}
	for _, b := range r.Benchmarks {
		name := record.Qualified(b.Package, b.Name)
		i, ok := index[name]
		if !ok {
			i = len(views)
			index[name] = i
			views = append(views, benchView{ID: anchors[name], Name: name})
		}
		v := &views[i]
		if gate.IsLaneUnit(r.Method.Metric, b.Unit) && (v.Class == "" ||
			report.ClassRank[b.Class] > report.ClassRank[record.Class(v.Class)]) || v.Class == "" {
			v.Class = string(b.Class)
		}
		v.Rows = append(v.Rows, benchRow{
			Unit: b.Unit, Base: report.Spread(b.Unit, b.Base), Head: report.Spread(b.Unit, b.Head),
			Delta: report.Delta(b, alpha) + " (" + report.PValue(b) + ")", Paired: report.Paired(b.Paired), Class: string(b.Class),
			Note: report.NoteOf(b), Acknowledged: b.Acknowledged,
		})
	}
	byName := map[string][]benchtxt.Sample{}
	for _, s := range samples {
		byName[s.Name] = append(byName[s.Name], s)
	}
	for i := range views {
		v := &views[i]
		ss := byName[v.Name]
		for _, unit := range sampleUnits(ss) {
			var centers map[record.Side]float64
			for _, b := range r.Benchmarks {
				if record.Qualified(b.Package, b.Name) == v.Name && b.Unit == unit {
					centers = map[record.Side]float64{record.Base: b.Base.Center, record.Head: b.Head.Center}
				}
			}
			if t, ok := newTimeline(ss, unit, centers); ok {
				v.Timelines = append(v.Timelines, t)
			} else if val, ok := ss[0].Get(unit); ok {
				v.Constant = append(v.Constant, unit+" "+report.Value(unit, val))
			}
		}
	}
	return views
}
