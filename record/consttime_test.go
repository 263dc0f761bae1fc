package record

import "testing"

func TestNewlyNotConstantTime(t *testing.T) {
	leak := &CTSide{Loads: []CTSite{{Table: "sbox", TableSize: 256, Lines: 4}}}
	clean := &CTSide{}
	broken := &CTSide{Error: "panic"}
	ct := &ConstantTime{Status: CTChecked, Operations: []CTOperation{
		{Operation: "new leak", Base: clean, Head: leak},
		{Operation: "old leak", Base: leak, Head: leak},
		{Operation: "still clean", Base: clean, Head: clean},
		{Operation: "head only", Head: leak},
		{Operation: "base failed", Base: broken, Head: leak},
		{Operation: "new branch", Base: clean, Head: &CTSide{Branches: []CTSite{{Function: "f"}}}},
	}}
	got := ct.NewlyNotConstantTime()
	if len(got) != 2 || got[0].Operation != "new leak" || got[1].Operation != "new branch" {
		t.Errorf("fail-new fails %+v, want new leak and new branch", got)
	}
	ct.Status = CTUnavailable
	if got := ct.NewlyNotConstantTime(); len(got) != 0 {
		t.Errorf("an unchecked result fails %+v", got)
	}
	if !(&CTOperation{Base: clean, Head: leak}).Changed() || (&CTOperation{Base: leak, Head: leak}).Changed() {
		t.Error("Changed is wrong")
	}
}
