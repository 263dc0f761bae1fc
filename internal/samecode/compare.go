package samecode

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// ref is a reference after normalisation: the unit referred to and the offset in it. A reference
// from a function into itself has an empty name, so that it reads the same wherever the function
// was placed.
type ref struct {
	name string
	off  uint64
}

// sig is a unit's normalised content and its outgoing references, in the order they occur.
type sig struct {
	norm  []byte
	refs  []ref
	edges []*unit // the units referred to (no self, no link metadata), to be reached in turn
	// allocs are the type descriptors the unit refers to only as the type of an allocation
	// (allocOnly): they are reached for their layout, not for their methods or the types built from
	// them.
	allocs []*unit
	// next names the piece after a piece of a static data stretch (splitGaps); "" when it ends its
	// stretch.
	next string
	bad  string
}

// sigOf resolves the references of u to units and offsets.
func (b *image) sigOf(u *unit) *sig {
	if s, ok := b.sigs[u]; ok {
		return s
	}
	s := &sig{}
	b.sigs[u] = s
	rs := b.raw[u]
	if rs == nil {
		return s // bss or metadata: nothing to read
	}
	s.norm, s.bad = rs.norm, rs.bad
	seen, alloc := map[*unit]bool{u: true}, map[*unit]bool{}
	for _, r := range rs.refs {
		t, off := b.lookup(r.target)
		if r.next && t != nil {
			s.next = t.name
			if !seen[t] {
				seen[t] = true
				s.edges = append(s.edges, t)
			}
			continue
		}
		if t != nil && t != u && b.allocOnly(r, t, off) {
			s.refs = append(s.refs, ref{t.name, off})
			if !seen[t] && !alloc[t] {
				alloc[t] = true
				s.allocs = append(s.allocs, t)
			}
			continue
		}
		switch {
		case t == nil && r.exact:
			s.bad = fmt.Sprintf("refers to %#x, which lies in no symbol", r.target)
			return s
		case t == nil:
			continue // an absolute operand that is no address: its bytes are compared as they are
		case !r.exact && t.kind == kindBSS && off >= deepInBSS:
			// An absolute operand deep inside zero-initialised data: a constant (8 MiB, 32 MiB,
			// 10,000,000) that falls into a large buffer, such as the 32 MiB of
			// crypto/internal/fips140/drbg.memory. Its bytes are compared as they are; a bss unit
			// has nothing to compare but its size.
			continue
		case t == u:
			s.refs = append(s.refs, ref{"", off})
			continue
		}
		s.refs = append(s.refs, ref{t.name, off})
		if !seen[t] && t.kind != kindMeta {
			seen[t] = true
			s.edges = append(s.edges, t)
		}
	}
	// A descriptor the unit also refers to otherwise is reached in full.
	s.allocs = slices.DeleteFunc(s.allocs, func(t *unit) bool { return seen[t] })
	if readsTypelinks(u.name, s.edges) || u.name == "runtime.typelinksinit" && b.multiModule() {
		// The list itself is what such code reads: it is compared as references.
		for _, a := range b.typelinks {
			t, off := b.lookup(a)
			if t == nil {
				s.bad = fmt.Sprintf(".typelink lists %#x, which lies in no symbol", a)
				return s
			}
			s.refs = append(s.refs, ref{t.name, off})
			if !seen[t] {
				seen[t] = true
				s.edges = append(s.edges, t)
			}
		}
	}
	return s
}

// readsTypelinks reports whether the function named name, with these callees, reads the whole
// .typelink list through the module data, and so reaches every type it lists. reflect's own reader,
// typesByString, is not one: it looks up the type built from types the program already holds
// (PointerTo(t), SliceOf(t), MapOf(k, e) …), and typeTable gives every type of the list an edge
// from each type it is built from instead. Any other caller of reflect.typelinks (a linkname in a
// third-party package) reaches all. runtime.typelinksinit reads the list too, but returns at once
// in a program of one module.
func readsTypelinks(name string, callees []*unit) bool {
	if name == "reflect.typesByString" || name == "reflect.typelinks" {
		return false
	}
	for _, c := range callees {
		if c.name == "reflect.typelinks" || c.name == "runtime.reflect_typelinks" {
			return true
		}
	}
	return false
}

