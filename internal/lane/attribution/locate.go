package attribution

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Loc is where an instruction came from: the function whose machine code holds it, and the source
// line it was compiled from. When the compiler inlined a call, Func is still the function the code
// sits in and Inlined names the innermost function inlined there, whose source File and Line are.
type Loc struct {
	Func    string // the symbol holding the code, e.g. "example.com/xtea.(*Cipher).Encrypt"
	Inlined string // the innermost inlined function at the address, "" when none
	// source file as the binary records it (with -trimpath: "example.com/xtea/xtea.go")
	File string
	Line int // 0 when the line table says nothing of the address
}

// Binary answers Loc for the code addresses of one ELF binary, from its symbol table and DWARF.
type Binary struct {
	funcs []span // function symbols, sorted by start
	lines []row  // line table rows, sorted by address; a row covers up to the next row's address
	// inlined subroutines' ranges, sorted by start; nested ranges follow their parent
	inlines []span
}

// span is an address range [lo, hi) with a name.
type span struct {
	lo, hi uint64
	name   string
}

// row is one line table row: from addr on, the code is of file:line (until the next row); end marks
// the end of a sequence, after which no line is known.
type row struct {
	addr uint64
	file string
	line int
	end  bool
}

// Open reads the function symbols and DWARF line table and inlining records of the ELF binary at
// path. A binary without DWARF (built with -ldflags=-w) is an error: perfgate never strips the
// binaries it builds.
func Open(path string) (*Binary, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("reading the symbols of %s: %w", path, err)
	}
	b := &Binary{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			b.funcs = append(b.funcs, span{s.Value, s.Value + s.Size, s.Name})
		}
	}
	slices.SortFunc(b.funcs, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("reading the DWARF of %s: %w", path, err)
	}
	if err := b.readDWARF(d); err != nil {
		return nil, fmt.Errorf("reading the DWARF of %s: %w", path, err)
	}
	return b, nil
}

// readDWARF collects every compilation unit's line table rows and inlined subroutines.
func (b *Binary) readDWARF(d *dwarf.Data) error {
	origins := map[dwarf.Offset]string{} // abstract subprograms: offset → name
	type pending struct {
		origin dwarf.Offset
		ranges [][2]uint64
	}
	var inl []pending
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			if err := b.readLines(d, e); err != nil {
				return err
			}
		case dwarf.TagSubprogram:
			if name, ok := e.Val(dwarf.AttrName).(string); ok {
				origins[e.Offset] = name
			}
		case dwarf.TagInlinedSubroutine:
			o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			if !ok {
				continue
			}
			rs, err := d.Ranges(e)
			if err != nil {
				return err
			}
			inl = append(inl, pending{o, rs})
		}
	}
	for _, p := range inl {
		name := origins[p.origin]
		if name == "" {
			continue
		}
		for _, rg := range p.ranges {
			b.inlines = append(b.inlines, span{rg[0], rg[1], name})
		}
	}
	// Sorted by start, and for equal starts the wider (outer) range first, so that the last range
	// holding an address is the innermost.
	slices.SortStableFunc(b.inlines, func(x, y span) int {
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		return cmp.Compare(y.hi, x.hi)
	})
	slices.SortStableFunc(b.lines, func(x, y row) int { return cmp.Compare(x.addr, y.addr) })
	return nil
}

// readLines appends the line table rows of one compilation unit.
func (b *Binary) readLines(d *dwarf.Data, cu *dwarf.Entry) error {
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return err
	}
	var e dwarf.LineEntry
	for {
		if err := lr.Next(&e); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		file := ""
		if e.File != nil {
			file = e.File.Name
		}
		b.lines = append(b.lines, row{addr: e.Address, file: file, line: e.Line, end: e.EndSequence})
	}
}

// Locate returns where the instruction at addr came from; a zero Loc when the address is in no
// function.
func (b *Binary) Locate(addr uint64) Loc {
	var l Loc
	if i := lastAtOrBefore(b.funcs, addr); i >= 0 && addr < b.funcs[i].hi {
		l.Func = b.funcs[i].name
	} else {
		return Loc{}
	}
	i, _ := slices.BinarySearchFunc(b.lines, addr+1, func(r row, a uint64) int { return cmp.Compare(r.addr, a) })
	if i > 0 && !b.lines[i-1].end {
		l.File, l.Line = b.lines[i-1].file, b.lines[i-1].line
	}
	// The innermost inlined range holding addr: ranges start at or before addr; scan back from the
	// last such start while ranges may still hold it (inlined ranges are short, so this stays
	// local).
	j, _ := slices.BinarySearchFunc(b.inlines, addr+1, func(s span, a uint64) int { return cmp.Compare(s.lo, a) })
	best := -1
	for k := j - 1; k >= 0 && k >= j-64; k-- {
		s := b.inlines[k]
		if addr >= s.hi {
			continue
		}
		if best < 0 || s.lo > b.inlines[best].lo || (s.lo == b.inlines[best].lo && s.hi < b.inlines[best].hi) {
			best = k
		}
	}
	if best >= 0 {
		l.Inlined = b.inlines[best].name
	}
	return l
}

// lastAtOrBefore returns the index of the last span starting at or before addr, or -1.
func lastAtOrBefore(s []span, addr uint64) int {
	i, _ := slices.BinarySearchFunc(s, addr+1, func(x span, a uint64) int { return cmp.Compare(x.lo, a) })
	return i - 1
}
