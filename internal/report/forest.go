package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// A forest plot shows, one line per gating benchmark, the paired head/base ratio as a point, its
// 95% interval as a bar, and the ±threshold band around 1×, so that a reader sees at a glance which
// benchmarks moved, how sure the run is, and how far from the threshold they are. The Markdown
// comment and the terminal draw it as monospace text (GitHub's Mermaid has bar and line charts but
// nothing that draws an interval); the HTML report draws the same forest as SVG. The scale is
// logarithmic, so that 0.5× and 2× lie equally far from 1×.
//
// This file decides what a forest holds (which benchmarks, in which order, on which scale) and
// draws it as text. It only places the pipeline's numbers on an axis; it computes no statistic.

// forestUnits are the units whose paired estimates gate, each plotted as its own forest: wall time,
// and the instruction counts of the instruction-count lane where it ran.
var forestUnits = []string{record.UnitTime, record.UnitInstructions}

// ForestMaxRows is how many benchmarks the Markdown and text forests show; the rest are counted.
const ForestMaxRows = 20

// A Forest is one unit's plot: the benchmarks it shows, slowest first, the scale, and what it left
// out.
type Forest struct {
	Unit      string
	Threshold float64 // the band's half-width as a fraction of 1: 0.02 for ±2%
	// slowest first; a row without a paired estimate (failed) comes first
	Rows []record.Benchmark
	rest map[record.Class]int // benchmarks not shown, by class
	Span float64              // the axis runs from 1/span to span (span > 1)
}

// NewForest builds the forest of unit from r, showing at most most benchmarks (all when most ≤ 0).
// It returns nil when no benchmark of unit was compared.
//
// When it must choose, it keeps the benchmarks that matter: failed, slower, inconclusive and faster
// ones, the largest effects first, and fills what room is left with unchanged ones.
func NewForest(r *record.Result, unit string, most int) *Forest {
	var all []record.Benchmark
	for _, b := range r.Benchmarks {
		if b.Unit != unit {
			continue
		}
		if b.Exact && b.Paired == nil && b.Class != record.ClassFailed && b.Base.Center > 0 {
			// An exact count has no interval: its point is head/base, the delta re-expressed as a
			// ratio.
			ratio := 1 + b.DeltaPct/100
			b.Paired = &record.Paired{Ratio: ratio, Lo: ratio, Hi: ratio}
		}
		all = append(all, b)
	}
	if len(all) == 0 {
		return nil
	}
	threshold := r.Method.Threshold
	if unit == record.UnitInstructions && r.Method.InstrThreshold > 0 {
		threshold = r.Method.InstrThreshold
	}
	f := &Forest{Unit: unit, Threshold: threshold / 100, rest: map[record.Class]int{}}
	shown := all
	if most > 0 && len(all) > most {
		shown = slices.Clone(all)
		slices.SortStableFunc(shown, func(a, b record.Benchmark) int {
			if ra, rb := forestRank(a), forestRank(b); ra != rb {
				return rb - ra
			}
			return compareFloat(effect(b), effect(a))
		})
		for _, b := range shown[most:] {
			f.rest[b.Class]++
		}
		shown = shown[:most]
	}
	f.Rows = slices.Clone(shown)
	slices.SortStableFunc(f.Rows, func(a, b record.Benchmark) int {
		switch {
		case a.Paired == nil && b.Paired == nil:
			return 0
		case a.Paired == nil:
			return -1
		case b.Paired == nil:
			return 1
		}
		return compareFloat(b.Paired.Ratio, a.Paired.Ratio)
	})
	f.Span = f.scale()
	return f
}

// forestRank orders classes by how much a reader needs to see them in the forest.
func forestRank(b record.Benchmark) int {
	switch b.Class {
	case record.ClassFailed:
		return 4
	case record.ClassSlower:
		return 3
	case record.ClassInconclusive:
		return 2
	case record.ClassFaster:
		return 1
	}
	return 0
}

// effect is the size of a benchmark's change on the plot's scale, |log ratio|; 0 without an
// estimate.
func effect(b record.Benchmark) float64 {
	if b.Paired == nil || !(b.Paired.Ratio > 0) {
		return 0
	}
	return math.Abs(math.Log(b.Paired.Ratio))
}

// compareFloat orders a and b; unlike cmp.Compare, it takes a NaN as equal to every number.
func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Spans are the axis ends the forest chooses from: the axis runs from 1/s to s.
var Spans = []float64{1.01, 1.02, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, 100, 1000}

