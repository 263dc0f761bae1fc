package samecode

import (
	"debug/elf"
	"testing"
)

// TestTypeTableAgreesWithDWARF checks the discovery of type descriptors against an independent
// source: DWARF gives the address of every type's runtime descriptor (DW_AT_go_runtime_type,
// relative to runtime.types). Reading all of them must find no method-table text offset that
// typeTable, which starts only from references, .typelink and PtrToThis, missed: a missed offset
// would be a function reached through reflection or a run-time itab that the analysis does not
// compare.
func TestTypeTableAgreesWithDWARF(t *testing.T) {
	for _, variant := range []string{"base", "iface"} {
		path := fixtureTest(t, variant)
		checkTypeTable(t, variant, path)
	}
}

// checkTypeTable compares typeTable's discovery in the binary at path with DWARF's list of
// descriptors.
func checkTypeTable(t *testing.T, variant, path string) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := load(path, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := prepare(b); err != nil {
		t.Fatal(err)
	}
	lo, hi := b.marks["runtime.types"], b.marks["runtime.etypes"]
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	var starts []uint64
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if v, ok := e.Val(0x2904).(uint64); ok && v != 0 { // DW_AT_go_runtime_type; 0: none
			starts = append(starts, lo+v)
		}
	}
	for _, a := range starts {
		if a%8 != 0 || a+abiTypeSize > hi {
			t.Errorf("%s: DWARF type descriptor at %#x outside the types", variant, a)
			continue
		}
		u, _ := b.lookup(a)
		data, err := u.sect.Data()
		if err != nil {
			t.Fatal(err)
		}
		if !plausibleType(b, data[a-u.sect.Addr:]) {
			t.Errorf("%s: DWARF type descriptor at %#x does not read as one", variant, a)
		}
	}
	if len(starts) < 100 {
		t.Fatalf("%s: only %d types in DWARF", variant, len(starts))
	}
	found := map[uint64]bool{}
	for _, rs := range b.raw {
		for _, r := range rs.refs {
			if r.field == 4 {
				found[r.at] = true
			}
		}
	}
	all := map[uint64]bool{}
	for at, base := range typeTable(b, lo, hi, starts).fields {
		if base == b.text {
			all[at] = true
		}
	}
	if len(all) == 0 {
		t.Fatalf("%s: no method-table text offsets at all", variant)
	}
	for at := range all {
		if !found[at] {
			t.Errorf("%s: text offset at %#x not found from references", variant, at)
		}
	}
	t.Logf("%s: %d types in DWARF, %d method text offsets", variant, len(starts), len(all))
}
