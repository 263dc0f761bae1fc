package samecode

import (
	"encoding/binary"
	"slices"
	"strings"
)

// Offsets in Go's type descriptors (internal/abi, go1.24 to go1.26, 64-bit).
const (
	abiTypeSize    = 48 // abi.Type
	abiKindOff     = 23 // Kind_
	abiTFlagOff    = 20 // TFlag
	abiAlignOff    = 21 // Align_, then FieldAlign_
	abiEqualOff    = 24 // Equal
	abiGCDataOff   = 32 // GCData
	abiStrOff      = 40 // Str (NameOff)
	abiPtrToThis   = 44 // PtrToThis (TypeOff)
	tflagUncommon  = 1
	tflagExtraStar = 2
	kindMask       = 0x1f
	uncommonMcount = 4  // UncommonType.Mcount
	uncommonMoff   = 8  // UncommonType.Moff
	methodSize     = 16 // abi.Method: Name, Mtyp, Ifn, Tfn
)

// uncommonOffset is where UncommonType follows a descriptor of each kind (abi.Type.Uncommon).
var uncommonOffset = map[byte]uint64{
	17: 72,  // Array: Elem, Slice, Len
	18: 64,  // Chan: Elem, Dir
	19: 56,  // Func: InCount, OutCount, padded
	20: 80,  // Interface: PkgPath, Methods
	21: 112, // Map: Key, Elem, Group, Hasher, GroupSize, SlotSize, ElemOff, Flags, padded
	22: 56,  // Pointer: Elem
	23: 56,  // Slice: Elem
	25: 80,  // Struct: PkgPath, Fields
}

// typeInfo is what typeTable reads from the type descriptors.
type typeInfo struct {
	// starts are the addresses of the descriptors found, sorted.
	starts []uint64
	// fields maps the address of a 4-byte offset field to the base it is relative to: runtime.text
	// for the method tables' Ifn and Tfn, runtime.types for name and type offsets.
	fields map[uint64]uint64
	// extra maps a descriptor to places it reaches without a pointer: its method table, its
	// interface methods, the itabs the linker made for it (which the runtime finds by type, in
	// .itablink).
	extra map[uint64][]uint64
	// names maps a descriptor to its type string.
	names map[uint64]string
	// linked are the descriptors listed in .typelink, which reflect finds by their type string.
	linked []uint64
}

// typeTable reads type descriptors in the types carrier [lo, hi). A descriptor is found wherever
// something points into the carrier, wherever .typelink says one is, and wherever a found
// descriptor's offsets (PtrToThis, method and interface-method types) say one is; a place that does
// not read as a sound descriptor is left alone.
func typeTable(b *image, lo, hi uint64, pointed []uint64) *typeInfo {
	info := &typeInfo{fields: map[uint64]uint64{}, extra: map[uint64][]uint64{}, names: map[uint64]string{}}
	first, _ := b.lookup(lo)
	if first == nil || hi > first.sect.Addr+first.sect.Size {
		return info
	}
	data, err := first.sect.Data()
	if err != nil || uint64(len(data)) < hi-first.sect.Addr {
		return info
	}
	r := &typeReader{b: b, data: data[lo-first.sect.Addr : hi-first.sect.Addr], lo: lo, hi: hi, info: info}
	r.work = slices.Clone(pointed)
	r.typelinks()
	seen := map[uint64]bool{}
	for len(r.work) > 0 {
		a := r.work[len(r.work)-1]
		r.work = r.work[:len(r.work)-1]
		if seen[a] || a < lo || a+abiTypeSize > lo+uint64(len(r.data)) || a%8 != 0 {
			continue
		}
		seen[a] = true
		r.descriptor(a)
	}
	r.itabs()
	r.builtFrom()
	slices.Sort(info.starts)
	return info
}

// typeReader is typeTable's walk over one types carrier: its bytes, the descriptors still to read,
// and what it has found so far.
type typeReader struct {
	b      *image
	data   []byte // the carrier's bytes, data[0] at address lo
	lo, hi uint64
	info   *typeInfo
	work   []uint64 // addresses still to read as descriptors
}

