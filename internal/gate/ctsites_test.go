package gate

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// TestDecideConstantTimeSites: fail-new fails a new site beside base's and a lookup that touches
// more lines, and passes a lookup that touches fewer.
func TestDecideConstantTimeSites(t *testing.T) {
	load := func(off, line, perLookup int) record.CTSite {
		return record.CTSite{Function: "feistel", Offset: off, File: "block.go", Line: line, Kind: "load",
			Table: "spBox", TableSize: 2048, LinesPerLookup: perLookup}
	}
	base := &record.CTSide{Loads: []record.CTSite{load(0x20, 10, 1), load(0x40, 11, 4)}}
	ct := &record.ConstantTime{Status: record.CTChecked, Operations: []record.CTOperation{
		{Constructor: "NewCipher", Operation: "Encrypt", Base: base,
			Head: &record.CTSide{Loads: []record.CTSite{load(0x20, 10, 4), load(0x40, 11, 4), load(0x60, 12, 1)}}},
		{Constructor: "NewCipher", Operation: "Decrypt", Base: base,
			// fewer lines
			Head: &record.CTSide{Loads: []record.CTSite{load(0x20, 10, 1), load(0x40, 11, 2)}}},
	}}
	v := Decide(record.Result{ConstantTime: ct}, Policy{ConstantTime: record.CTFailNew})
	want := []string{
		"constant time: head adds 1 secret-indexed load site (first at feistel+0x60 block.go:12, reading spBox) in " +
			"NewCipher Encrypt, beside base's",
		"constant time: in NewCipher Encrypt, 1 secret-indexed load site whose lookups touch more 64-byte lines " +
			"than base's (first at feistel+0x20 block.go:10, reading spBox: 1 → 4 lines)",
	}
	ctReasons := func(v record.Verdict) []string {
		var out []string
		for _, r := range v.Reasons {
			if strings.HasPrefix(r, "constant time:") {
				out = append(out, r)
			}
		}
		return out
	}
	if got := ctReasons(v); v.Status != record.StatusFail || !cmp.Equal(got, want) {
		t.Errorf("fail-new: %s, reasons (-want +got):\n%s", v.Status, cmp.Diff(want, got))
	}
	if got := ctReasons(Decide(record.Result{ConstantTime: ct}, Policy{ConstantTime: record.CTReport})); len(got) != 0 {
		t.Errorf("report fails: %q", got)
	}
}

// TestConstantTimeCheckByDefault: the default (empty constant-time) lists the check when it ran, by
// the mode the record says it ran under, with what it left out.
func TestConstantTimeCheckByDefault(t *testing.T) {
	ct := &record.ConstantTime{Status: record.CTChecked, Mode: record.CTReport, Operations: []record.CTOperation{
		{Constructor: "NewCipher", Operation: "Encrypt", Base: &record.CTSide{}, Head: &record.CTSide{}}},
		NotTraced: []record.CTNotTraced{{Constructor: "NewTripleEDE3", Reason: record.CTSameCode},
			{Constructor: "NewTripleEEE3", Reason: record.CTBudget}}}
	v := Decide(record.Result{ConstantTime: ct}, Policy{})
	want := record.Check{Name: record.CheckConstantTime, Ran: true,
		Detail: "1 operation; 1 constructor with the same code not traced; 1 constructor left out by the budget"}
	var got *record.Check
	for i := range v.Checks {
		if v.Checks[i].Name == record.CheckConstantTime {
			got = &v.Checks[i]
		}
	}
	if got == nil || *got != want {
		t.Errorf("constant-time row %+v, want %+v", got, want)
	}
	if v := Decide(record.Result{}, Policy{}); slices.ContainsFunc(v.Checks, func(c record.Check) bool {
		return c.Name == record.CheckConstantTime
	}) {
		t.Errorf("a check that did not run by default is listed: %+v", v.Checks)
	}
}
