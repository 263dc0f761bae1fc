package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// The tables of report.html: the differential with its mismatch examples, and the sizes with their
// bars.

// diffView is the differential section.
type diffView struct {
	Status       string // the status word, for a CSS class
	Summary      string
	Seed         string
	Reason       string
	Ciphers      []diffRow
	Notes        []string // the constructors' notes, "NAME: NOTE"
	Added        string
	Removed      string
	Examples     []mismatchView
	More         int
	Inconsistent string // examples of a side disagreeing with itself, as plain text
}

type diffRow struct {
	Name, Family, KeySizes, Vectors, Result, DigestBase, DigestHead string
	Bad                                                             bool
}

// mismatchView is one mismatch example. A block cipher's names its block and direction; an AEAD's,
// stream cipher's or hash's names the message length and what differed (Part), with the message's
// nonce, AD and chunks.
type mismatchView struct {
	Cipher, Key, Direction, Method, Input string
	KeySize, Block                        int
	Part, Extra                           string
	Length                                int
	Base, Head                            []hexSeg
}

// hexSeg is a run of hex digits that agree (or differ) between base and head.
type hexSeg struct {
	Text string
	Diff bool
}

const mismatchExamplesShown = 20

func newDiffView(r *record.Result) diffView {
	df := r.Differential
	id := func(s string) string { return s }
	v := diffView{Status: string(df.Status), Summary: report.DiffSummary(r, id, id), Reason: df.Reason}
	if df.Status != "" {
		v.Seed = fmt.Sprintf("%#x", df.Seed)
	}
	for _, c := range df.Ciphers {
		row := diffRow{Name: record.Qualified(c.Package, c.Name), Family: report.FamilyOf(c), KeySizes: report.SizesCell(c),
			Vectors: report.Vectors(c),
			Result:  report.CipherResult(c, id), DigestBase: report.ShortHash(c.DigestBase), DigestHead: report.ShortHash(c.DigestHead),
			Bad: c.Mismatches > 0 || c.InconsistentHead > 0}
		v.Ciphers = append(v.Ciphers, row)
		for _, m := range c.Examples {
			if len(v.Examples) == mismatchExamplesShown {
				v.More++
				continue
			}
			b, h := hexDiff(m.Base.String(), m.Head.String())
			v.Examples = append(v.Examples, mismatchView{
				Cipher: c.Name, Key: m.Key.String(), Direction: m.Direction, Method: m.Method, Input: m.Input.String(),
				KeySize: m.KeySize, Block: m.Block, Part: m.Part, Length: m.Length,
				Extra: strings.TrimSpace(report.MessageDetails(m.Nonce, m.AD, m.Chunks)), Base: b, Head: h,
			})
		}
	}
	v.Notes = report.CipherNotes(df, 20)
	v.Inconsistent, _ = report.InconsistencyText(df, 10)
	v.Added = strings.Join(df.Added, ", ")
	v.Removed = strings.Join(df.Removed, ", ")
	return v
}

// hexDiff splits two hex strings into runs that agree or differ, byte by byte (two digits at a
// time).
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

func newSizesView(s record.Sizes) sizesView {
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
			Name: record.Qualified(sec.Package, sec.Name), Base: text.Commas(sec.Base) + " B", Head: text.Commas(sec.Head) + " B",
			BaseW: share(sec.Base, widest), HeadW: share(sec.Head, widest),
			Delta: report.BytesDelta(sec.Head - sec.Base), Percent: report.SizePercent(sec.Base, sec.Head), Kind: kind(sec.Head - sec.Base),
		})
	}
	v.Zero = strings.Join(zero, ", ")
	v.Total = sectionBar{Name: "total", Base: text.Commas(base) + " B", Head: text.Commas(head) + " B",
		Delta: report.BytesDelta(head - base), Percent: report.SizePercent(base, head), Kind: kind(head - base)}
	var largest int64
	for _, sym := range s.Symbols[:min(len(s.Symbols), symbolsShown)] {
		largest = max(largest, report.Abs64(sym.Head-sym.Base))
	}
	for i, sym := range s.Symbols {
		if i == symbolsShown {
			v.MoreSyms = len(s.Symbols) - symbolsShown
			break
		}
		d := sym.Head - sym.Base
		v.Symbols = append(v.Symbols, symbolRow{Name: sym.Name, Section: sym.Section, Base: text.Commas(sym.Base),
			Head: text.Commas(sym.Head), Delta: report.BytesDelta(d), Kind: kind(d), W: share(report.Abs64(d), largest)})
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
