package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate"
	benchtxt "github.com/perfgate/perfgate/bench"
)

// HTML renders r as report.html: one self-contained page that opens offline. It holds the verdict, the forest plot
// of every gating benchmark, a timeline per benchmark of every sample in run order (samples, as read from bench.txt
// by bench.ReadBenchTxt; nil leaves the timelines out), size bars per section with the symbols that changed, the
// differential table with mismatch examples, and the method and environment.
//
// The page has inline CSS and inline SVG, no script, and a Content-Security-Policy that forbids loading anything,
// so opening it makes no request to any host. It is produced by html/template: every string, above all the ones
// that come from the pull request (benchmark names, panic messages, test output, commit subjects), is escaped, and
// control characters and bidirectional overrides are replaced.
func HTML(w io.Writer, r *perfgate.Result, samples []benchtxt.Sample, opt Options) error {
	if r == nil {
		return fmt.Errorf("rendering html: no result")
	}
	var b strings.Builder
	if err := htmlTemplate.Execute(&b, newPage(r, samples, opt)); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	// html/template escapes markup but leaves control characters and bidirectional overrides, which the page's
	// own text never has: they become U+FFFD, as in the other formats.
	if _, err := io.WriteString(w, plainLines(b.String())); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	return nil
}

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"px":  px,
	"add": func(a, b float64) float64 { return a + b },
	"sub": func(a, b float64) float64 { return a - b },
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
	Tests        string
	Diff         diffView
	Sizes        sizesView
	Method       [][2]string
	Failures     []perfgate.Failure
	TestOutputs  [][2]string // side, output
}

func newPage(r *perfgate.Result, samples []benchtxt.Sample, opt Options) page {
	id := func(s string) string { return s }
	p := page{
		Title:        opt.Title,
		Status:       r.Verdict.Status,
		StatusWord:   statusWord(r),
		Summary:      strings.Join(verdictParts(r, id, id), " · "),
		Package:      r.Package,
		Base:         revision(r.Base, id),
		Head:         revision(r.Head, id),
		Reasons:      r.Verdict.Reasons,
		Acknowledged: r.Verdict.Acknowledged,
		Notes:        r.Notes,
		Method:       methodLines(r, id),
		Failures:     r.Failures,
	}
	if p.Package == "" {
		p.Package = r.ImportPath
	}
	switch p.Status {
	case perfgate.StatusPass, perfgate.StatusFail:
	default:
		p.Status = perfgate.StatusError
	}
	anchors := benchAnchors(r.Benchmarks)
	for _, f := range forests(r, 0) {
		p.Forests = append(p.Forests, newSVGForest(f, anchors))
	}
	p.Benches = benchViews(r, samples, anchors)
	if f := r.Functional; f.Base.Ran || f.Head.Ran {
		p.Tests = "base " + testStatus(f.Base) + " · head " + testStatus(f.Head)
		for _, side := range []struct {
			name string
			run  perfgate.TestRun
		}{{"base", f.Base}, {"head", f.Head}} {
			if side.run.Ran && !side.run.Passed {
				p.TestOutputs = append(p.TestOutputs, [2]string{side.name, clipTail(side.run.Output, 20000, 300)})
			}
		}
	}
	p.Diff = newDiffView(r.Differential)
	p.Sizes = newSizesView(r.Sizes)
	return p
}

// benchAnchors gives every benchmark name an element id, "b0", "b1", … in order of first appearance; the names
// themselves are untrusted and never become ids.
func benchAnchors(bs []perfgate.Benchmark) map[string]string {
	ids := map[string]string{}
	for _, b := range bs {
		if _, ok := ids[b.Name]; !ok {
			ids[b.Name] = "b" + strconv.Itoa(len(ids))
		}
	}
	return ids
}

// The forest as SVG: a name column, the plot, and a column of class and ratio.
const (
	forestNameW = 230.0 // the name column, right-aligned against the plot
	forestPlotW = 360.0
	forestTextW = 300.0
	forestRowH  = 22.0
	forestTop   = 34.0
	forestFoot  = 30.0
)

