package elfsym

import (
	"cmp"
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Debug is what perfgate reads of a binary's DWARF: the line table and the inlined calls.
type Debug struct {
	// Lines is the line table's rows, sorted by address; a row covers up to the next row's address.
	Lines []Row
	// Inlined is every inlined call's range, named after the inlined function, sorted by Sort.
	Inlined Spans
}

// Row is one line table row: from Addr on, the code is of File:Line (until the next row); End marks
// the end of a sequence, after which no line is known.
type Row struct {
	Addr uint64
	File string
	Line int
	End  bool
}

// DWARF reads every compilation unit's line table rows and inlined calls. A binary without DWARF
// (linked with -ldflags=-w) is an error.
func (f *File) DWARF() (*Debug, error) {
	d, err := f.elf.DWARF()
	if err != nil {
		return nil, fmt.Errorf("reading the DWARF of %s: %w", f.path, err)
	}
	dbg := &Debug{}
	if err := dbg.read(d); err != nil {
		return nil, fmt.Errorf("reading the DWARF of %s: %w", f.path, err)
	}
	return dbg, nil
}

func (dbg *Debug) read(d *dwarf.Data) error {
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
			if err := dbg.readLines(d, e); err != nil {
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
			dbg.Inlined = append(dbg.Inlined, Span{rg[0], rg[1], name})
		}
	}
	dbg.Inlined.Sort()
	slices.SortStableFunc(dbg.Lines, func(x, y Row) int { return cmp.Compare(x.Addr, y.Addr) })
	return nil
}

// readLines appends the line table rows of one compilation unit.
func (dbg *Debug) readLines(d *dwarf.Data, cu *dwarf.Entry) error {
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
		dbg.Lines = append(dbg.Lines, Row{Addr: e.Address, File: file, Line: e.Line, End: e.EndSequence})
	}
}

// Line returns the source file (as the binary records it: with -trimpath,
// "example.com/xtea/xtea.go") and line the instruction at pc was compiled from; "" and 0 when the
// line table says nothing of it.
func (dbg *Debug) Line(pc uint64) (file string, line int) {
	i, _ := slices.BinarySearchFunc(dbg.Lines, pc+1, func(r Row, a uint64) int { return cmp.Compare(r.Addr, a) })
	if i > 0 && !dbg.Lines[i-1].End {
		return dbg.Lines[i-1].File, dbg.Lines[i-1].Line
	}
	return "", 0
}
