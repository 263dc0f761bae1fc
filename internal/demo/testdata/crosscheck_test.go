package minides

// This file is copied into an exported fixture tree by the demo package's
// tests. It checks the fixture against crypto/des, which the fixture's own
// tests deliberately do not do (the broken variant must pass those).

import (
	"bytes"
	"crypto/des"
	"testing"
)

// TestCrossCheckStdlib compares DES and EDE3 with crypto/des on 256 keys
// of 24 bytes and 17 blocks each, in both directions, through both the
// single-block and the batch methods.
func TestCrossCheckStdlib(t *testing.T) {
	seed := uint32(2024)
	next := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			seed = seed*1664525 + 1013904223
			b[i] = byte(seed >> 24)
		}
		return b
	}
	for n := 0; n < 256; n++ {
		key := next(24)
		src := next(17 * BlockSize)

		std, err := des.NewCipher(key[:8])
		if err != nil {
			t.Fatal(err)
		}
		std3, err := des.NewTripleDESCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewCipher(key[:8])
		if err != nil {
			t.Fatal(err)
		}
		c3, err := NewTripleEDE3(key)
		if err != nil {
			t.Fatal(err)
		}
		check := func(name string, want func(dst, src []byte), single func(dst, src []byte), blocks func(dst, src []byte)) {
			t.Helper()
			exp := make([]byte, len(src))
			for i := 0; i < len(src); i += BlockSize {
				want(exp[i:], src[i:])
			}
			got := make([]byte, len(src))
			blocks(got, src)
			if !bytes.Equal(got, exp) {
				t.Fatalf("%s key %x: batch = %x, crypto/des = %x", name, key, got, exp)
			}
			for i := 0; i < len(src); i += BlockSize {
				single(got[i:], src[i:])
			}
			if !bytes.Equal(got, exp) {
				t.Fatalf("%s key %x: single = %x, crypto/des = %x", name, key, got, exp)
			}
		}
		check("des encrypt", std.Encrypt, c.Encrypt, c.EncryptBlocks)
		check("des decrypt", std.Decrypt, c.Decrypt, c.DecryptBlocks)
		check("ede3 encrypt", std3.Encrypt, c3.Encrypt, c3.EncryptBlocks)
		check("ede3 decrypt", std3.Decrypt, c3.Decrypt, c3.DecryptBlocks)
	}
}