type svgForest struct {
	Unit          string
	Threshold     string // "±2%"
	Width, Height float64
	X0, X1        float64 // the plot's left and right edge
	ZeroX         float64
	BandX, BandW  float64
	PlotTop       float64
	PlotBottom    float64
	TextX         float64
	Ticks         []svgTick
	Rows          []svgForestRow
}

type svgTick struct {
	X, Y  float64
	Label string
}

type svgForestRow struct {
	Y                 float64
	Name, Anchor      string
	Class             string
	Acknowledged      bool
	Text              string // "1.092× [1.081, 1.104]" or why there is no estimate
	Mark              bool
	X, Lo, Hi         float64
	ClipLo, ClipHi    bool
	Tip               string
	LabelY, TextClass string
}

func newSVGForest(f *forest, anchors map[string]string) svgForest {
	x0 := forestNameW + 10
	s := svgForest{
		Unit:    f.unit,
		Width:   forestNameW + 10 + forestPlotW + 20 + forestTextW,
		Height:  forestTop + float64(len(f.rows))*forestRowH + forestFoot,
		X0:      x0,
		X1:      x0 + forestPlotW,
		PlotTop: forestTop - 6,
		TextX:   x0 + forestPlotW + 20,
	}
	s.PlotBottom = forestTop + float64(len(f.rows))*forestRowH + 4
	x := func(v float64) (float64, bool) {
		p, ok := f.pos(v)
		return x0 + p*forestPlotW, ok
	}
	s.ZeroX, _ = x(1)
	if f.threshold > 0 && f.threshold < 1 {
		lo, _ := x(1 - f.threshold)
		hi, _ := x(1 + f.threshold)
		s.BandX, s.BandW = lo, max(hi-lo, 1)
		s.Threshold = "±" + strconv.FormatFloat(f.threshold*100, 'f', -1, 64) + "%"
	}
	for _, v := range axisTicks(f.span) {
		tx, _ := x(v)
		s.Ticks = append(s.Ticks, svgTick{X: tx, Label: ratioLabel(v)})
	}
	for i, b := range f.rows {
		y := forestTop + (float64(i)+0.5)*forestRowH
		row := svgForestRow{
			Y: y, Name: clip(b.Name, 60), Anchor: anchors[b.Name], Class: b.Class, Acknowledged: b.Acknowledged,
			Text: "no paired estimate",
		}
		if p := b.Paired; p != nil {
			row.Mark = true
			row.X, _ = x(p.Ratio)
			var ok bool
			row.Lo, ok = x(p.Lo)
			row.ClipLo = !ok
			row.Hi, ok = x(p.Hi)
			row.ClipHi = !ok
			row.Text = paired(p)
		}
		row.Tip = b.Name + ": " + row.Text + ", " + b.Class
		s.Rows = append(s.Rows, row)
	}
	return s
}

// axisTicks are the ratios labelled on an axis from 1/span to span: the ends, 1×, and one step between on each
// side when the axis is wide enough.
func axisTicks(span float64) []float64 {
	ticks := []float64{1 / span, 1, span}
	i := slices.Index(spans, span)
	if i >= 2 {
		mid := spans[i-2]
		if math.Log(mid) >= 0.3*math.Log(span) {
			ticks = append(ticks, 1/mid, mid)
		}
	}
	slices.Sort(ticks)
	return ticks
}

// benchView is one benchmark's section: its comparisons in every unit and the timelines of its samples.
type benchView struct {
	ID, Name  string
	Class     string // the class in the gated unit, for the heading
	Rows      []benchRow
	Timelines []svgTimeline
	Constant  []string // units whose every sample was equal, e.g. "allocs/op: 1 on both sides"
}

type benchRow struct {
	Unit, Base, Head, Delta, Paired, Class, Note string
	Acknowledged                                 bool
}