// u32 reads the 4 bytes at address a; false when they are not all in the carrier.
func (r *typeReader) u32(a uint64) (uint32, bool) {
	if a < r.lo || a+4 > r.lo+uint64(len(r.data)) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(r.data[a-r.lo:]), true
}

// u64 reads the 8 bytes at address a; 0 when they are not all in the carrier.
func (r *typeReader) u64(a uint64) uint64 {
	if a < r.lo || a+8 > r.lo+uint64(len(r.data)) {
		return 0
	}
	return binary.LittleEndian.Uint64(r.data[a-r.lo:])
}

// section returns the contents of the binary's section called name; nil when it has none or it
// cannot be read.
func (r *typeReader) section(name string) []byte {
	sec := r.b.f.Section(name)
	if sec == nil {
		return nil
	}
	d, err := sec.Data()
	if err != nil {
		return nil
	}
	return d
}

// typelinks records the descriptors .typelink lists and queues them to be read.
func (r *typeReader) typelinks() {
	d := r.section(".typelink")
	for i := 0; i+4 <= len(d); i += 4 {
		a := r.lo + uint64(binary.LittleEndian.Uint32(d[i:]))
		r.info.linked = append(r.info.linked, a)
		r.work = append(r.work, a)
	}
}

// off records a name or type offset field at f; a type offset is also a descriptor to read.
func (r *typeReader) off(f uint64, isType bool) {
	v, ok := r.u32(f)
	if !ok || v == 0 || v == 0xffffffff || uint64(v) >= r.hi-r.lo {
		return // none, or not an offset: compared as it is
	}
	r.info.fields[f] = r.lo
	if isType {
		r.work = append(r.work, r.lo+uint64(v))
	}
}

// descriptor reads the descriptor at a, if it is one: its name, its offsets, its interface methods
// and its method table.
func (r *typeReader) descriptor(a uint64) {
	hdr := r.data[a-r.lo:]
	if !plausibleType(r.b, hdr[:abiTypeSize]) {
		return
	}
	info := r.info
	info.starts = append(info.starts, a)
	info.names[a] = typeName(r.data, r.lo, a)
	if hdr[abiTFlagOff]&tflagExtraStar != 0 {
		info.names[a] = strings.TrimPrefix(info.names[a], "*")
	}
	r.off(a+abiStrOff, false)
	r.off(a+abiPtrToThis, true)
	kind := hdr[abiKindOff] & kindMask
	if kind == 20 { // Interface: Methods []Imethod{Name NameOff; Typ TypeOff} at +56
		p, n := r.u64(a+56), r.u64(a+64)
		if p >= r.lo && p < r.hi && n < 1<<16 {
			info.extra[a] = append(info.extra[a], p)
			for i := range n {
				r.off(p+8*i, false)
				r.off(p+8*i+4, true)
			}
		}
	}
	if hdr[abiTFlagOff]&tflagUncommon != 0 {
		r.methods(a, kind)
	}
}

// methods reads the uncommon type of the descriptor at a, of the given kind: its package path and
// its method table, whose Ifn and Tfn are offsets from runtime.text.
func (r *typeReader) methods(a uint64, kind byte) {
	uo, ok := uncommonOffset[kind]
	if !ok {
		uo = abiTypeSize
	}
	un := a + uo
	mc, ok1 := r.u32(un + uncommonMcount)
	moff, ok2 := r.u32(un + uncommonMoff)
	if !ok1 || !ok2 {
		return
	}
	r.off(un, false) // PkgPath
	mt := un + uint64(moff)
	if mc&0xffff > 0 {
		r.info.extra[a] = append(r.info.extra[a], mt)
	}
	for i := range uint64(mc & 0xffff) {
		m := mt + i*methodSize
		r.off(m, false)
		r.off(m+4, true)
		for _, f := range []uint64{m + 8, m + 12} {
			if v, ok := r.u32(f); ok && v != 0xffffffff {
				r.info.fields[f] = r.b.text
			}
		}
	}
}

