package attribution

import (
	"errors"
	"fmt"
	"strings"
)

// Annotated is one function's source with both sides' instructions per op on each line: head's
// lines in order, with the lines only base has interleaved where they stood.
type Annotated struct {
	Func string // the function's symbol, as Loc.Func names it
	File string // its source file, as the binaries record it
	Rows []Row
}

// Row is one line of an Annotated function.
type Row struct {
	Line     int    // head's line number, 0 for a line only base has
	BaseLine int    // base's, 0 for a line only head has
	Text     string // head's text (base's for a line only base has), without the newline
	Base     float64
	Head     float64
}

// DeclName is the name a function's declaration has in its source, as the compiler's diagnostics
// name it: the symbol "example.com/xtea.(*Cipher).Encrypt" is "(*Cipher).Encrypt". Closures and
// generic instances keep their suffixes ("F.func1", "F[...]").
func DeclName(symbol string) string {
	prefix := symbol
	if i := strings.IndexAny(symbol, "(["); i >= 0 {
		prefix = symbol[:i]
	}
	rest := symbol[strings.LastIndexByte(prefix, '/')+1:]
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		return rest[i+1:]
	}
	return rest
}

// Annotate returns the source of the function fn (a symbol, as Loc.Func names it) with each line's
// instructions per op on both sides: every address whose line table row falls within the function's
// declaration counts on that line, whichever function's code holds it, so that a function inlined
// on one side and called on the other reads alike. The declaration is found in head's source (in
// base's when head has none), in the file that holds fn's own code.
func Annotate(base, head *Binary, bc, hc Counts, baseSrc, headSrc Sources, fn string) (Annotated, error) {
	an := Annotated{Func: fn}
	name := DeclName(fn)
	fileOf := func(bin *Binary, counts Counts) string {
		for addr := range counts {
			if l := bin.Locate(addr); l.File != "" && (l.Func == fn && l.Inlined == "" || l.Inlined == fn) {
				return l.File
			}
		}
		return ""
	}
	an.File = fileOf(head, hc)
	if an.File == "" {
		an.File = fileOf(base, bc)
	}
	if an.File == "" {
		return an, fmt.Errorf("no counted code of %s", fn)
	}
	hs, hok := headSrc(an.File)
	bs, bok := baseSrc(an.File)
	if !hok && !bok {
		return an, fmt.Errorf("%s: source not found", an.File)
	}
	rangeOf := func(src []byte, ok bool) (int, int) {
		if !ok {
			return 0, -1
		}
		fi := indexFuncs(src)
		if fi == nil {
			return 0, -1
		}
		for i, n := range fi.names {
			if n == name {
				return fi.start[i], fi.end[i]
			}
		}
		return 0, -1
	}
	hlo, hhi := rangeOf(hs, hok)
	blo, bhi := rangeOf(bs, bok)
	if hhi < 0 && bhi < 0 {
		return an, errors.New("no declaration of " + name + " in " + an.File)
	}
	perLine := func(bin *Binary, counts Counts, lo, hi int) map[int]float64 {
		m := map[int]float64{}
		for addr, n := range counts {
			if l := bin.Locate(addr); l.File == an.File && l.Line >= lo && l.Line <= hi {
				m[l.Line] += n
			}
		}
		return m
	}
	hcount, bcount := perLine(head, hc, hlo, hhi), perLine(base, bc, blo, bhi)
	hlines, blines := splitLines(hs), splitLines(bs)
	text := func(lines [][]byte, n int) string {
		if n < 1 || n > len(lines) {
			return ""
		}
		return strings.TrimRight(string(lines[n-1]), "\r\n")
	}
	var m []int
	if hok && bok {
		m = lineMap(bs, hs)
	}
	mapped := map[int]bool{}
	for h := hlo; h <= hhi && h > 0; h++ {
		if h < len(m) && m[h] > 0 {
			mapped[m[h]] = true
		}
	}
	next := blo // the next base line not yet shown
	removedUpTo := func(limit int) {
		for ; next > 0 && next <= bhi && next < limit; next++ {
			if !mapped[next] {
				an.Rows = append(an.Rows, Row{BaseLine: next, Text: text(blines, next), Base: bcount[next]})
			}
		}
	}
	for h := hlo; h <= hhi && h > 0; h++ {
		r := Row{Line: h, Text: text(hlines, h), Head: hcount[h]}
		if h < len(m) && m[h] > 0 {
			r.BaseLine, r.Base = m[h], bcount[m[h]]
			if r.BaseLine >= blo && r.BaseLine <= bhi {
				removedUpTo(r.BaseLine)
				next = max(next, r.BaseLine+1)
			}
		}
		an.Rows = append(an.Rows, r)
	}
	removedUpTo(bhi + 1)
	return an, nil
}
