package attribution

import (
	"cmp"
	"math"
	"slices"
)

// Counts is what one side executed per benchmark operation, by code address: the instruction-count lane's
// per-address counts of the code under test.
type Counts map[uint64]float64

// Sources returns the text of a source file of one side, by the name the binary records for it; ok is false
// when the file is not in that side's tree (the standard library's, or a dependency's).
type Sources func(file string) (src []byte, ok bool)

// LineDelta is one source line's instructions per op on both sides. A line is the same on both sides when head's
// version of the file has it unchanged (lineMap): then Line and BaseLine are its numbers on each side, and they
// differ when edits above it moved it. A line changed or added in head has BaseLine 0; one only base has, Line 0.
type LineDelta struct {
	File       string  // the source file, as the binaries record it
	Line       int     // head's line number, 0 when the line is base's only
	BaseLine   int     // base's line number, 0 when the line is head's only
	Func       string  // the function whose code the line's instructions are in (head's, else base's)
	Inlined    string  // the innermost function inlined there, "" when none
	Base, Head float64 // instructions per op
}

// Delta is head's instructions per op on the line minus base's.
func (d LineDelta) Delta() float64 { return d.Head - d.Base }

// FuncDelta is one function's instructions per op on both sides, inlined code counted in the function it was
// inlined into.
type FuncDelta struct {
	Func       string
	Base, Head float64
}

// Delta is head's instructions per op in the function minus base's.
func (d FuncDelta) Delta() float64 { return d.Head - d.Base }

// Attribution says where one benchmark's instruction count moved: the lines and functions whose counts changed,
// largest change first.
type Attribution struct {
	Base, Head float64 // the benchmark's attributed instructions per op
	Lines      []LineDelta
	Funcs      []FuncDelta
}

// Share is d's part of the benchmark's change (−1…1 and beyond when lines moved both ways), NaN when the
// benchmark's count did not change.
func (a Attribution) Share(delta float64) float64 {
	total := a.Head - a.Base
	if total == 0 {
		return math.NaN()
	}
	return delta / total
}

// lineKey identifies a source line across the two sides: the file and the line's number in base when head has it
// unchanged, else the side's own number (negative for head's).
type lineKey struct {
	file string
	line int
}

// Attribute compares the per-address counts of one benchmark on two builds: each address is located in its own
// binary (Locate), the counts are summed per source line and per function, and head's lines are matched to
// base's through the sources (lineMap), so that code moved by edits, and addresses that differ between the
// builds, still compare; a file neither side's sources have (the standard library's) keeps its line numbers.
// Lines whose counts are equal on both sides are left out.
func Attribute(base, head *Binary, bc, hc Counts, baseSrc, headSrc Sources) Attribution {
	var a Attribution
	lines := map[lineKey]*LineDelta{}
	funcs := map[string]*FuncDelta{}
	maps := map[string][]int{} // file → head line → base line
	mapped := func(file string, line int) int {
		m, ok := maps[file]
		if !ok {
			bs, bok := baseSrc(file)
			hs, hok := headSrc(file)
			if bok && hok {
				m = lineMap(bs, hs)
			}
			if !bok && !hok {
				m = []int{} // neither side's tree has the file (the standard library's, a dependency's): the same
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
	slices.SortFunc(a.Lines, func(x, y LineDelta) int {
		if c := cmp.Compare(math.Abs(y.Delta()), math.Abs(x.Delta())); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), cmp.Compare(x.BaseLine, y.BaseLine))
	})
	slices.SortFunc(a.Funcs, func(x, y FuncDelta) int {
		if c := cmp.Compare(math.Abs(y.Delta()), math.Abs(x.Delta())); c != 0 {
			return c
		}
		return cmp.Compare(x.Func, y.Func)
	})
	return a
}
