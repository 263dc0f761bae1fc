package samecode

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
)

// prepare locates the references in every unit of b: it decodes all machine code, finds the address words
// of all data, reads the method tables of the type descriptors, and cuts the go:funcdesc carrier into one
// unit per function value (so that the test main's table of all benchmarks does not tie them together).
func prepare(b *image) error {
	defer uniqueNames(b)
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
	info := typeTable(b, lo, hi, pointed)
	normaliseTypes(b, carrier, info)
	splitTypes(b, carrier, info, pointed)
	b.typelinks = info.linked
	return nil
}

// normaliseTypes turns the offset fields of the type descriptors into references to what they name
// (their base plus the offset), blanking them in the compared bytes, and adds the references a descriptor
// makes without a field (its method table, its itabs).
func normaliseTypes(b *image, carrier *unit, info *typeInfo) {
	rs := b.raw[carrier]
	data, _ := b.bytes(carrier)
	words := map[uint64]bool{} // 8-byte words that hold an offset field
	for f := range info.fields {
		words[f&^7] = true
	}
	// A word read as a pointer that holds offsets was not a pointer: put its bytes back.
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
	for f, base := range info.fields {
		i := f - carrier.addr
		v := binary.LittleEndian.Uint32(data[i:])
		clear(rs.norm[i : i+4])
		rs.refs = append(rs.refs, rawRef{at: f, target: base + uint64(v), exact: true, field: 4})
	}
	for t, targets := range info.extra {
		if t < carrier.addr || t >= carrier.addr+carrier.size {
			continue
		}
		for _, x := range targets {
			rs.refs = append(rs.refs, rawRef{at: t, target: x})
		}
	}
	slices.SortStableFunc(rs.refs, func(x, y rawRef) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.target, y.target)
	})
}

// splitTypes cuts the types carrier into one unit per type descriptor, and further wherever a pointer or
// an offset points (names, method tables, field arrays), so that reaching one type reaches only what that
// type refers to. A descriptor's unit is named after its type string; another piece after the unit
// before it and its distance from it.
func splitTypes(b *image, carrier *unit, info *typeInfo, pointed []uint64) {
	end := carrier.addr + carrier.size
	cuts := map[uint64]bool{}
	for _, a := range info.starts {
		cuts[a] = true
	}
	for _, a := range pointed {
		cuts[a] = true
	}
	rs := b.raw[carrier]
	for _, r := range rs.refs {
		if r.target >= carrier.addr && r.target < end {
			cuts[r.target] = true
		}
	}
	cuts[carrier.addr] = true
	at := slices.Sorted(maps.Keys(cuts))
	isType := map[uint64]bool{}
	for _, a := range info.starts {
		isType[a] = true
	}
	var pieces []*unit
	used := map[string]int{}
	prev := carrier.name
	var prevAt uint64
	ri := 0
	for i, a := range at {
		if a >= end {
			break
		}
		next := end
		if i+1 < len(at) {
			next = min(at[i+1], end)
		}
		name := fmt.Sprintf("%s+%#x", prev, a-prevAt)
		if isType[a] {
			name = "type:" + info.names[a]
			prev, prevAt = name, a
		}
		if used[name]++; used[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, used[name])
			if isType[a] {
				prev = name
			}
		}
		p := &unit{name: name, addr: a, size: next - a, kind: kindData, sect: carrier.sect}
		prs := &rawSig{norm: rs.norm[a-carrier.addr : next-carrier.addr]}
		for ri < len(rs.refs) && rs.refs[ri].at < next {
			prs.refs = append(prs.refs, rs.refs[ri])
			ri++
		}
		b.raw[p] = prs
		pieces = append(pieces, p)
	}
	delete(b.raw, carrier)
	delete(b.byNam, carrier.name)
	for _, p := range pieces {
		b.byNam[p.name] = p
	}
	i := slices.Index(b.units, carrier)
	b.units = slices.Replace(b.units, i, i+1, pieces...)
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

// uniqueNames gives every unit a name no other unit of b has, appending "#2", "#3" … in address order:
// units are paired with head's by name, and references name units, so names must be unique.
func uniqueNames(b *image) {
	seen := map[string]int{}
	clear(b.byNam)
	for _, u := range b.units {
		if seen[u.name]++; seen[u.name] > 1 {
			u.name = fmt.Sprintf("%s#%d", u.name, seen[u.name])
			for b.byNam[u.name] != nil {
				u.name += "'"
			}
		}
		b.byNam[u.name] = u
	}
}
