package attribution

import "github.com/perfgate/perfgate/internal/elfsym"

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
	funcs elfsym.Spans // function symbols
	dbg   *elfsym.Debug
}

// Open reads the function symbols and DWARF line table and inlining records of the ELF binary at
// path. A binary without DWARF (built with -ldflags=-w) is an error: perfgate never strips the
// binaries it builds.
func Open(path string) (*Binary, error) {
	f, err := elfsym.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	return &Binary{funcs: f.Funcs, dbg: d}, nil
}

// Locate returns where the instruction at addr came from; a zero Loc when the address is in no
// function.
func (b *Binary) Locate(addr uint64) Loc {
	fn := b.funcs.Find(addr)
	if fn == nil {
		return Loc{}
	}
	l := Loc{Func: fn.Name}
	l.File, l.Line = b.dbg.Line(addr)
	if s := b.dbg.Inlined.Find(addr); s != nil {
		l.Inlined = s.Name
	}
	return l
}
