package gen

import (
	"crypto/des"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTrace checks the reference model against crypto/des: DES, and
// three-key Triple DES (EDE: the middle stage's subkeys reversed).
func TestTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		var key [24]byte
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		block := rng.Uint64()
		var src, want [8]byte
		binary.BigEndian.PutUint64(src[:], block)
		k := func(i int) uint64 { return binary.BigEndian.Uint64(key[8*i:]) }

		c, err := des.NewCipher(key[:8])
		if err != nil {
			t.Fatal(err)
		}
		c.Encrypt(want[:], src[:])
		got, in := Trace(block, Subkeys(k(0)))
		if got != binary.BigEndian.Uint64(want[:]) || len(in) != 16 {
			t.Fatalf("Trace(%016x, key %x) = %016x (%d rounds), want %x (16)", block, key[:8], got, len(in), want)
		}

		tc, err := des.NewTripleDESCipher(key[:])
		if err != nil {
			t.Fatal(err)
		}
		tc.Encrypt(want[:], src[:])
		k2 := Subkeys(k(1))
		slices.Reverse(k2[:])
		got, in = Trace(block, Subkeys(k(0)), k2, Subkeys(k(2)))
		if got != binary.BigEndian.Uint64(want[:]) || len(in) != 48 {
			t.Fatalf("Trace(%016x, key %x) = %016x (%d rounds), want %x (48)", block, key, got, len(in), want)
		}
	}
}

// TestTraceInputs checks the recorded S-box inputs on the worked example of
// FIPS 46-3 as taught (key 133457799BBCDFF1, plaintext 0123456789ABCDEF):
// round 1's expanded half XOR subkey is 011000 010001 011110 111010 100001
// 100110 010100 100111.
func TestTraceInputs(t *testing.T) {
	out, in := Trace(0x0123456789abcdef, Subkeys(0x133457799bbcdff1))
	if out != 0x85e813540f0ab405 {
		t.Errorf("output %016x, want 85e813540f0ab405", out)
	}
	if want := [8]uint8{0b011000, 0b010001, 0b011110, 0b111010, 0b100001, 0b100110, 0b010100, 0b100111}; in[0] != want {
		t.Errorf("round 1 S-box inputs %06b, want %06b", in[0], want)
	}
}
