package vectors

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// nKeys is the differential check's default number of keys per key size (differential.DefaultKeys).
const nKeys = 1024

func TestKeyListShape(t *testing.T) {
	for _, tc := range []struct {
		size, special int // special: structured keys before the random ones
	}{
		// weak-ish keys, with parity flipped, single-bit keys
		{8, 2*64 + 64},
		{16, 2*64 + 6 + degenerateTriple + 128},   // + semi-weak pairs, K1=K2
		{24, 2*64 + 6 + 3*degenerateTriple + 192}, // + K2=K3, K1=K3
		{5, 40}, // single-bit keys only
	} {
		keys := Keys(Rand(1, "X", tc.size), tc.size, nKeys)
		if len(keys) != nKeys {
			t.Fatalf("size %d: %d keys, want %d", tc.size, len(keys), nKeys)
		}
		if got := len(specialKeys(Rand(1, "X", tc.size), tc.size)); got != tc.special {
			t.Errorf("size %d: %d special keys, want %d", tc.size, got, tc.special)
		}
		for i, k := range keys {
			if len(k) != tc.size {
				t.Fatalf("size %d: key %d has %d bytes", tc.size, i, len(k))
			}
		}
		// The last special key is the one with only the last bit set.
		last := keys[tc.special-1]
		if last[tc.size-1] != 1 || bytes.Count(last, []byte{0}) != tc.size-1 {
			t.Errorf("size %d: last special key %x, want only the last bit set", tc.size, last)
		}
		// Truncation keeps the order.
		short := Keys(Rand(1, "X", tc.size), tc.size, 10)
		for i := range short {
			if !bytes.Equal(short[i], keys[i]) {
				t.Errorf("size %d: truncated key %d differs", tc.size, i)
			}
		}
	}
}

func TestSpecialKeysContent(t *testing.T) {
	hexes := func(keys [][]byte) map[string]bool {
		m := map[string]bool{}
		for _, k := range keys {
			m[hex.EncodeToString(k)] = true
		}
		return m
	}
	des := hexes(specialKeys(Rand(1, "X", 8), 8))
	for _, k := range []string{
		// a weak key (SP 800-67) and it with parity bits flipped
		"0101010101010101", "0000000000000000",
		"01fe01fe01fe01fe", "00ff00ff00ff00ff", // a semi-weak key and it flipped
		"1f1f01010e0e0101", "1e1e00000f0f0000", // a possibly weak key and it flipped
		// single-bit keys, the first a key bit, the last a parity bit
		"8000000000000000", "0000000000000001",
	} {
		if !des[k] {
			t.Errorf("8-byte keys lack %s", k)
		}
	}
	tdes := specialKeys(Rand(1, "X", 24), 24)
	set := hexes(tdes)
	for _, k := range []string{
		"010101010101010101010101010101010101010101010101", // weak key as K1=K2=K3
		"01fe01fe01fe01fefe01fe01fe01fe0101fe01fe01fe01fe", // semi-weak pair K1|K2|K1
	} {
		if !set[k] {
			t.Errorf("24-byte keys lack %s", k)
		}
	}
	// Degenerate keys follow the 2×64 repeated and 6 semi-weak-pair keys: degenerateTriple of each
	// shape, in the order K1=K2, K2=K3, K1=K3, with the other part different.
	start := 2*64 + 6
	for i, shape := range []string{"K1=K2", "K2=K3", "K1=K3"} {
		for _, k := range tdes[start+i*degenerateTriple : start+(i+1)*degenerateTriple] {
			k1, k2, k3 := k[:8], k[8:16], k[16:]
			got := map[bool]string{true: "K1=K2"}[bytes.Equal(k1, k2)] +
				map[bool]string{true: "K2=K3"}[bytes.Equal(k2, k3)] +
				map[bool]string{true: "K1=K3"}[bytes.Equal(k1, k3)]
			if got != shape {
				t.Errorf("degenerate key %x has shape %q, want %q", k, got, shape)
			}
		}
	}
}