// scale chooses the axis: wide enough for every point and twice the threshold band, and for the
// intervals as far as twice that; an interval that reaches further is drawn clipped, so that one
// wild interval cannot squeeze the others into a single column.
func (f *Forest) scale() float64 {
	need := 0.0
	if f.Threshold > 0 && f.Threshold < 0.5 {
		need = max(math.Log1p(2*f.Threshold), -math.Log(1-2*f.Threshold))
	}
	reach := 0.0
	for _, b := range f.Rows {
		if b.Paired == nil {
			continue
		}
		for _, v := range []float64{b.Paired.Ratio} {
			if v > 0 && !math.IsInf(v, 0) {
				need = max(need, math.Abs(math.Log(v)))
			}
		}
		for _, v := range []float64{b.Paired.Lo, b.Paired.Hi} {
			if v > 0 && !math.IsInf(v, 0) {
				reach = max(reach, math.Abs(math.Log(v)))
			}
		}
	}
	want := max(need, min(reach, 2*need))
	for _, s := range Spans {
		if math.Log(s) >= want*1.02 {
			return s
		}
	}
	return Spans[len(Spans)-1]
}

// Pos maps a ratio to [0, 1] along the axis, clamped; ok is false when v lies outside the axis (or
// is not a positive number), in which direction telling by pos 0 or 1.
func (f *Forest) Pos(v float64) (p float64, ok bool) {
	if !(v > 0) || math.IsNaN(v) {
		return 0, false
	}
	l := math.Log(f.Span)
	p = (math.Log(v) + l) / (2 * l)
	switch {
	case p < 0:
		return 0, false
	case p > 1:
		return 1, false
	}
	return p, true
}

// RatioLabel formats an axis ratio: "0.5×", "0.67×", "1×", "1.5×".
func RatioLabel(v float64) string {
	switch {
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64) + "×"
	case v < 0.1:
		return strconv.FormatFloat(v, 'g', 2, 64) + "×"
	}
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
	return s + "×"
}

// restNote counts the benchmarks a forest left out: "… 12 more: 11 unchanged, 1 faster".
func (f *Forest) restNote() string {
	n := 0
	for _, c := range f.rest {
		n += c
	}
	if n == 0 {
		return ""
	}
	var parts []string
	for _, c := range []record.Class{record.ClassFailed, record.ClassSlower, record.ClassInconclusive,
		record.ClassFaster, record.ClassUnchanged} {
		if f.rest[c] > 0 {
			parts = append(parts, plural0(f.rest[c], string(c)))
		}
	}
	return fmt.Sprintf("… %s more not shown (%s); every benchmark is in the tables", text.Commas(int64(n)),
		strings.Join(parts, ", "))
}

// glyphs are the characters a text forest is drawn with.
type glyphs struct {
	band, zero, line, lo, hi, point, cross string
	left, right                            string // an interval clipped at the axis end
	axis, tick                             string
}

var (
	unicodeGlyphs = glyphs{band: "░", zero: "│", line: "─", lo: "├", hi: "┤", point: "●", cross: "┼",
		left: "◄", right: "►", axis: "─", tick: "┬"}
	asciiGlyphs = glyphs{band: ".", zero: "|", line: "-", lo: "[", hi: "]", point: "o", cross: "+",
		left: "<", right: ">", axis: "-", tick: "+"}
)

// forestWidth is the number of columns of a text forest's axis; odd, so that 1× has a column of its
// own.
const forestWidth = 41

// ForestText draws f as monospace lines, without a trailing newline. uni picks Unicode box drawing
// over ASCII; color paints slower and failed benchmarks red and faster green with ANSI escapes.
// Benchmark names go through plain: the caller fences or prints the lines.
func ForestText(f *Forest, uni, color bool) []string {
	t := newTextForest(f, uni, color)
	out := t.header()
	for i, b := range f.Rows {
		out = append(out, t.row(t.names[i], b))
	}
	faster, slower := t.g.left+" faster", "slower "+t.g.right
	out = append(out, t.pad("", t.nameW)+"  "+
		strings.Repeat(" ", forestZero-1-utf8.RuneCountInString(faster))+faster+"   "+slower)
	if note := f.restNote(); note != "" {
		out = append(out, note)
	}
	for _, b := range f.Rows {
		if b.Acknowledged {
			out = append(out, "* acknowledged: does not fail the gate")
			break
		}
	}
	return out
}

// forestZero is the column of 1× on a text forest's axis.
const forestZero = forestWidth / 2

// textForest is what forestText draws one forest with: its glyphs, the columns of the threshold
// band and the column of benchmark names.
type textForest struct {
	f          *Forest
	g          glyphs
	uni, color bool
	band       []bool   // the columns whose span overlaps [1−t, 1+t]
	names      []string // the rows' names, as printed
	nameW      int      // the width of the name column
}

