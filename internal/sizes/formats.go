package sizes

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// ErrNoSymbols is returned (wrapped) by Measure for a binary without a symbol table.
var ErrNoSymbols = errors.New("binary has no symbol table: was it linked with -ldflags=-s or stripped? perfgate " +
	"needs symbols")

// rawSym is one symbol of a binary, with its section already named in Go's vocabulary.
type rawSym struct {
	name string
	// ".text", ".rodata", ".noptrdata", ".data", ".bss", ".noptrbss", or another section's name
	section string
	addr    uint64
	size    int64
}

// binary is what Measure needs from an executable of any format.
type binary struct {
	format  string
	syms    []rawSym
	pclntab []byte // the Go line table, nil when it cannot be found
	text    uint64 // address of runtime.text, the base of pclntab's function offsets
}

// openBinary reads the symbols of the executable at path, detecting its format from the magic
// number.
func openBinary(path string) (*binary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return nil, fmt.Errorf("reading magic number: %w", err)
	}
	switch {
	case string(magic[:]) == elf.ELFMAG:
		return readELF(f)
	case isMachO(magic):
		return readMachO(f)
	case magic[0] == 'M' && magic[1] == 'Z':
		return readPE(f)
	}
	return nil, fmt.Errorf("not an ELF, Mach-O or PE executable (magic % x)", magic)
}

func isMachO(m [4]byte) bool {
	be := uint32(m[0])<<24 | uint32(m[1])<<16 | uint32(m[2])<<8 | uint32(m[3])
	le := uint32(m[3])<<24 | uint32(m[2])<<16 | uint32(m[1])<<8 | uint32(m[0])
	for _, v := range []uint32{be, le} {
		if v == macho.Magic32 || v == macho.Magic64 {
			return true
		}
	}
	return false
}

// readELF takes symbol sizes from the symbol table and sections from the section headers.
func readELF(r io.ReaderAt) (*binary, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, err
	}
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) || err == nil && len(syms) == 0 {
		return nil, ErrNoSymbols
	}
	if err != nil {
		return nil, fmt.Errorf("reading ELF symbols: %w", err)
	}
	b := &binary{format: "elf"}
	for _, s := range syms {
		if s.Section < elf.SHN_UNDEF+1 || int(s.Section) >= len(f.Sections) {
			continue // undefined, absolute or common
		}
		if t := elf.ST_TYPE(s.Info); t == elf.STT_SECTION || t == elf.STT_FILE {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		b.syms = append(b.syms, rawSym{name: s.Name, section: sec.Name, addr: s.Value, size: int64(s.Size)})
		if s.Name == "runtime.text" {
			b.text = s.Value
		}
	}
	if sec := f.Section(".gopclntab"); sec != nil {
		b.pclntab, _ = sec.Data()
	}
	if b.text == 0 {
		if sec := f.Section(".text"); sec != nil {
			b.text = sec.Addr
		}
	}
	return b, nil
}

// readMachO has no symbol sizes: each symbol extends to the next symbol's address in its section.
func readMachO(r io.ReaderAt) (*binary, error) {
	f, err := macho.NewFile(r)
	if err != nil {
		return nil, err
	}
	if f.Symtab == nil || len(f.Symtab.Syms) == 0 {
		return nil, ErrNoSymbols
	}
	b := &binary{format: "macho"}
	var placed []placedSym
	for _, s := range f.Symtab.Syms {
		if s.Type&0x0e != 0x0e || s.Sect == 0 || int(s.Sect) > len(f.Sections) { // N_TYPE == N_SECT
			continue
		}
		sec := f.Sections[s.Sect-1]
		placed = append(placed, placedSym{name: s.Name, addr: s.Value, secIndex: int(s.Sect),
			secName: machoSection(sec.Name), secEnd: sec.Addr + sec.Size})
		if s.Name == "runtime.text" {
			b.text = s.Value
		}
	}
	if len(placed) == 0 {
		return nil, ErrNoSymbols // -s leaves only the undefined symbols imported from libSystem
	}
	b.syms = sizeByGaps(placed)
	if sec := f.Section("__gopclntab"); sec != nil {
		b.pclntab, _ = sec.Data()
	}
	if b.text == 0 {
		if sec := f.Section("__text"); sec != nil {
			b.text = sec.Addr
		}
	}
	return b, nil
}

// machoSection maps a Mach-O section name to Go's ELF spelling: "__noptrdata" → ".noptrdata".
// Both __TEXT,__rodata and __DATA_CONST,__rodata become ".rodata".
func machoSection(name string) string {
	return "." + strings.TrimPrefix(name, "__")
}