// itabs gives each type an edge to the itabs the linker made for it: the runtime registers them
// (.itablink) and finds them by type in dynamic conversions.
func (r *typeReader) itabs() {
	d := r.section(".itablink")
	for i := 0; i+8 <= len(d); i += 8 {
		itab := binary.LittleEndian.Uint64(d[i:])
		if u, o := r.b.lookup(itab); u != nil && u.kind == kindData && o+16 <= u.size {
			ud, _ := r.b.bytes(u)
			t := binary.LittleEndian.Uint64(ud[o+8:])
			r.info.extra[t] = append(r.info.extra[t], itab)
		}
	}
}

// builtFrom gives each type a listed type is built from an edge to it: reflect finds a listed type
// from those.
func (r *typeReader) builtFrom() {
	isType := map[uint64]bool{}
	for _, a := range r.info.starts {
		isType[a] = true
	}
	for _, x := range r.info.linked {
		if !isType[x] {
			continue
		}
		for _, c := range components(r.data, r.lo, r.hi, x, r.u64) {
			r.info.extra[c] = append(r.info.extra[c], x)
		}
	}
}

// components returns the types the descriptor at a is built from, as reflect's ArrayOf, ChanOf,
// FuncOf, MapOf, PointerTo, SliceOf and StructOf take them.
func components(data []byte, lo, hi, a uint64, u64 func(uint64) uint64) []uint64 {
	hdr := data[a-lo:]
	var out []uint64
	switch hdr[abiKindOff] & kindMask {
	case 17, 18, 22, 23: // Array, Chan, Pointer, Slice: Elem
		out = append(out, u64(a+48))
	case 21: // Map: Key, Elem
		out = append(out, u64(a+48), u64(a+56))
	case 19: // Func: InCount, OutCount, then the parameter types after the uncommon type if any
		in := uint64(binary.LittleEndian.Uint16(hdr[48:]))
		outc := uint64(binary.LittleEndian.Uint16(hdr[50:]) & 0x7fff)
		p := a + 56
		if hdr[abiTFlagOff]&tflagUncommon != 0 {
			p += 16
		}
		for i := range min(in+outc, 1<<10) {
			out = append(out, u64(p+8*i))
		}
	case 25: // Struct: Fields []StructField{Name, Typ, Offset}
		p, n := u64(a+56), u64(a+64)
		for i := range min(n, 1<<12) {
			out = append(out, u64(p+24*i+8))
		}
	}
	return slices.DeleteFunc(out, func(c uint64) bool { return c < lo || c >= hi })
}

// typeName reads the type string of the descriptor at a: the name its Str offset points to (a flag
// byte, a varint length, the bytes).
func typeName(data []byte, lo, a uint64) string {
	str := uint64(binary.LittleEndian.Uint32(data[a-lo+abiStrOff:]))
	if str+1 >= uint64(len(data)) {
		return ""
	}
	n, k := binary.Uvarint(data[str+1:])
	if k <= 0 || str+1+uint64(k)+n > uint64(len(data)) {
		return ""
	}
	return string(data[str+1+uint64(k) : str+1+uint64(k)+n])
}

// plausibleType checks the fixed part of a type descriptor, so that a pointer to something else in
// the carrier (a name, a field array) is not read as one.
func plausibleType(b *image, h []byte) bool {
	size := binary.LittleEndian.Uint64(h[0:])
	ptr := binary.LittleEndian.Uint64(h[8:])
	kind := h[abiKindOff] & kindMask
	align, falign := h[abiAlignOff], h[abiAlignOff+1]
	pow2 := func(x byte) bool { return x != 0 && x&(x-1) == 0 }
	if size > 1<<48 || ptr > size || kind == 0 || kind > 26 || !pow2(align) || !pow2(falign) {
		return false
	}
	if eq := binary.LittleEndian.Uint64(h[abiEqualOff:]); eq != 0 {
		// Equal is a func value: it points to a function descriptor, not to code.
		if u, _ := b.lookup(eq); u == nil || u.kind != kindData {
			return false
		}
	}
	if gc := binary.LittleEndian.Uint64(h[abiGCDataOff:]); gc != 0 {
		if u, _ := b.lookup(gc); u == nil {
			return false
		}
	}
	return true
}