func benchViews(r *perfgate.Result, samples []benchtxt.Sample, anchors map[string]string) []benchView {
	alpha := alphaOf(r.Method)
	var views []benchView
	index := map[string]int{}
	for _, b := range r.Benchmarks {
		i, ok := index[b.Name]
		if !ok {
			i = len(views)
			index[b.Name] = i
			views = append(views, benchView{ID: anchors[b.Name], Name: b.Name})
		}
		v := &views[i]
		if b.Unit == perfgate.GatedUnit || v.Class == "" {
			v.Class = b.Class
		}
		v.Rows = append(v.Rows, benchRow{
			Unit: b.Unit, Base: spread(b.Unit, b.Base), Head: spread(b.Unit, b.Head),
			Delta: delta(b, alpha) + " (" + pvalue(b) + ")", Paired: paired(b.Paired), Class: b.Class,
			Note: b.Note, Acknowledged: b.Acknowledged,
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
			var centers map[benchtxt.Side]float64
			for _, b := range r.Benchmarks {
				if b.Name == v.Name && b.Unit == unit {
					centers = map[benchtxt.Side]float64{benchtxt.Base: b.Base.Center, benchtxt.Head: b.Head.Center}
				}
			}
			if t, ok := newTimeline(ss, unit, centers); ok {
				v.Timelines = append(v.Timelines, t)
			} else if val, ok := ss[0].Get(unit); ok {
				v.Constant = append(v.Constant, unit+": "+value(unit, val)+" in every sample")
			}
		}
	}
	return views
}

// sampleUnits lists the units of ss worth a timeline: time first, instructions next, then the rest by name.
// Throughput (B/s) is left out: it is the bytes per op divided by the time, and would repeat the time's picture.
func sampleUnits(ss []benchtxt.Sample) []string {
	seen := map[string]bool{}
	var units []string
	for _, s := range ss {
		for _, v := range s.Values {
			if !seen[v.Unit] && v.Unit != "B/s" {
				seen[v.Unit] = true
				units = append(units, v.Unit)
			}
		}
	}
	rank := func(u string) int {
		switch u {
		case "sec/op":
			return 0
		case "instructions/op":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(units, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return units
}

// The timeline: one point per sample in run order, rounds shaded alternately, base and head each joined by a line
// so that drift shows, and each side's median as a dashed line.
const (
	tlW, tlH          = 470.0, 190.0
	tlLeft, tlRight   = 74.0, 10.0
	tlTop, tlBottom   = 12.0, 38.0
	tlSlotLabelsUpTo  = 10 // rounds; beyond, the A B B A letters would crowd
	tlPointRadius     = 3.6
	tlHeadSquareInset = 3.2
)

type svgTimeline struct {
	Unit          string
	Width, Height float64
	X0, X1        float64
	Y0, Y1        float64 // the plot's top and bottom
	Rounds        []svgRound
	Points        []svgPoint
	BaseLine      string // polyline points
	HeadLine      string
	BaseMed       float64 // y of base's median; 0 when unknown
	HeadMed       float64
	YTicks        []svgTick
	SlotLabels    bool
}

type svgRound struct {
	X, W   float64
	Label  string
	Shaded bool
	MidX   float64
}

type svgPoint struct {
	X, Y float64
	Side string // "base" or "head"
	Slot string // "A" or "B"
	Tip  string
}

// newTimeline draws unit's samples of one benchmark; ok is false when there is nothing to draw or every value is
// the same (a constant is a sentence, not a picture).
func newTimeline(ss []benchtxt.Sample, unit string, centers map[benchtxt.Side]float64) (t svgTimeline, ok bool) {
	type pt struct {
		s benchtxt.Sample
		v float64
	}
	var pts []pt
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		if v, ok := s.Get(unit); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			pts = append(pts, pt{s, v})
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if len(pts) == 0 || lo == hi {
		return t, false
	}
	pad := (hi - lo) * 0.08
	lo, hi = lo-pad, hi+pad
	t = svgTimeline{Unit: unit, Width: tlW, Height: tlH, X0: tlLeft, X1: tlW - tlRight, Y0: tlTop, Y1: tlH - tlBottom}
	dx := (t.X1 - t.X0) / float64(len(pts))
	y := func(v float64) float64 { return t.Y1 - (v-lo)/(hi-lo)*(t.Y1-t.Y0) }
	for i := range 5 {
		v := lo + (hi-lo)*float64(i)/4
		t.YTicks = append(t.YTicks, svgTick{Y: y(v), Label: value(unit, v)})
	}
	var baseLine, headLine []string
	rounds := 0
	for i, p := range pts {
		x := t.X0 + (float64(i)+0.5)*dx
		if i == 0 || p.s.Round != pts[i-1].s.Round {
			t.Rounds = append(t.Rounds, svgRound{X: t.X0 + float64(i)*dx, Label: "round " + strconv.Itoa(p.s.Round+1), Shaded: len(t.Rounds)%2 == 1})
			rounds++
		}
		rd := &t.Rounds[len(t.Rounds)-1]
		rd.W = t.X0 + float64(i+1)*dx - rd.X
		rd.MidX = rd.X + rd.W/2
		slot := "A"
		if p.s.Side == benchtxt.Head {
			slot = "B"
		}
		tip := fmt.Sprintf("%s, round %d, slot %d (%s): %s", p.s.Side, p.s.Round+1, p.s.Slot+1, slot, value(unit, p.v))
		t.Points = append(t.Points, svgPoint{X: x, Y: y(p.v), Side: string(p.s.Side), Slot: slot, Tip: tip})
		xy := px(x) + "," + px(y(p.v))
		if p.s.Side == benchtxt.Head {
			headLine = append(headLine, xy)
		} else {
			baseLine = append(baseLine, xy)
		}
	}
	t.BaseLine, t.HeadLine = strings.Join(baseLine, " "), strings.Join(headLine, " ")
	t.SlotLabels = rounds <= tlSlotLabelsUpTo
	if c, ok := centers[benchtxt.Base]; ok && c >= lo && c <= hi {
		t.BaseMed = y(c)
	}
	if c, ok := centers[benchtxt.Head]; ok && c >= lo && c <= hi {
		t.HeadMed = y(c)
	}
	return t, true
}

// diffView is the differential section.
type diffView struct {
	Status   string // the status word, for a CSS class
	Summary  string
	Seed     string
	Reason   string
	Ciphers  []diffRow
	Added    string
	Removed  string
	Examples []mismatchView
	More     int
}

type diffRow struct {
	Name, KeySizes, Vectors, Result, DigestBase, DigestHead string
	Bad                                                     bool
}

type mismatchView struct {
	Cipher, Key, Direction, Method, Input string
	KeySize, Block                        int
	Base, Head                            []hexSeg
}

// hexSeg is a run of hex digits that agree (or differ) between base and head.
type hexSeg struct {
	Text string
	Diff bool
}

const mismatchExamplesShown = 20

func newDiffView(df perfgate.Differential) diffView {
	id := func(s string) string { return s }
	v := diffView{Status: df.Status, Summary: diffSummary(df, id, id), Reason: df.Reason}
	if df.Status != "" {
		v.Seed = fmt.Sprintf("%#x", df.Seed)
	}
	for _, c := range df.Ciphers {
		row := diffRow{Name: c.Name, KeySizes: keySizes(c.KeySizes), Vectors: vectors(c), Result: "identical",
			DigestBase: shortHash(c.DigestBase), DigestHead: shortHash(c.DigestHead)}
		if c.Mismatches > 0 {
			row.Bad = true
			row.Result = plural(c.Mismatches, "mismatch")
			if c.Mismatches > 1 {
				row.Result = commas(int64(c.Mismatches)) + " mismatches"
			}
		}
		v.Ciphers = append(v.Ciphers, row)
		for _, m := range c.Examples {
			if len(v.Examples) == mismatchExamplesShown {
				v.More++
				continue
			}
			b, h := hexDiff(m.Base, m.Head)
			v.Examples = append(v.Examples, mismatchView{
				Cipher: c.Name, Key: m.Key, Direction: m.Direction, Method: m.Method, Input: m.Input,
				KeySize: m.KeySize, Block: m.Block, Base: b, Head: h,
			})
		}
	}
	v.Added = strings.Join(df.Added, ", ")
	v.Removed = strings.Join(df.Removed, ", ")
	return v
}

// hexDiff splits two hex strings into runs that agree or differ, byte by byte (two digits at a time).
func hexDiff(a, b string) (as, bs []hexSeg) {
	seg := func(segs []hexSeg, s string, diff bool) []hexSeg {
		if n := len(segs); n > 0 && segs[n-1].Diff == diff {
			segs[n-1].Text += s
			return segs
		}
		return append(segs, hexSeg{Text: s, Diff: diff})
	}
	for i := 0; i < max(len(a), len(b)); i += 2 {
		pa, pb := part(a, i), part(b, i)
		as = seg(as, pa, pa != pb)
		bs = seg(bs, pb, pa != pb)
	}
	return as, bs
}

// part returns s[i:i+2], shortened at the end of s.
func part(s string, i int) string {
	if i >= len(s) {
		return ""
	}
	return s[i:min(i+2, len(s))]
}

// sizesView is the size section: a pair of bars per section and the symbols that changed.
type sizesView struct {
	Error      string
	Measured   bool
	Sections   []sectionBar
	Zero       string // sections empty on both sides
	Total      sectionBar
	Symbols    []symbolRow
	MoreSyms   int
	SymbolMaxW float64
}

type sectionBar struct {
	Name                 string
	Base, Head           string
	BaseW, HeadW         float64 // percent of the widest section
	Delta, Percent, Kind string  // Kind: grew, shrank or same
}

type symbolRow struct {
	Name, Section, Base, Head, Delta string
	Kind                             string
	W                                float64 // percent of the largest change
}

const symbolsShown = 25

func newSizesView(s perfgate.Sizes) sizesView {
	v := sizesView{Error: s.Error, Measured: len(s.Sections) > 0}
	kind := func(d int64) string {
		switch {
		case d > 0:
			return "grew"
		case d < 0:
			return "shrank"
		}
		return "same"
	}
	var widest, base, head int64
	for _, sec := range s.Sections {
		widest = max(widest, sec.Base, sec.Head)
		base += sec.Base
		head += sec.Head
	}
	var zero []string
	for _, sec := range s.Sections {
		if sec.Base == 0 && sec.Head == 0 {
			zero = append(zero, sec.Name)
			continue
		}
		v.Sections = append(v.Sections, sectionBar{
			Name: sec.Name, Base: commas(sec.Base) + " B", Head: commas(sec.Head) + " B",
			BaseW: share(sec.Base, widest), HeadW: share(sec.Head, widest),
			Delta: bytesDelta(sec.Head - sec.Base), Percent: sizePercent(sec.Base, sec.Head), Kind: kind(sec.Head - sec.Base),
		})
	}
	v.Zero = strings.Join(zero, ", ")
	v.Total = sectionBar{Name: "total", Base: commas(base) + " B", Head: commas(head) + " B",
		Delta: bytesDelta(head - base), Percent: sizePercent(base, head), Kind: kind(head - base)}
	var largest int64
	for _, sym := range s.Symbols[:min(len(s.Symbols), symbolsShown)] {
		largest = max(largest, abs64(sym.Head-sym.Base))
	}
	for i, sym := range s.Symbols {
		if i == symbolsShown {
			v.MoreSyms = len(s.Symbols) - symbolsShown
			break
		}
		d := sym.Head - sym.Base
		v.Symbols = append(v.Symbols, symbolRow{Name: sym.Name, Section: sym.Section, Base: commas(sym.Base),
			Head: commas(sym.Head), Delta: bytesDelta(d), Kind: kind(d), W: share(abs64(d), largest)})
	}
	return v
}

// share is n as a percentage of of, for a bar's CSS width.
func share(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*1000) / 10
}
