package consttime

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/perfgate/perfgate/internal/elfsym"
)

// binary is what the analysis needs of a driver's ELF file: where the package's code is (its
// functions and the copies of them inlined elsewhere), the symbols of all code and data, the static
// data sections and the line table.
type binary struct {
	// the package's symbol prefix: the import path with dots of its last element escaped, then "."
	pkgSym string
	// the package's code: its functions and inlined copies (name = the copy's function)
	own    elfsym.Spans
	inl    elfsym.Spans  // every inlined copy of a package function, wherever it lies
	funcs  elfsym.Spans  // every function symbol
	data   elfsym.Spans  // every data symbol
	static elfsym.Spans  // allocated, non-executable sections
	begin  uint64        // entry of perfgateBegin
	end    uint64        // entry of perfgateEnd
	dw     *elfsym.Debug // nil when the driver's DWARF could not be read
}

// symbolPrefix returns how the linker names the package's symbols: "example.com/x%2ev2." for
// example.com/x.v2.
func symbolPrefix(importPath string) string {
	dir, last := path.Split(importPath)
	return dir + strings.ReplaceAll(last, ".", "%2e") + "."
}

// readBinary reads the symbols and DWARF of the driver at file, built from the package importPath.
func readBinary(file, importPath string) (*binary, error) {
	f, err := elfsym.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading the driver: %w (was it built with -ldflags=-s?)", err)
	}
	defer f.Close()
	b := &binary{pkgSym: symbolPrefix(importPath), funcs: f.Funcs, data: f.Data, static: f.Static()}
	for _, s := range f.Funcs {
		if strings.HasPrefix(s.Name, b.pkgSym) {
			b.own = append(b.own, s)
		}
		switch s.Name {
		case beginSym:
			b.begin = s.Lo
		case endSym:
			b.end = s.Lo
		}
	}
	if b.begin == 0 || b.end == 0 {
		return nil, errors.New("reading the driver: its marker functions are not in the symbol table")
	}
	if b.dw, err = f.DWARF(); err != nil {
		b.dw = nil
	} else {
		// the package's inlined copies: in b.inl, and in b.own where they lie in another
		// package's function
		for _, s := range b.dw.Inlined {
			if !strings.HasPrefix(s.Name, b.pkgSym) {
				continue
			}
			b.inl = append(b.inl, s)
			if fn := b.funcs.Find(s.Lo); fn == nil || !strings.HasPrefix(fn.Name, b.pkgSym) {
				b.own = append(b.own, s)
			}
		}
	}
	b.own.Sort()
	b.inl.Sort()
	return b, nil
}

// isOwn reports whether the instruction at pc is the package's code.
func (b *binary) isOwn(pc uint64) bool { return b.own.Find(pc) != nil }

// site describes the instruction at pc: its function and offset, the package function inlined there
// (if it lies in another package's function), and its file and line.
func (b *binary) site(pc uint64) (fn string, off int, inlined, file string, line int) {
	full := ""
	if s := b.funcs.Find(pc); s != nil {
		full, fn, off = s.Name, strings.TrimPrefix(s.Name, b.pkgSym), int(pc-s.Lo)
	}
	if s := b.inl.Find(pc); s != nil && s.Name != full {
		inlined = strings.TrimPrefix(s.Name, b.pkgSym)
	}
	file, line = b.line(pc)
	return fn, off, inlined, file, line
}

// line returns the base name of the source file and the line of pc from the DWARF line table.
func (b *binary) line(pc uint64) (string, int) {
	if b.dw == nil {
		return "", 0
	}
	file, line := b.dw.Line(pc)
	if file == "" {
		return "", line
	}
	return path.Base(file), line
}

// table names the data at the static address a: the data symbol holding it (without the package
// path) and its size, or the section when no symbol does.
func (b *binary) table(a uint64) (string, int) {
	if s := b.data.Find(a); s != nil {
		return strings.TrimPrefix(s.Name, b.pkgSym), int(s.Hi - s.Lo)
	}
	if s := b.static.Find(a); s != nil {
		return s.Name, 0
	}
	return "", 0
}
