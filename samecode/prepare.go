package samecode

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// prepare locates the references in every unit of b: it decodes all machine code, finds the address words
// of all data, reads the method tables of the type descriptors, and cuts the go:funcdesc carrier into one
// unit per function value (so that the test main's table of all benchmarks does not tie them together).
func prepare(b *image) error {
	if err := splitFuncdesc(b); err != nil {
		return err
	}
	for _, u := range b.units {
		switch u.kind {
		case kindText:
			code, err := b.bytes(u)
			if err != nil {
				return err
			}
			b.raw[u] = scanText(code, u.addr)
		case kindData:
			data, err := b.bytes(u)
			if err != nil {
				return err
			}
			b.raw[u] = scanData(b, data, u.addr)
		}
	}
	lo, okLo := b.marks["runtime.types"]
	hi, okHi := b.marks["runtime.etypes"]
	if !okLo || !okHi || hi < lo {
		return fmt.Errorf("%s: no runtime.types/runtime.etypes symbols", b.path)
	}
	carrier, _ := b.lookup(lo)
	if carrier == nil || b.raw[carrier] == nil {
		return nil // no type descriptors at all
	}
	var pointed []uint64
	for _, rs := range b.raw {
		for _, r := range rs.refs {
			if r.target >= lo && r.target < hi {
				pointed = append(pointed, r.target)
			}
		}
	}
	slices.Sort(pointed)
	pointed = slices.Compact(pointed)
	normaliseTextOffs(b, carrier, typeTable(b, lo, hi, pointed))
	return nil
}

// normaliseTextOffs turns the method-table text offsets at the given addresses of the types carrier into
// references to the functions they name (runtime.text + offset), blanking them in the compared bytes.
func normaliseTextOffs(b *image, carrier *unit, fields map[uint64]bool) {
	rs := b.raw[carrier]
	data, _ := b.bytes(carrier)
	words := map[uint64]bool{} // 8-byte words that hold a text offset
	for f := range fields {
		words[f&^7] = true
	}
	// A word read as a pointer that holds a text offset was not a pointer: put its bytes back.
	kept := rs.refs[:0]
	for _, r := range rs.refs {
		if r.field == 8 && words[r.at] {
			i := r.at - carrier.addr
			copy(rs.norm[i:i+8], data[i:i+8])
			continue
		}
		kept = append(kept, r)
	}
	rs.refs = kept
	for f := range fields {
		i := f - carrier.addr
		v := binary.LittleEndian.Uint32(data[i:])
		clear(rs.norm[i : i+4])
		rs.refs = append(rs.refs, rawRef{at: f, target: b.text + uint64(v), exact: true, field: 4})
	}
	slices.SortFunc(rs.refs, func(x, y rawRef) int { return cmpU(x.at, y.at) })
}

// splitFuncdesc replaces the go:funcdesc carrier by one 8-byte unit per function value, named after the
// function it points to. A word that does not point to the start of a function leaves the carrier whole.
func splitFuncdesc(b *image) error {
	at, ok := b.marks["go:funcdesc"]
	if !ok {
		return nil
	}
	carrier, off := b.lookup(at)
	if carrier == nil || off != 0 || carrier.size%8 != 0 || carrier.kind != kindData {
		return nil
	}
	data, err := b.bytes(carrier)
	if err != nil {
		return err
	}
	var pieces []*unit
	for i := uint64(0); i < carrier.size; i += 8 {
		fn, off := b.lookup(binary.LittleEndian.Uint64(data[i:]))
		if fn == nil || fn.kind != kindText || off != 0 {
			return nil
		}
		name := fn.name + "·f"
		if _, dup := b.byNam[name]; dup {
			return nil
		}
		p := &unit{name: name, addr: carrier.addr + i, size: 8, kind: kindData, sect: carrier.sect}
		b.byNam[name] = p
		pieces = append(pieces, p)
	}
	i := slices.Index(b.units, carrier)
	b.units = slices.Replace(b.units, i, i+1, pieces...)
	delete(b.byNam, carrier.name)
	return nil
}
