package attribution

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Counts is what one side executed per benchmark operation, by code address: the instruction-count
// lane's per-address counts of the code under test.
type Counts map[uint64]float64

// Sources returns the text of a source file of one side, by the name the binary records for it; ok
// is false when the file is not in that side's tree (the standard library's, or a dependency's).
type Sources func(file string) (src []byte, ok bool)

// LineDelta is one source line's instructions per op on both sides. A line is the same on both
// sides when head's version of the file has it unchanged (lineMap): then Line and BaseLine are its
// numbers on each side, and they differ when edits above it moved it. A line changed or added in
// head has BaseLine 0; one only base has, Line 0.
type LineDelta struct {
	File     string // the source file, as the binaries record it
	Line     int    // head's line number, 0 when the line is base's only
	BaseLine int    // base's line number, 0 when the line is head's only
	// the function whose code the line's instructions are in (head's, else base's)
	Func       string
	Inlined    string  // the innermost function inlined there, "" when none
	Base, Head float64 // instructions per op
}

// Delta is head's instructions per op on the line minus base's.
func (d LineDelta) Delta() float64 { return d.Head - d.Base }

// FuncDelta is one function's instructions per op on both sides, inlined code counted in the
// function it was inlined into.
type FuncDelta struct {
	Func       string
	Base, Head float64
}

// Delta is head's instructions per op in the function minus base's.
func (d FuncDelta) Delta() float64 { return d.Head - d.Base }

// Attribution says where one benchmark's instruction count moved: the lines and functions whose
// counts changed, largest change first, the code under test before the rest (see rank).
type Attribution struct {
	Base, Head float64 // the benchmark's attributed instructions per op
	Lines      []LineDelta
	Funcs      []FuncDelta
	// Replaced is set when the change's top function, or the top line's, ran only in base (head
	// stopped running it): it is that function, and By is head's code that took its place.
	Replaced *Replacement
}

// Replacement is code base ran and head no longer does, and the code head runs instead: Base is the
// base-only function (Head 0), By the head-only function (Base 0) with the most instructions per
// op, ranked as the functions are.
type Replacement struct {
	Base, By FuncDelta
}

// Share is d's part of the benchmark's change (−1…1 and beyond when lines moved both ways), NaN
// when the benchmark's count did not change.
func (a Attribution) Share(delta float64) float64 {
	total := a.Head - a.Base
	if total == 0 {
		return math.NaN()
	}
	return delta / total
}

// lineKey identifies a source line across the two sides: the file and the line's number in base
// when head has it unchanged, else the side's own number (negative for head's).
type lineKey struct {
	file string
	line int
}

