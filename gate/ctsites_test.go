package gate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// TestDecideConstantTimeSites: fail-new fails a new site beside base's and a lookup that touches more lines, and
// passes a lookup that touches fewer.
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
			Head: &record.CTSide{Loads: []record.CTSite{load(0x20, 10, 1), load(0x40, 11, 2)}}}, // fewer lines
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