// multiModule reports whether the program may run with more than one Go module (dynamically linked,
// or able to open plugins), when runtime.typelinksinit does read every module's .typelink.
func (b *image) multiModule() bool {
	return b.f.Section(".interp") != nil || b.byNam["plugin.Open"] != nil
}

// differ says how u (in base) and the unit of the same name in head differ, or "" when they are the
// same after normalisation.
func differ(base, head *image, u *unit) string {
	h := head.byNam[u.name]
	switch {
	case h == nil:
		return "not in head"
	case h.kind != u.kind:
		return "changed kind"
	case h.size != u.size:
		return fmt.Sprintf("size %d → %d", u.size, h.size)
	case u.kind == kindMeta || u.kind == kindBSS:
		return ""
	}
	bs, hs := base.sigOf(u), head.sigOf(h)
	switch {
	case bs.bad != "":
		return "not analysable in base: " + bs.bad
	case hs.bad != "":
		return "not analysable in head: " + hs.bad
	case !bytes.Equal(bs.norm, hs.norm):
		i := 0
		for i < min(len(bs.norm), len(hs.norm)) && bs.norm[i] == hs.norm[i] {
			i++
		}
		return fmt.Sprintf("bytes differ at +%#x", i)
	case len(bs.refs) != len(hs.refs):
		return fmt.Sprintf("%d references → %d", len(bs.refs), len(hs.refs))
	case bs.next != "" && hs.next != "" && bs.next != hs.next:
		return fmt.Sprintf("followed by %s → %s", bs.next, hs.next)
	}
	for i, r := range bs.refs {
		if hr := hs.refs[i]; hr != r {
			return fmt.Sprintf("refers to %s → %s", r, hr)
		}
	}
	return ""
}

func (r ref) String() string {
	if r.name == "" {
		return fmt.Sprintf("itself+%#x", r.off)
	}
	if r.off == 0 {
		return r.name
	}
	return fmt.Sprintf("%s+%#x", r.name, r.off)
}

// deepInBSS is the offset into a bss unit from which an absolute operand of assembly, or an aligned
// data word, is read as a number, not as an address (see sigOf and scanData): its bytes are
// compared as they are. Were it an address, the linker would have moved it with the unit, and its
// bytes would differ: bytes that are the same in base and head while the unit moved are a number,
// unless the source's offset changed by exactly the distance the unit moved (the residual
// assumption of the package documentation).
const deepInBSS = 4 << 10

// allocOnly reports whether r, a reference of a function to unit t at offset off, is only the type
// argument of an allocation: LEAQ t(IP), AX directly followed by CALL runtime.newobject, with t a
// type descriptor referred to at its start. new(T) and &T{} compile to it. The allocator reads of
// the descriptor only what lays the object out (its size, pointer bytes, GC mask and kind) and
// keeps it only for the garbage collector; no program code can get it back from the object. So what
// the descriptor leads to beyond its layout — its methods, the pointer type PtrToThis names, its
// field types — is not reached through this reference: a benchmark that allocates a T does not
// reach (*T).Method by that alone. Any other reference to the descriptor (an interface's type word,
// reflect, a conversion) reaches it in full.
func (b *image) allocOnly(r rawRef, t *unit, off uint64) bool {
	if r.callNext == 0 || off != 0 || t.kind != kindData || !strings.HasPrefix(t.name, "type:") {
		return false
	}
	c, coff := b.lookup(r.callNext)
	return c != nil && coff == 0 && c.kind == kindText && c.name == "runtime.newobject"
}

// layoutEdges are the units a type descriptor u reached only as the type of an allocation leads to:
// its GC mask (Type.GCData), which the allocator and the collector read. The rest of the descriptor
// is compared, not followed.
func (b *image) layoutEdges(u *unit) []*unit {
	rs := b.raw[u]
	if rs == nil {
		return nil
	}
	for _, r := range rs.refs {
		if r.at == u.addr+abiGCDataOff {
			if t, _ := b.lookup(r.target); t != nil && t != u && t.kind != kindMeta {
				return []*unit{t}
			}
		}
	}
	return nil
}