func newTextForest(f *Forest, uni, color bool) *textForest {
	t := &textForest{f: f, g: asciiGlyphs, uni: uni, color: color, nameW: len("benchmark")}
	if uni {
		t.g = unicodeGlyphs
	}
	t.names = make([]string, len(f.Rows))
	for i, b := range f.Rows {
		t.names[i] = text.Plain(Clip(record.Qualified(b.Package, b.Name), 40))
		t.nameW = max(t.nameW, utf8.RuneCountInString(t.names[i]))
	}
	// The band: the columns whose span overlaps [1−t, 1+t]; 1× always has its column.
	const w = forestWidth
	t.band = make([]bool, w)
	if f.Threshold > 0 && f.Threshold < 1 {
		lo, _ := f.Pos(1 - f.Threshold)
		hi, _ := f.Pos(1 + f.Threshold)
		for c := range w {
			if float64(c+1)/w > lo && float64(c)/w < hi {
				t.band[c] = true
			}
		}
	}
	return t
}

// ascii is s in the forest's glyphs: × becomes x in ASCII. Names stay as they are.
func (t *textForest) ascii(s string) string {
	if t.uni {
		return s
	}
	return strings.ReplaceAll(s, "×", "x")
}

// pad fills s with spaces to n columns.
func (t *textForest) pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}

// header is the forest's title, its axis labels and its ruler.
func (t *textForest) header() []string {
	f, g := t.f, t.g
	const w = forestWidth
	// Axis labels at both ends and at 1×; the band's edges are in the legend.
	axis := []rune(strings.Repeat(" ", w+8))
	put := func(at int, s string) {
		r := []rune(s)
		at = max(0, min(at, len(axis)-len(r)))
		copy(axis[at:], r)
	}
	put(0, RatioLabel(1/f.Span))
	put(forestZero, "1×")
	put(w-len([]rune(RatioLabel(f.Span))), RatioLabel(f.Span))

	title := fmt.Sprintf("%s, head/base: %s ratio %s%s%s 95%% paired interval", text.Plain(f.Unit), g.point, g.lo, g.line, g.hi)
	if f.Threshold > 0 {
		th := "±" + strconv.FormatFloat(f.Threshold*100, 'f', -1, 64)
		if !t.uni {
			th = "+/-" + th[len("±"):]
		}
		if t.band[forestZero-1] || t.band[forestZero+1] {
			title += fmt.Sprintf(" %s %s%% threshold", g.band, th)
		} else {
			title += t.ascii(fmt.Sprintf(" (%s%% threshold: inside the 1× column)", th))
		}
	}
	ruler := make([]string, w)
	for c := range ruler {
		ruler[c] = g.axis
	}
	ruler[0], ruler[forestZero], ruler[w-1] = g.tick, g.tick, g.tick
	return []string{
		title + "; log scale",
		t.pad("", t.nameW) + "  " + t.ascii(strings.TrimRight(string(axis), " ")),
		t.pad("", t.nameW) + "  " + strings.Join(ruler, ""),
	}
}

// row is benchmark b's line: its name, its mark on the axis, its class and its interval in words.
func (t *textForest) row(name string, b record.Benchmark) string {
	g := t.g
	col := func(p float64) int { return min(forestWidth-1, int(p*forestWidth)) }
	cells := make([]string, forestWidth)
	for c := range cells {
		switch {
		case c == forestZero:
			cells[c] = g.zero
		case t.band[c]:
			cells[c] = g.band
		default:
			cells[c] = " "
		}
	}
	first, last := -1, -1 // the columns the mark covers, for colour
	right := ""
	if p := b.Paired; p != nil {
		lo, lok := t.f.Pos(p.Lo)
		hi, hok := t.f.Pos(p.Hi)
		pt, _ := t.f.Pos(p.Ratio)
		a, z := col(lo), col(hi)
		for c := a; c <= z; c++ {
			cells[c] = g.line
			if c == forestZero {
				cells[c] = g.cross
			}
		}
		if a < z {
			cells[a], cells[z] = g.lo, g.hi
		}
		if !lok {
			cells[a] = g.left
		}
		if !hok {
			cells[z] = g.right
		}
		cells[col(pt)] = g.point
		first, last = a, z
		right = t.ascii(Paired(p))
	} else {
		right = NoPaired(b)
	}
	line := strings.Join(cells, "")
	if first >= 0 {
		line = strings.Join(cells[:first], "") + paintClass(t.color, b.Class, strings.Join(cells[first:last+1], "")) +
			strings.Join(cells[last+1:], "")
	}
	class := text.Plain(string(b.Class))
	if b.Acknowledged {
		class += "*"
	}
	return t.pad(name, t.nameW) + "  " + line + "  " + paintClass(t.color, b.Class, t.pad(class, 13)) + " " + right
}

// paintClass colours s by class: slower and failed red, faster green.
func paintClass(on bool, class record.Class, s string) string {
	switch class {
	case record.ClassSlower, record.ClassFailed:
		return paint(on, red, s)
	case record.ClassFaster:
		return paint(on, green, s)
	}
	return s
}

// Forests returns the forests of r's gating units, in forestUnits order.
func Forests(r *record.Result, most int) []*Forest {
	var fs []*Forest
	for _, u := range forestUnits {
		if f := NewForest(r, u, most); f != nil {
			fs = append(fs, f)
		}
	}
	return fs
}
