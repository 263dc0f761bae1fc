package samecode

import (
	"cmp"
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"io"
	"slices"
	"strings"
)

// unitKind says how a unit's bytes are compared.
type unitKind int

const (
	kindText unitKind = iota // machine code: decoded, PC-relative fields normalised
	kindData                 // initialised data: pointer-sized words that hold addresses normalised
	kindBSS                  // zero-initialised: only the size is compared
	// link metadata (line tables, module data): neither compared nor followed
	kindMeta
)

// unit is a stretch of the loaded image that is compared as a whole: a symbol, a linker carrier
// (type descriptors, string data, GC masks), which the symbol table lists as one empty symbol, or
// one function value of the go:funcdesc carrier.
type unit struct {
	name string
	addr uint64
	size uint64
	kind unitKind
	sect *elf.Section
}

// image is one loaded test binary.
type image struct {
	path  string
	f     *elf.File
	units []*unit          // sorted by address, no overlaps
	byNam map[string]*unit // by name
	text  uint64           // runtime.text: the base of type descriptors' text offsets
	data  map[*elf.Section][]byte
	sigs  map[*unit]*sig    // memoised normalised contents
	marks map[string]uint64 // addresses of the empty marker symbols (runtime.types, go:funcdesc, …)
	raw   map[*unit]*rawSig // located references of every unit, see prepare
	// typelinks are the type descriptors listed in .typelink, which reflect finds by type string.
	typelinks []uint64
}

// metaSections hold link metadata that code reaches only through runtime.firstmoduledata.
var metaSections = map[string]bool{
	".gopclntab": true, ".typelink": true, ".itablink": true, ".go.buildinfo": true,
	".go.fipsinfo": true, ".go.module": true, ".note.go.buildid": true, ".note.gnu.build-id": true,
}

// metaSymbols are link metadata inside ordinary sections: the module descriptor and the GC bitmaps
// of the data and bss sections, which change whenever globals move.
var metaSymbols = map[string]bool{
	"runtime.firstmoduledata": true, "runtime.lastmoduledatap": true,
	"runtime.gcdata": true, "runtime.gcbss": true, "go:func.*": true,
}

// supported reports why an image cannot be analysed, or "" when it can.
func supported(f *elf.File, content io.ReaderAt) string {
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return fmt.Sprintf("machine %v is not analysed (amd64 only)", f.Machine)
	}
	if f.Section(".symtab") == nil {
		return "no symbol table (built with -ldflags=-s?)"
	}
	bi, err := buildinfo.Read(content)
	if err != nil {
		return "no Go build information"
	}
	// The type-descriptor layout read by typeMethods is the one of these releases.
	v := bi.GoVersion
	if !(strings.HasPrefix(v, "go1.24") || strings.HasPrefix(v, "go1.25") || strings.HasPrefix(v, "go1.26")) {
		return fmt.Sprintf("built with %s; type descriptors are read for go1.24 to go1.26 only", v)
	}
	return ""
}

