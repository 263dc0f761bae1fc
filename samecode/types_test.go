package samecode

import (
	"debug/elf"
	"testing"
)

// TestTypeTableAgreesWithDWARF checks the discovery of type descriptors against an independent source:
// DWARF gives the address of every type's runtime descriptor (DW_AT_go_runtime_type, relative to
// runtime.types). Reading all of them must find no method-table text offset that typeTable, which starts
// only from references, .typelink and PtrToThis, missed: a missed offset would be a function reached
// through reflection or a run-time itab that the analysis does not compare.
func TestTypeTableAgreesWithDWARF(t *testing.T) {
	for _, variant := range []string{"base", "iface"} {
		path := fixtureTest(t, variant)
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
			if v, ok := e.Val(0x2904).(uint64); ok { // DW_AT_go_runtime_type
				starts = append(starts, lo+v)
			}
		}
		if len(starts) < 100 {
			t.Fatalf("%s: only %d types in DWARF", variant, len(starts))
		}
		carrier, _ := b.lookup(lo)
		found := map[uint64]bool{}
		for _, r := range b.raw[carrier].refs {
			if r.field == 4 {
				found[r.at] = true
			}
		}
		all := typeTable(b, lo, hi, starts)
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
}
