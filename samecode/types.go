package samecode

import (
	"encoding/binary"
	"slices"
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

// typeTable reads type descriptors in the types carrier [lo, hi) and finds the text offsets of their
// method tables (Ifn, Tfn), which are relative to runtime.text. A descriptor is found wherever something
// points into the carrier, wherever .typelink says one is, and wherever a found descriptor's PtrToThis says
// one is; a place that does not read as a sound descriptor is left alone.
func typeTable(b *image, lo, hi uint64, pointed []uint64) map[uint64]bool {
	carrier, _ := b.lookup(lo)
	if carrier == nil {
		return nil
	}
	data, err := b.bytes(carrier)
	if err != nil {
		return nil
	}
	data = data[:min(uint64(len(data)), hi-lo)]
	u32 := func(a uint64) (uint32, bool) {
		if a < lo || a+4 > lo+uint64(len(data)) {
			return 0, false
		}
		return binary.LittleEndian.Uint32(data[a-lo:]), true
	}
	textOffs := map[uint64]bool{} // addresses of Ifn/Tfn fields
	seen := map[uint64]bool{}
	work := slices.Clone(pointed)
	if tl := b.f.Section(".typelink"); tl != nil {
		if d, err := tl.Data(); err == nil {
			for i := 0; i+4 <= len(d); i += 4 {
				work = append(work, lo+uint64(binary.LittleEndian.Uint32(d[i:])))
			}
		}
	}
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[a] || a < lo || a+abiTypeSize > lo+uint64(len(data)) || a%8 != 0 {
			continue
		}
		seen[a] = true
		if !plausibleType(b, data[a-lo:a-lo+abiTypeSize]) {
			continue
		}
		if p, _ := u32(a + abiPtrToThis); p != 0 {
			work = append(work, lo+uint64(p))
		}
		hdr := data[a-lo:]
		if hdr[abiTFlagOff]&tflagUncommon == 0 {
			continue
		}
		uo, ok := uncommonOffset[hdr[abiKindOff]&kindMask]
		if !ok {
			uo = abiTypeSize
		}
		un := a + uo
		mc, ok1 := u32(un + uncommonMcount)
		moff, ok2 := u32(un + uncommonMoff)
		if !ok1 || !ok2 {
			continue
		}
		for i := range uint64(mc & 0xffff) {
			m := un + uint64(moff) + i*methodSize
			for _, f := range []uint64{m + 8, m + 12} {
				if v, ok := u32(f); ok && v != 0xffffffff {
					textOffs[f] = true
				}
			}
		}
	}
	return textOffs
}

// plausibleType checks the fixed part of a type descriptor, so that a pointer to something else in the
// carrier (a name, a field array) is not read as one.
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
		if u, off := b.lookup(eq); u == nil || u.kind != kindText || off != 0 {
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
