package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/record"
)

// The SVG plots of report.html: the forest, and a timeline of one benchmark's samples per unit. Go
// computes every coordinate; the template only writes them out.

// The forest as SVG: a name column, the plot, and a column of class and ratio.
const (
	forestNameW = 230.0 // the name column, right-aligned against the plot
	forestPlotW = 360.0
	forestTextW = 330.0
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

func newSVGForest(f *report.Forest, anchors map[string]string) svgForest {
	x0 := forestNameW + 10
	s := svgForest{
		Unit:    f.Unit,
		Width:   forestNameW + 10 + forestPlotW + 20 + forestTextW,
		Height:  forestTop + float64(len(f.Rows))*forestRowH + forestFoot,
		X0:      x0,
		X1:      x0 + forestPlotW,
		PlotTop: forestTop - 6,
		TextX:   x0 + forestPlotW + 20,
	}
	s.PlotBottom = forestTop + float64(len(f.Rows))*forestRowH + 4
	x := func(v float64) (float64, bool) {
		p, ok := f.Pos(v)
		return x0 + p*forestPlotW, ok
	}
	s.ZeroX, _ = x(1)
	if f.Threshold > 0 && f.Threshold < 1 {
		lo, _ := x(1 - f.Threshold)
		hi, _ := x(1 + f.Threshold)
		s.BandX, s.BandW = lo, max(hi-lo, 1)
		s.Threshold = "±" + strconv.FormatFloat(f.Threshold*100, 'f', -1, 64) + "%"
	}
	for _, v := range axisTicks(f.Span) {
		tx, _ := x(v)
		s.Ticks = append(s.Ticks, svgTick{X: tx, Label: report.RatioLabel(v)})
	}
	for i, b := range f.Rows {
		y := forestTop + (float64(i)+0.5)*forestRowH
		row := svgForestRow{
			Y: y, Name: report.Clip(record.Qualified(b.Package, b.Name), 34), Anchor: anchors[record.Qualified(b.Package, b.Name)],
			Class: string(b.Class), Acknowledged: b.Acknowledged,
			Text: report.NoPaired(b),
		}
		if p := b.Paired; p != nil {
			row.Mark = true
			row.X, _ = x(p.Ratio)
			var ok bool
			row.Lo, ok = x(p.Lo)
			row.ClipLo = !ok
			row.Hi, ok = x(p.Hi)
			row.ClipHi = !ok
			row.Text = report.Paired(p)
		}
		row.Tip = record.Qualified(b.Package, b.Name) + ": " + row.Text + ", " + string(b.Class)
		s.Rows = append(s.Rows, row)
	}
	return s
}

// axisTicks are the ratios labelled on an axis from 1/span to span: the ends, 1×, and one step
// between on each side when the axis is wide enough.
func axisTicks(span float64) []float64 {
	ticks := []float64{1 / span, 1, span}
	i := slices.Index(report.Spans, span)
	if i >= 2 {
		mid := report.Spans[i-2]
		if math.Log(mid) >= 0.3*math.Log(span) {
			ticks = append(ticks, 1/mid, mid)
		}
	}
	slices.Sort(ticks)
	return ticks
}

// sampleUnits lists the units of ss worth a timeline: time first, instructions next, then the rest
// by name. Throughput (B/s) is left out: it is the bytes per op divided by the time, and would
// repeat the time's picture.
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

// The timeline: one point per sample in run order, rounds shaded alternately, base and head each
// joined by a line so that drift shows, and each side's median as a dashed line.
const (
	tlW, tlH         = 470.0, 190.0
	tlLeft, tlRight  = 74.0, 10.0
	tlTop, tlBottom  = 12.0, 38.0
	tlSlotLabelsUpTo = 10 // rounds; beyond, the A B B A letters would crowd
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

// Room the round labels need, in the SVG's units: "round 12" at the label's font size, and a number
// alone.
const (
	roundLabelW  = 50.0
	roundNumberW = 22.0
)

// labelRounds shortens the rounds' labels so that they do not overlap in width: "round N" while
// each round has room for it, else the number alone, on every k-th round (the first, then 1+k, …)
// as their width requires.
func labelRounds(rounds []svgRound, width float64) {
	if len(rounds) == 0 || width/float64(len(rounds)) >= roundLabelW {
		return
	}
	every := int(math.Ceil(roundNumberW / (width / float64(len(rounds)))))
	for i := range rounds {
		rounds[i].Label = ""
		if i%every == 0 {
			rounds[i].Label = strconv.Itoa(i + 1)
		}
	}
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

// newTimeline draws unit's samples of one benchmark; ok is false when there is nothing to draw or
// every value is the same (a constant is a sentence, not a picture).
func newTimeline(ss []benchtxt.Sample, unit string, centers map[record.Side]float64) (t svgTimeline, ok bool) {
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
		t.YTicks = append(t.YTicks, svgTick{Y: y(v), Label: tickLabel(unit, v)})
	}
	var baseLine, headLine []string
	rounds := 0
	for i, p := range pts {
		x := t.X0 + (float64(i)+0.5)*dx
		if i == 0 || p.s.Round != pts[i-1].s.Round {
			t.Rounds = append(t.Rounds, svgRound{X: t.X0 + float64(i)*dx, Label: "round " + strconv.Itoa(p.s.Round+1),
				Shaded: len(t.Rounds)%2 == 1})
			rounds++
		}
		rd := &t.Rounds[len(t.Rounds)-1]
		rd.W = t.X0 + float64(i+1)*dx - rd.X
		rd.MidX = rd.X + rd.W/2
		slot := "A"
		if p.s.Side == record.Head {
			slot = "B"
		}
		tip := fmt.Sprintf("%s, round %d, slot %d (%s): %s", p.s.Side, p.s.Round+1, p.s.Slot+1, slot, report.Value(unit, p.v))
		t.Points = append(t.Points, svgPoint{X: x, Y: y(p.v), Side: string(p.s.Side), Slot: slot, Tip: tip})
		xy := px(x) + "," + px(y(p.v))
		if p.s.Side == record.Head {
			headLine = append(headLine, xy)
		} else {
			baseLine = append(baseLine, xy)
		}
	}
	t.BaseLine, t.HeadLine = strings.Join(baseLine, " "), strings.Join(headLine, " ")
	t.SlotLabels = rounds <= tlSlotLabelsUpTo
	labelRounds(t.Rounds, t.X1-t.X0)
	if c, ok := centers[record.Base]; ok && c >= lo && c <= hi {
		t.BaseMed = y(c)
	}
	if c, ok := centers[record.Head]; ok && c >= lo && c <= hi {
		t.HeadMed = y(c)
	}
	return t, true
}

// tickLabel formats an axis value: times and bytes with their units, anything else as a bare number
// (the unit is the plot's heading).
func tickLabel(unit string, v float64) string {
	switch unit {
	case "sec/op", "B/op", "B/s":
		return report.Value(unit, v)
	}
	return report.Sig4(v)
}
