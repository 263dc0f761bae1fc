package elfsym

import (
	"debug/elf"
	"fmt"
)

// File is one ELF binary's symbols and sections. Close releases it.
type File struct {
	Machine elf.Machine
	// Funcs is every function symbol of non-zero size, sorted by address.
	Funcs Spans
	// Data is every data symbol of non-zero size, sorted by address.
	Data Spans
	// Sections is every section, in the file's order.
	Sections []Section
	elf      *elf.File
	path     string
}

// Section is one section's header.
type Section struct {
	Name       string
	Addr, Size uint64
	// Alloc is set when the section is loaded into memory, Exec when it holds machine code.
	Alloc, Exec bool
}

// Code is the bytes of one executable section, loaded at Addr.
type Code struct {
	Addr  uint64
	Bytes []byte
}

// Open reads the symbol table and section headers of the ELF binary at path. A binary without a
// symbol table (linked with -ldflags=-s) is an error.
func Open(path string) (*File, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	syms, err := f.Symbols()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading the symbols of %s: %w", path, err)
	}
	b := &File{Machine: f.Machine, elf: f, path: path}
	for _, s := range syms {
		if s.Size == 0 {
			continue
		}
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FUNC:
			b.Funcs = append(b.Funcs, Span{s.Value, s.Value + s.Size, s.Name})
		case elf.STT_OBJECT:
			b.Data = append(b.Data, Span{s.Value, s.Value + s.Size, s.Name})
		}
	}
	b.Funcs.Sort()
	b.Data.Sort()
	for _, s := range f.Sections {
		b.Sections = append(b.Sections, Section{
			Name: s.Name, Addr: s.Addr, Size: s.Size,
			Alloc: s.Flags&elf.SHF_ALLOC != 0, Exec: s.Flags&elf.SHF_EXECINSTR != 0,
		})
	}
	return b, nil
}

// Close closes the file.
func (f *File) Close() error { return f.elf.Close() }

// Func returns the function symbol named name.
func (f *File) Func(name string) (Span, bool) {
	for _, s := range f.Funcs {
		if s.Name == name {
			return s, true
		}
	}
	return Span{}, false
}

// Static returns the loaded sections that hold no machine code (data, read-only data, BSS) as
// spans, sorted by address.
func (f *File) Static() Spans {
	var out Spans
	for _, s := range f.Sections {
		if s.Alloc && !s.Exec && s.Addr != 0 {
			out = append(out, Span{s.Addr, s.Addr + s.Size, s.Name})
		}
	}
	out.Sort()
	return out
}

// Code reads the bytes of every executable section the file holds, in the file's order.
func (f *File) Code() ([]Code, error) {
	var out []Code
	for _, s := range f.elf.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("reading the machine code of %s: %w", f.path, err)
		}
		out = append(out, Code{s.Addr, b})
	}
	return out, nil
}
