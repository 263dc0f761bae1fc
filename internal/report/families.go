package report

import (
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// families are the differential check's families in the order prose names them, with the noun for
// one and for several.
var families = []struct {
	f           record.Family
	one, plural string
}{
	{record.FamilyBlock, "block cipher", "block ciphers"},
	{record.FamilyAEAD, "AEAD", "AEADs"},
	{record.FamilyStream, "stream cipher", "stream ciphers"},
	{record.FamilyHash, "hash", "hashes"},
	{record.FamilySum, "one-shot function", "one-shot functions"},
}

// familyNoun is what n constructors of family f are called: "1 block cipher", "3 hashes". A Cipher
// from before families (Family "") is a block cipher; an unknown family is a "constructor".
func familyNoun(f record.Family, n int) string {
	one, plural := "constructor", "constructors"
	if f == "" {
		f = record.FamilyBlock
	}
	for _, x := range families {
		if x.f == f {
			one, plural = x.one, x.plural
		}
	}
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + plural
}

// CountFamilies names how many of cs each family has, in a fixed order: "2 block ciphers, 1 AEAD";
// "no constructors" for none.
func CountFamilies(cs []record.Cipher) string {
	count := map[record.Family]int{}
	for _, c := range cs {
		f := c.Family
		if f == "" {
			f = record.FamilyBlock
		}
		count[f]++
	}
	var parts []string
	for _, x := range families {
		if count[x.f] > 0 {
			parts = append(parts, familyNoun(x.f, count[x.f]))
			delete(count, x.f)
		}
	}
	other := 0
	for _, n := range count {
		other += n
	}
	if other > 0 {
		parts = append(parts, familyNoun("?", other))
	}
	if len(parts) == 0 {
		return "no constructors"
	}
	return strings.Join(parts, ", ")
}
