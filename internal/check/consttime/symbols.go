package consttime

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// A span is a range [lo, hi) of addresses with the name of what lies there.
type span struct {
	lo, hi uint64
	name   string
}

// spans is sorted by lo; find returns the innermost (last starting) span holding a.
type spans []span

func (s spans) find(a uint64) *span {
	i := sort.Search(len(s), func(i int) bool { return s[i].lo > a }) - 1
	// nested spans (inlined copies) are few and close
	for n := 0; i >= 0 && n < 64; i, n = i-1, n+1 {
		if a < s[i].hi {
			return &s[i]
		}
	}
	return nil
}

func sortSpans(s spans) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].lo != s[j].lo {
			return s[i].lo < s[j].lo
		}
		return s[i].hi > s[j].hi
	})
}

// binary is what the analysis needs of a driver's ELF file: where the package's code is (its
// functions and the copies of them inlined elsewhere), the symbols of all code and data, the static
// data sections and the line table.
type binary struct {
	// the package's symbol prefix: the import path with dots of its last element escaped, then "."
	pkgSym string
	// the package's code: its functions and inlined copies (name = the copy's function)
	own     spans
	inl     spans  // every inlined copy of a package function, wherever it lies
	funcs   spans  // every function symbol
	data    spans  // every data symbol
	static  spans  // allocated, non-executable sections
	begin   uint64 // entry of perfgateBegin
	end     uint64 // entry of perfgateEnd
	dw      *dwarf.Data
	dwErr   error
	cuCache map[dwarf.Offset]*dwarf.LineReader
	cus     []cuRange
}

type cuRange struct {
	lo, hi uint64
	entry  *dwarf.Entry
}

// symbolPrefix returns how the linker names the package's symbols: "example.com/x%2ev2." for
// example.com/x.v2.
func symbolPrefix(importPath string) string {
	dir, last := path.Split(importPath)
	return dir + strings.ReplaceAll(last, ".", "%2e") + "."
}

// readBinary reads the symbols and DWARF of the driver at file, built from the package importPath.
func readBinary(file, importPath string) (*binary, error) {
	f, err := elf.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading the driver: %w", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("reading the driver's symbols: %w (was it built with -ldflags=-s?)", err)
	}
	b := &binary{pkgSym: symbolPrefix(importPath), cuCache: map[dwarf.Offset]*dwarf.LineReader{}}
	for _, s := range syms {
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FUNC:
			b.funcs = append(b.funcs, span{s.Value, s.Value + s.Size, s.Name})
			if strings.HasPrefix(s.Name, b.pkgSym) {
				b.own = append(b.own, span{s.Value, s.Value + s.Size, s.Name})
			}
			switch s.Name {
			case beginSym:
				b.begin = s.Value
			case endSym:
				b.end = s.Value
			}
		case elf.STT_OBJECT:
			if s.Size > 0 {
				b.data = append(b.data, span{s.Value, s.Value + s.Size, s.Name})
			}
		}
	}
	if b.begin == 0 || b.end == 0 {
		return nil, errors.New("reading the driver: its marker functions are not in the symbol table")
	}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Flags&elf.SHF_EXECINSTR == 0 && s.Addr != 0 {
			b.static = append(b.static, span{s.Addr, s.Addr + s.Size, s.Name})
		}
	}
	for _, s := range []spans{b.funcs, b.data, b.static} {
		sortSpans(s)
	}
	b.dw, b.dwErr = f.DWARF()
	if b.dwErr == nil {
		b.dwErr = b.readDWARF() // it needs b.funcs sorted
	}
	sortSpans(b.own)
	sortSpans(b.inl)
	return b, nil
}

// readDWARF adds the package's inlined copies to b.own and records the compile units' ranges.
func (b *binary) readDWARF() error {
	origins := map[dwarf.Offset]string{}
	type inl struct {
		origin dwarf.Offset
		ranges [][2]uint64
	}
	var inlined []inl
	r := b.dw.Reader()
	var cu *dwarf.Entry
	for {
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("reading DWARF: %w", err)
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			cu = e
			rs, err := b.dw.Ranges(e)
			if err == nil {
				for _, rg := range rs {
					b.cus = append(b.cus, cuRange{rg[0], rg[1], cu})
				}
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
			rs, err := b.dw.Ranges(e)
			if err == nil {
				inlined = append(inlined, inl{o, rs})
			}
		}
	}
	for _, in := range inlined {
		name := origins[in.origin]
		if !strings.HasPrefix(name, b.pkgSym) {
			continue
		}
		for _, rg := range in.ranges {
			b.inl = append(b.inl, span{rg[0], rg[1], name})
			if fn := b.funcs.find(rg[0]); fn == nil || !strings.HasPrefix(fn.name, b.pkgSym) {
				b.own = append(b.own, span{rg[0], rg[1], name})
			}
		}
	}
	sort.Slice(b.cus, func(i, j int) bool { return b.cus[i].lo < b.cus[j].lo })
	return nil
}

// isOwn reports whether the instruction at pc is the package's code.
func (b *binary) isOwn(pc uint64) bool { return b.own.find(pc) != nil }

// site describes the instruction at pc: its function and offset, the package function inlined there
// (if it lies in another package's function), and its file and line.
func (b *binary) site(pc uint64) (fn string, off int, inlined, file string, line int) {
	full := ""
	if s := b.funcs.find(pc); s != nil {
		full, fn, off = s.name, strings.TrimPrefix(s.name, b.pkgSym), int(pc-s.lo)
	}
	if s := b.inl.find(pc); s != nil && s.name != full {
		inlined = strings.TrimPrefix(s.name, b.pkgSym)
	}
	file, line = b.line(pc)
	return fn, off, inlined, file, line
}

// line returns the base name of the source file and the line of pc from the DWARF line table.
func (b *binary) line(pc uint64) (string, int) {
	if b.dwErr != nil {
		return "", 0
	}
	i := sort.Search(len(b.cus), func(i int) bool { return b.cus[i].lo > pc }) - 1
	if i < 0 || pc >= b.cus[i].hi {
		return "", 0
	}
	cu := b.cus[i].entry
	lr, ok := b.cuCache[cu.Offset]
	if !ok {
		var err error
		if lr, err = b.dw.LineReader(cu); err != nil || lr == nil {
			b.cuCache[cu.Offset] = nil
			return "", 0
		}
		b.cuCache[cu.Offset] = lr
	}
	if lr == nil {
		return "", 0
	}
	var le dwarf.LineEntry
	if err := lr.SeekPC(pc, &le); err != nil || le.File == nil {
		return "", 0
	}
	return path.Base(le.File.Name), le.Line
}

// table names the data at the static address a: the data symbol holding it (without the package
// path) and its size, or the section when no symbol does.
func (b *binary) table(a uint64) (string, int) {
	if s := b.data.find(a); s != nil {
		return strings.TrimPrefix(s.name, b.pkgSym), int(s.hi - s.lo)
	}
	if s := b.static.find(a); s != nil {
		return s.name, 0
	}
	return "", 0
}
