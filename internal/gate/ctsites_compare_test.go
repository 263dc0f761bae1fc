package gate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

func TestSiteDeltas(t *testing.T) {
	load := func(fn string, off, line, perLookup int) record.CTSite {
		return record.CTSite{Function: fn, Offset: off, File: "block.go", Line: line, Kind: "load", Table: "sbox",
			TableSize: 256, LinesPerLookup: perLookup}
	}
	base := &record.CTSide{
		Branches: []record.CTSite{{Function: "expand", Offset: 0x10, File: "key.go", Line: 7}},
		Loads: []record.CTSite{
			load("feistel", 0x20, 10, 4), // moves to line 12 in head, same lines per lookup
			load("feistel", 0x40, 11, 2), // moves to line 13 and touches more lines
			load("round", 0x08, 30, 4),   // gone in head
		},
	}
	head := &record.CTSide{
		Loads: []record.CTSite{
			load("feistel", 0x24, 12, 4),
			load("feistel", 0x44, 13, 4),
			load("feistel", 0x60, 14, 1), // a third lookup of the table: new
		},
	}
	o := record.CTOperation{Constructor: "NewCipher", Operation: "Encrypt", Base: base, Head: head}
	type row struct {
		Kind  CTSiteKind
		State CTSiteState
		Off   int
		Base  int
	}
	var got []row
	for _, d := range OperationSiteDeltas(&o) {
		r := row{d.Kind, d.State, d.Site.Offset, -1}
		if d.Base != nil {
			r.Base = d.Base.Offset
		}
		if !d.Gates {
			t.Errorf("%+v does not gate, though both sides traced the operation", d)
		}
		got = append(got, r)
	}
	want := []row{
		{CTBranch, CTSiteAbsent, 0x10, -1},
		{CTLoad, CTSiteUnchanged, 0x24, 0x20},
		{CTLoad, CTSiteGrew, 0x44, 0x40},
		{CTLoad, CTSiteNew, 0x60, -1},
		{CTLoad, CTSiteAbsent, 0x08, -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SiteDeltas (-want +got):\n%s", diff)
	}

	// A site on the same line matches before order does: head inserts a lookup before the first.
	head2 := &record.CTSide{Loads: []record.CTSite{load("feistel", 0x10, 9, 1), load("feistel", 0x24, 10, 4),
		load("feistel", 0x44, 11, 2), load("round", 0x08, 30, 4)}}
	o2 := record.CTOperation{Base: &record.CTSide{Loads: base.Loads}, Head: head2}
	var states []CTSiteState
	for _, d := range OperationSiteDeltas(&o2) {
		states = append(states, d.State)
	}
	if diff := cmp.Diff([]CTSiteState{CTSiteNew, CTSiteUnchanged, CTSiteUnchanged, CTSiteUnchanged}, states); diff != "" {
		t.Errorf("matching by line (-want +got):\n%s", diff)
	}

	// A function inlined on one side only is the same source: the copy in crypt matches base's
	// feistel.
	o3 := record.CTOperation{Base: &record.CTSide{Loads: []record.CTSite{load("feistel", 0xa6, 36, 2)}},
		Head: &record.CTSide{Loads: []record.CTSite{{Function: "crypt", Inlined: "feistel", Offset: 0x13c, File: "block.go",
			Line: 37, Kind: "load", LinesPerLookup: 5}}}}
	if d := OperationSiteDeltas(&o3); len(d) != 1 || d[0].State != CTSiteGrew {
		t.Errorf("inlined on one side: %+v, want one site that grew", d)
	}

	ct := &record.ConstantTime{Status: record.CTChecked, Operations: []record.CTOperation{o,
		// head only: new sites, not gating
		{Constructor: "NewOther", Operation: "Encrypt", Head: head},
		{Constructor: "NewBroken", Operation: "Encrypt", Base: &record.CTSide{Error: "panic"}, Head: head},
	}}
	var fails []int
	for _, d := range NewSites(ct) {
		if d.Constructor != "NewCipher" {
			t.Errorf("%s %s fails, but base has no clean trace of it", d.Constructor, d.Operation)
		}
		fails = append(fails, d.Site.Offset)
	}
	if diff := cmp.Diff([]int{0x44, 0x60}, fails); diff != "" {
		t.Errorf("NewSites (-want +got):\n%s", diff)
	}
	ct.Status = record.CTUnavailable
	if n := len(NewSites(ct)); n != 0 {
		t.Errorf("an unchecked result has %d new sites", n)
	}
}