// load reads the symbols of an ELF test binary and cuts its allocated sections into units.
func load(path string, f *elf.File) (*image, error) {
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("reading symbols of %s: %w", path, err)
	}
	b := &image{path: path, f: f, byNam: map[string]*unit{}, data: map[*elf.Section][]byte{},
		sigs: map[*unit]*sig{}, marks: map[string]uint64{}, raw: map[*unit]*rawSig{}}
	var units []*unit
	for _, s := range syms {
		if int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) {
			continue
		}
		sect := f.Sections[s.Section]
		if sect.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if s.Name == "runtime.text" {
			b.text = s.Value
		}
		if s.Size == 0 {
			b.marks[s.Name] = s.Value
		}
		u := &unit{name: s.Name, addr: s.Value, size: s.Size, sect: sect, kind: kindData}
		switch {
		case metaSections[sect.Name] || metaSymbols[s.Name]:
			u.kind = kindMeta
		case sect.Flags&elf.SHF_EXECINSTR != 0:
			u.kind = kindText
		case sect.Type == elf.SHT_NOBITS:
			u.kind = kindBSS
		}
		units = append(units, u)
	}
	if b.text == 0 {
		return nil, fmt.Errorf("%s: no runtime.text symbol: not a Go binary?", path)
	}
	// Sort by address, sized symbols before empty markers at the same address, then by name, so
	// that the choice among aliases is the same in both binaries.
	slices.SortFunc(units, func(x, y *unit) int {
		if x.addr != y.addr {
			return cmp.Compare(x.addr, y.addr)
		}
		if x.size != y.size {
			return cmp.Compare(y.size, x.size)
		}
		return strings.Compare(x.name, y.name)
	})
	// Drop aliases; an empty symbol that starts a stretch no symbol covers becomes a carrier
	// reaching to the next symbol or the end of its section.
	var kept []*unit
	for i, u := range units {
		if len(kept) > 0 {
			last := kept[len(kept)-1]
			if u.addr < last.addr+last.size || u.addr == last.addr {
				continue
			}
		}
		if u.size == 0 {
			end := u.sect.Addr + u.sect.Size
			for _, v := range units[i+1:] {
				if v.addr > u.addr {
					end = min(end, v.addr)
					break
				}
			}
			u.size = end - u.addr
		}
		kept = append(kept, u)
	}
	b.units = fillGaps(f, kept)
	for _, u := range b.units {
		b.byNam[u.name] = u
	}
	return b, nil
}

// fillGaps adds a unit for every stretch of an allocated section that no symbol covers: the
// compiler's static temporaries (string headers, composite literals) have no symbol of their own. A
// gap is named after the unit before it ("runtime.x~"), or after its section when it starts one.
func fillGaps(f *elf.File, units []*unit) []*unit {
	var out []*unit
	i := 0
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Addr == 0 || s.Size == 0 {
			continue
		}
		kind := kindData
		switch {
		case metaSections[s.Name]:
			kind = kindMeta
		case s.Flags&elf.SHF_EXECINSTR != 0:
			kind = kindText
		case s.Type == elf.SHT_NOBITS:
			kind = kindBSS
		}
		for i < len(units) && units[i].addr < s.Addr {
			out = append(out, units[i])
			i++
		}
		at, prev := s.Addr, s.Name+"~"
		for ; i < len(units) && units[i].addr < s.Addr+s.Size; i++ {
			u := units[i]
			if u.addr > at {
				out = append(out, &unit{name: prev, addr: at, size: u.addr - at, kind: kind, sect: s})
			}
			out = append(out, u)
			at, prev = u.addr+u.size, u.name+"~"
		}
		if end := s.Addr + s.Size; end > at {
			out = append(out, &unit{name: prev, addr: at, size: end - at, kind: kind, sect: s})
		}
	}
	out = append(out, units[i:]...)
	slices.SortStableFunc(out, func(x, y *unit) int { return cmp.Compare(x.addr, y.addr) })
	return out
}

// lookup returns the unit holding address v and v's offset in it, or nil when v lies in no unit.
func (b *image) lookup(v uint64) (*unit, uint64) {
	i, _ := slices.BinarySearchFunc(b.units, v, func(u *unit, v uint64) int { return cmp.Compare(u.addr, v) })
	// i is the first unit at or after v.
	if i < len(b.units) && b.units[i].addr == v {
		return b.units[i], 0
	}
	if i == 0 {
		return nil, 0
	}
	u := b.units[i-1]
	if v < u.addr+u.size {
		return u, v - u.addr
	}
	return nil, 0
}

// bytes returns the unit's content (nil for bss units).
func (b *image) bytes(u *unit) ([]byte, error) {
	if u.sect.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	d, ok := b.data[u.sect]
	if !ok {
		var err error
		d, err = u.sect.Data()
		if err != nil {
			return nil, fmt.Errorf("reading section %s of %s: %w", u.sect.Name, b.path, err)
		}
		b.data[u.sect] = d
	}
	lo := u.addr - u.sect.Addr
	if u.addr < u.sect.Addr || lo > uint64(len(d)) || u.size > uint64(len(d))-lo {
		return nil, fmt.Errorf("%s: symbol %s lies outside its section", b.path, u.name)
	}
	return d[lo : lo+u.size], nil
}
