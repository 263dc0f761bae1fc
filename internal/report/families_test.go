package report

import (
	"testing"

	"github.com/perfgate/perfgate/record"
)

func TestCountFamilies(t *testing.T) {
	for _, tc := range []struct {
		fams []record.Family
		want string
	}{
		{nil, "no constructors"},
		{[]record.Family{record.FamilyHash, record.FamilyHash, record.FamilyHash}, "3 hashes"},
		{[]record.Family{record.FamilyAEAD, record.FamilyBlock, "", record.FamilySum},
			"2 block ciphers, 1 AEAD, 1 one-shot function"},
		{[]record.Family{record.FamilyStream, "quantum"}, "1 stream cipher, 1 constructor"},
	} {
		var cs []record.Cipher
		for _, f := range tc.fams {
			cs = append(cs, record.Cipher{Family: f})
		}
		if got := CountFamilies(cs); got != tc.want {
			t.Errorf("CountFamilies(%v) = %q, want %q", tc.fams, got, tc.want)
		}
	}
}