// readPE has no symbol sizes either; symbols carry a section number and an offset. Go's linker
// puts .noptrdata, .data, .bss and .noptrbss all in the PE section .data (the two bss parts lie
// past its raw data, inside its virtual size); the linker's boundary symbols runtime.noptrdata,
// runtime.data, runtime.bss and runtime.noptrbss (with their runtime.e… ends) split it back.
// PE .rdata becomes ".rodata".
func readPE(r io.ReaderAt) (*binary, error) {
	f, err := pe.NewFile(r)
	if err != nil {
		return nil, err
	}
	if len(f.Symbols) == 0 {
		return nil, ErrNoSymbols
	}
	var imageBase uint64
	switch h := f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		imageBase = uint64(h.ImageBase)
	case *pe.OptionalHeader64:
		imageBase = h.ImageBase
	}
	addr := func(s *pe.Symbol) uint64 {
		return imageBase + uint64(f.Sections[s.SectionNumber-1].VirtualAddress) + uint64(s.Value)
	}
	// Boundaries of Go's data sections inside PE .data, by the linker's marker symbols.
	marks := map[string]uint64{}
	for _, s := range f.Symbols {
		if s.SectionNumber > 0 && int(s.SectionNumber) <= len(f.Sections) && strings.HasPrefix(s.Name, "runtime.") {
			marks[s.Name] = addr(s)
		}
	}
	type span struct {
		name       string
		start, end uint64
	}
	var spans []span
	for _, n := range []string{"noptrdata", "data", "bss", "noptrbss"} {
		start, ok1 := marks["runtime."+n]
		end, ok2 := marks["runtime.e"+n]
		if ok1 && ok2 {
			spans = append(spans, span{"." + n, start, end})
		}
	}
	b := &binary{format: "pe", text: marks["runtime.text"]}
	var placed []placedSym
	for _, s := range f.Symbols {
		if s.SectionNumber <= 0 || int(s.SectionNumber) > len(f.Sections) {
			continue
		}
		sec := f.Sections[s.SectionNumber-1]
		a := addr(s)
		name := sec.Name
		switch name {
		case ".rdata":
			name = ".rodata"
		case ".data":
			for _, sp := range spans {
				if sp.start <= a && a < sp.end {
					name = sp.name
				}
			}
		}
		end := imageBase + uint64(sec.VirtualAddress) + uint64(sec.VirtualSize)
		placed = append(placed, placedSym{name: s.Name, addr: a, secIndex: int(s.SectionNumber), secName: name, secEnd: end})
	}
	b.syms = sizeByGaps(placed)
	start, ok1 := marks["runtime.pclntab"]
	end, ok2 := marks["runtime.epclntab"]
	if sec := f.Section(".rdata"); ok1 && ok2 && sec != nil {
		if data, err := sec.Data(); err == nil {
			lo := start - imageBase - uint64(sec.VirtualAddress)
			hi := end - imageBase - uint64(sec.VirtualAddress)
			if lo <= hi && hi <= uint64(len(data)) {
				b.pclntab = data[lo:hi]
			}
		}
	}
	return b, nil
}

// placedSym is a symbol of a format without sizes, before sizeByGaps.
type placedSym struct {
	name     string
	addr     uint64
	secIndex int    // the file's section number: gaps are measured within one
	secName  string // Go's name for the symbol's section
	secEnd   uint64 // the end address of the file's section
}

// sizeByGaps gives each symbol the bytes up to the next higher address in the same file section,
// the last one up to the section's end. Alignment padding after a symbol is counted in it.
// Symbols that share an address are aliases or zero-sized markers: the first of them in the
// symbol table that is not a linker marker (runtime.enoptrdata, type:*, …) gets the gap and the
// others get 0, so that no byte is counted twice.
func sizeByGaps(placed []placedSym) []rawSym {
	order := make([]int, len(placed))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := placed[order[i]], placed[order[j]]
		if a.secIndex != b.secIndex {
			return a.secIndex < b.secIndex
		}
		return a.addr < b.addr
	})
	// owner picks, for every address, the symbol that gets the gap: the first non-marker in
	// symbol-table order, else the first marker.
	owner := map[tieKey]int{}
	for _, i := range order {
		p := placed[i]
		key := tieKey{p.secIndex, p.addr}
		if j, ok := owner[key]; !ok || isMarker(placed[j].name) && !isMarker(p.name) {
			owner[key] = i
		}
	}
	out := make([]rawSym, 0, len(placed))
	for k, i := range order {
		p := placed[i]
		end := p.secEnd
		for _, j := range order[k+1:] {
			q := placed[j]
			if q.secIndex != p.secIndex {
				break
			}
			if q.addr > p.addr {
				end = q.addr
				break
			}
		}
		var size int64
		if end > p.addr && owner[tieKey{p.secIndex, p.addr}] == i {
			size = int64(end - p.addr)
		}
		out = append(out, rawSym{name: p.name, section: p.secName, addr: p.addr, size: size})
	}
	return out
}

type tieKey struct {
	sec  int
	addr uint64
}

// isMarker reports whether name is one of the linker's zero-sized boundary symbols.
func isMarker(name string) bool {
	if strings.HasSuffix(name, "*") { // type:*, go:string.*, go:func.*
		return true
	}
	switch strings.TrimPrefix(name, "runtime.") {
	case "text", "etext", "rodata", "erodata", "types", "etypes", "itablink", "eitablink",
		"typelink", "etypelink", "pclntab", "epclntab", "noptrdata", "enoptrdata", "data", "edata",
		"bss", "ebss", "noptrbss", "enoptrbss", "gcdata", "egcdata", "gcbss", "egcbss",
		"covctrs", "ecovctrs", "end", "symtab", "esymtab":
		return strings.HasPrefix(name, "runtime.")
	}
	return false
}
