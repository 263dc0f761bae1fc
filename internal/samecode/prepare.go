package samecode

import (
	"cmp"
	"debug/gosym"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// prepare locates the references in every unit of b: it decodes all machine code, finds the address
// words of all data, reads the method tables of the type descriptors, and cuts the go:funcdesc
// carrier into one unit per function value (so that the test main's table of all benchmarks does
// not tie them together).
func prepare(b *image) error {
	defer uniqueNames(b)
	if err := splitFuncdesc(b); err != nil {
		return err
	}
	goFile := b.sourceFiles()
	for _, u := range b.units {
		switch u.kind {
		case kindText:
			code, err := b.bytes(u)
			if err != nil {
				return err
			}
			b.raw[u] = scanText(code, u.addr, strings.HasSuffix(goFile(u.addr), ".go"))
		case kindData:
			data, err := b.bytes(u)
			if err != nil {
				return err
			}
			if bytesOnly[u.name] {
				b.raw[u] = &rawSig{norm: data}
				continue
			}
			b.raw[u] = scanData(b, data, u.addr)
		}
	}
	splitGaps(b)
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
// (their base plus the offset), blanking them in the compared bytes, and adds the references a
// descriptor makes without a field (its method table, its itabs).
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

// splitTypes cuts the types carrier into one unit per type descriptor, and further wherever a
// pointer or an offset points (names, method tables, field arrays), so that reaching one type
// reaches only what that type refers to. A descriptor's unit is named after its type string;
// another piece after the unit before it and its distance from it, or, before the first descriptor,
// after its content (contentName). Names only pair base's pieces with head's: what a piece holds is
// compared either way.
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
		if prev == carrier.name {
			// Before the first descriptor (the types' names): a distance from the carrier's start
			// would change with every name added before it, so the piece is named by its content.
			name = contentName(carrier.name, rs.norm[a-carrier.addr:next-carrier.addr])
		}
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

// splitFuncdesc replaces the go:funcdesc carrier by one 8-byte unit per function value, named after
// the function it points to. A word that does not point to the start of a function leaves the
// carrier whole.
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

// uniqueNames gives every unit a name no other unit of b has, appending "#2", "#3" … in address
// order: units are paired with head's by name, and references name units, so names must be unique.
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

// bytesOnly are the carriers that hold bytes and never an address: the string literals' data and
// the types' GC masks. They are compared as bytes; a word of them is not read as a pointer (eight
// bytes of a string such as "\xff\xff\xff\x00\x00\x00\x00\x00" fall inside a 32 MiB buffer in
// .noptrbss, which moves when the data before it grows).
var bytesOnly = map[string]bool{"go:string.*": true, "runtime.gcbits.*": true}

// sourceFiles returns the source file of the function at an entry address, as the line table says
// ("" when the binary has none or it does not say): a function compiled from Go names a .go file,
// assembly a .s file, and wrappers the toolchain generates "<autogenerated>".
func (b *image) sourceFiles() func(entry uint64) string {
	none := func(uint64) string { return "" }
	sec := b.f.Section(".gopclntab")
	if sec == nil {
		return none
	}
	data, err := sec.Data()
	if err != nil {
		return none
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, b.text))
	if err != nil {
		return none
	}
	return func(entry uint64) string {
		if fn := tab.PCToFunc(entry); fn == nil || fn.Entry != entry {
			return ""
		}
		file, _, _ := tab.PCToLine(entry)
		return file
	}
}

// contentName names a piece of carrier by what it holds: its first 48 bytes, quoted, and its size.
func contentName(carrier string, content []byte) string {
	return fmt.Sprintf("%s{%s %d bytes}", carrier, strconv.Quote(string(content[:min(len(content), 48)])), len(content))
}

// splitGaps cuts every stretch of initialised data that no symbol covers (fillGaps: the compiler's
// static temporaries, such as composite literals, string headers and the arrays of unicode's
// tables) wherever a reference points into it, and names each piece by its content (contentName),
// not by the symbol before it: a symbol that head adds (a new table) lands between static
// temporaries and would otherwise rename, and regroup, everything after it. A piece links to the
// piece after it in its stretch (rawRef.next), so that reaching a piece reaches, and compares,
// everything from it to the stretch's end: a pointer to a static temporary reads forward from it,
// never back, but may read past the next place something else points to.
//
// differ compares the links only when both sides have one. Where one side's piece ends its stretch,
// the object there ends inside the piece (a static temporary does not reach past its stretch into
// the next symbol); the reads of it are decided by code and data that are compared and found the
// same, so on the other side they end inside the piece too, and what follows it there is never
// read.
func splitGaps(b *image) {
	cuts := map[*unit]map[uint64]bool{}
	for _, rs := range b.raw {
		for _, r := range rs.refs {
			t, off := b.lookup(r.target)
			if t == nil || off == 0 || t.kind != kindData || !strings.HasSuffix(t.name, "~") {
				continue
			}
			if cuts[t] == nil {
				cuts[t] = map[uint64]bool{}
			}
			cuts[t][r.target] = true
		}
	}
	var out []*unit
	for _, u := range b.units {
		if u.kind != kindData || !strings.HasSuffix(u.name, "~") || b.raw[u] == nil {
			out = append(out, u)
			continue
		}
		rs := b.raw[u]
		at := append([]uint64{u.addr}, slices.Sorted(maps.Keys(cuts[u]))...)
		pieces := make([]*unit, len(at))
		end := u.addr + u.size
		for i, a := range at {
			next := end
			if i+1 < len(at) {
				next = at[i+1]
			}
			pieces[i] = &unit{name: contentName("data", rs.norm[a-u.addr:next-u.addr]), addr: a, size: next - a,
				kind: kindData, sect: u.sect}
		}
		ri := 0
		for i, p := range pieces {
			prs := &rawSig{norm: rs.norm[p.addr-u.addr : p.addr+p.size-u.addr], bad: rs.bad}
			for ri < len(rs.refs) && rs.refs[ri].at < p.addr+p.size {
				prs.refs = append(prs.refs, rs.refs[ri])
				ri++
			}
			if i+1 < len(pieces) {
				prs.refs = append(prs.refs, rawRef{at: p.addr + p.size, target: pieces[i+1].addr, exact: true, next: true})
			}
			b.raw[p] = prs
		}
		delete(b.raw, u)
		delete(b.byNam, u.name)
		out = append(out, pieces...)
	}
	b.units = out
	for _, u := range b.units {
		b.byNam[u.name] = u
	}
}
