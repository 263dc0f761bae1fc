package gate

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

func TestDecideConstantTime(t *testing.T) {
	clean := &record.CTSide{}
	leaky := &record.CTSide{Branches: []record.CTSite{{Function: "(*Cipher).Encrypt", Offset: 0x36, File: "arx.go",
		Line: 44}}}
	ct := &record.ConstantTime{Status: record.CTChecked, Operations: []record.CTOperation{
		{Constructor: "NewCipher", Operation: "Encrypt", Base: clean, Head: leaky},
		{Constructor: "NewCipher", Operation: "Decrypt", Base: clean, Head: clean},
	}}
	r := record.Result{ConstantTime: ct}
	constantTime := func(v record.Verdict) []string {
		var out []string
		for _, s := range append(v.Reasons, v.Notes...) {
			if strings.Contains(s, "constant time") || strings.Contains(s, "constant-time") {
				out = append(out, s)
			}
		}
		return out
	}
	v := Decide(r, Policy{ConstantTime: record.CTFailNew})
	want := "constant time: head adds 1 secret-dependent branch (first at (*Cipher).Encrypt+0x36 arx.go:44) in " +
		"NewCipher Encrypt, where base had none"
	if v.Status != record.StatusFail || len(constantTime(v)) != 1 || constantTime(v)[0] != want {
		t.Errorf("fail-new: %s %q, want fail with %q", v.Status, constantTime(v), want)
	}
	for _, mode := range []record.ConstantTimeMode{record.CTReport, record.CTOff} {
		if got := constantTime(Decide(r, Policy{ConstantTime: mode})); len(got) != 0 {
			t.Errorf("%s: %q, want nothing about constant time", mode, got)
		}
	}
	r.ConstantTime = &record.ConstantTime{Status: record.CTUnavailable, Reason: "valgrind not found"}
	v = Decide(r, Policy{ConstantTime: record.CTFailNew})
	// The note says the check did not run; Verdict.Checks lists it as not run (the reason that
	// nothing was checked names it among the others).
	if got := constantTime(record.Verdict{Notes: v.Notes}); len(got) != 1 || !strings.Contains(got[0], "not run") {
		t.Errorf("unavailable: %q (notes %q), want a note that the check did not run", got, v.Notes)
	}
}