// Attribute compares the per-address counts of one benchmark on two builds: each address is located
// in its own binary (Locate), the counts are summed per source line and per function, and head's
// lines are matched to base's through the sources (lineMap), so that code moved by edits, and
// addresses that differ between the builds, still compare; a file neither side's sources have (the
// standard library's) keeps its line numbers. Lines whose counts are equal on both sides are left
// out; the rest rank by change, the code under test first (see weightTest).
func Attribute(base, head *Binary, bc, hc Counts, baseSrc, headSrc Sources) Attribution {
	var a Attribution
	lines := map[lineKey]*LineDelta{}
	funcs := map[string]*FuncDelta{}
	funcFile := map[string]string{} // function → the file of its own (not inlined) code
	maps := map[string][]int{}      // file → head line → base line
	mapped := func(file string, line int) int {
		m, ok := maps[file]
		if !ok {
			bs, bok := baseSrc(file)
			hs, hok := headSrc(file)
			if bok && hok {
				m = lineMap(bs, hs)
			}
			if !bok && !hok {
				// neither side's tree has the file (the standard library's, a dependency's): the
				// same
				m = []int{}
			}
			maps[file] = m
		}
		switch {
		case m != nil && len(m) == 0:
			return line // a file outside both trees is the same file on both sides
		case line > 0 && line < len(m):
			return m[line]
		}
		return 0
	}
	add := func(bin *Binary, counts Counts, isHead bool) {
		for addr, n := range counts {
			if n == 0 {
				continue
			}
			l := bin.Locate(addr)
			if l.Func == "" {
				continue
			}
			k := lineKey{l.File, l.Line}
			bl, hl := l.Line, 0
			if isHead {
				hl = l.Line
				bl = mapped(l.File, l.Line)
				k.line = bl
				if bl == 0 {
					k.line = -l.Line
				}
			}
			d := lines[k]
			if d == nil {
				d = &LineDelta{File: l.File, BaseLine: bl}
				lines[k] = d
			}
			if isHead {
				d.Line, d.Head = hl, d.Head+n
				d.Func, d.Inlined = l.Func, l.Inlined
				a.Head += n
			} else {
				d.Base += n
				if d.Func == "" {
					d.Func, d.Inlined = l.Func, l.Inlined
				}
				a.Base += n
			}
			if _, ok := funcFile[l.Func]; !ok || l.Inlined == "" && l.File != "" {
				funcFile[l.Func] = l.File
			}
			f := funcs[l.Func]
			if f == nil {
				f = &FuncDelta{Func: l.Func}
				funcs[l.Func] = f
			}
			if isHead {
				f.Head += n
			} else {
				f.Base += n
			}
		}
	}
	add(base, bc, false)
	add(head, hc, true)
	for _, d := range lines {
		if d.Delta() != 0 {
			a.Lines = append(a.Lines, *d)
		}
	}
	for _, f := range funcs {
		if f.Delta() != 0 {
			a.Funcs = append(a.Funcs, *f)
		}
	}
	weights := map[string]float64{}
	weight := func(file string) float64 {
		w, ok := weights[file]
		if !ok {
			_, bok := baseSrc(file)
			_, hok := headSrc(file)
			switch {
			case !bok && !hok:
				w = weightOutside
			case strings.HasSuffix(file, "_test.go"):
				w = weightTest
			default:
				w = 1
			}
			weights[file] = w
		}
		return w
	}
	lw := func(d LineDelta) float64 { return weight(d.File) * math.Abs(d.Delta()) }
	slices.SortFunc(a.Lines, func(x, y LineDelta) int {
		if c := cmp.Compare(lw(y), lw(x)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), cmp.Compare(x.BaseLine, y.BaseLine))
	})
	fw := func(f FuncDelta) float64 { return weight(funcFile[f.Func]) }
	slices.SortFunc(a.Funcs, func(x, y FuncDelta) int {
		if c := cmp.Compare(fw(y)*math.Abs(y.Delta()), fw(x)*math.Abs(x.Delta())); c != 0 {
			return c
		}
		return cmp.Compare(x.Func, y.Func)
	})
	a.Replaced = replacement(a, funcs)
	return a
}

// How the lines and functions rank: by |Delta| times the weight of the file their code is in, so
// that the code under test comes first when its change is of the size of the rest's. A file of the
// module under test (one either side's Sources has) weighs 1; its test files (_test.go: the
// benchmark's own loop and setup, whose counts move with how the setup is spread over b.N)
// weightTest; a file outside the module (the testing package's, the runtime's, a dependency's)
// weightOutside. A function weighs what the file of its own (not inlined) code weighs. The weights
// only order: every line keeps its counts and share, and none is dropped.
//
// Outside code is not simply ranked after the module's: when a change makes the code under test
// allocate, the runtime's mallocgc is where most of the instructions went, and it stays the top
// function unless the module's own change is more than a quarter of its size; while the module's
// line that allocates, whose own count moved a little, can still outrank the runtime's lines, over
// which mallocgc's change is spread.
const (
	weightTest    = 0.5
	weightOutside = 0.25
)

// replacement returns, when a's top function or the function of its top line ran only in base, that
// function and the head-only function that ranks first, as what took its place; nil otherwise.
func replacement(a Attribution, funcs map[string]*FuncDelta) *Replacement {
	var gone *FuncDelta
	switch {
	case len(a.Funcs) > 0 && a.Funcs[0].Head == 0:
		gone = &a.Funcs[0]
	case len(a.Lines) > 0 && funcs[a.Lines[0].Func] != nil && funcs[a.Lines[0].Func].Head == 0:
		gone = funcs[a.Lines[0].Func]
	default:
		return nil
	}
	// a.Funcs is ranked by weighted |Delta|, which for a head-only function is its weighted head
	// count.
	i := slices.IndexFunc(a.Funcs, func(f FuncDelta) bool { return f.Base == 0 && f.Head > 0 })
	if i < 0 {
		return nil
	}
	by := &a.Funcs[i]
	return &Replacement{Base: *gone, By: *by}
}
