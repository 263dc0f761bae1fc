package des

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"fmt"
	"testing"
)

func TestKeySizeError(t *testing.T) {
	for _, v := range variants {
		for n := 0; n <= 33; n++ {
			c, err := v.make(make([]byte, n))
			if n == v.keyLen {
				if err != nil || c == nil {
					t.Errorf("%s: %d-byte key: %v", v.name, n, err)
				}
				continue
			}
			var kse KeySizeError
			if !errors.As(err, &kse) || int(kse) != n {
				t.Errorf("%s: %d-byte key: err = %v, want KeySizeError(%d)", v.name, n, err, n)
				continue
			}
			if want := fmt.Sprintf("des: invalid key size %d", n); err.Error() != want {
				t.Errorf("%s: Error() = %q, want %q", v.name, err.Error(), want)
			}
		}
	}
}

// TestParityIgnored checks that keys differing only in their parity bits
// (the low bit of every byte) give identical results.
func TestParityIgnored(t *testing.T) {
	data := []byte("parity bits are ignored.")
	for _, v := range variants {
		key := benchKey(v.keyLen)
		flipped := bytes.Clone(key)
		for i := range flipped {
			flipped[i] ^= 1
		}
		a, errA := v.make(key)
		b, errB := v.make(flipped)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		outA, outB := make([]byte, len(data)), make([]byte, len(data))
		a.EncryptBlocks(outA, data)
		b.EncryptBlocks(outB, data)
		if !bytes.Equal(outA, outB) {
			t.Errorf("%s: parity changed the ciphertext: %x vs %x", v.name, outA, outB)
		}
		// And a non-parity bit does change it, so the check above can fail.
		flipped[0] ^= 3
		b, _ = v.make(flipped)
		b.EncryptBlocks(outB, data)
		if bytes.Equal(outA, outB) {
			t.Errorf("%s: flipping a key bit did not change the ciphertext", v.name)
		}
	}
}

func TestBlockSize(t *testing.T) {
	for _, v := range variants {
		c, _ := v.make(benchKey(v.keyLen))
		if c.BlockSize() != 8 {
			t.Errorf("%s: BlockSize() = %d", v.name, c.BlockSize())
		}
	}
}

// expectPanic runs f and checks it panics with message want.
func expectPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		got := recover()
		if got != want {
			t.Errorf("%s: panic %v, want %q", what, got, want)
		}
	}()
	f()
}

func TestPanics(t *testing.T) {
	buf := make([]byte, 64)
	for _, v := range variants {
		c, _ := v.make(benchKey(v.keyLen))
		single := map[string]func(dst, src []byte){"Encrypt": c.Encrypt, "Decrypt": c.Decrypt}
		for name, f := range single {
			what := v.name + "." + name
			expectPanic(t, what+" short src", "des: input not full block", func() { f(buf[:8], buf[16:23]) })
			expectPanic(t, what+" short dst", "des: output not full block", func() { f(buf[:7], buf[16:24]) })
			expectPanic(t, what+" overlap", "des: invalid buffer overlap", func() { f(buf[1:9], buf[0:8]) })
			expectPanic(t, what+" overlap", "des: invalid buffer overlap", func() { f(buf[0:8], buf[7:15]) })
		}
		batch := map[string]func(dst, src []byte){"EncryptBlocks": c.EncryptBlocks, "DecryptBlocks": c.DecryptBlocks}
		for name, f := range batch {
			what := v.name + "." + name
			expectPanic(t, what+" partial src", "des: input not full block", func() { f(buf[:32], buf[32:44]) })
			expectPanic(t, what+" short dst", "des: output not full block", func() { f(buf[:15], buf[32:48]) })
			expectPanic(t, what+" overlap", "des: invalid buffer overlap", func() { f(buf[8:24], buf[0:16]) })
			expectPanic(t, what+" overlap", "des: invalid buffer overlap", func() { f(buf[0:16], buf[15:31]) })
		}
	}
}

// TestNoWritePastBlock checks that Encrypt and Decrypt write exactly one
// block and the batch calls exactly len(src) bytes of a longer dst, and that
// nothing is written when the call panics.
func TestNoWritePastBlock(t *testing.T) {
	for _, v := range variants {
		c, _ := v.make(benchKey(v.keyLen))
		calls := []struct {
			name   string
			f      func(dst, src []byte)
			n, src int // bytes to be written, bytes of src
		}{
			// The single-block calls get two blocks and must use only the first.
			{"Encrypt", c.Encrypt, 8, 16}, {"Decrypt", c.Decrypt, 8, 16},
			{"EncryptBlocks", c.EncryptBlocks, 24, 24}, {"DecryptBlocks", c.DecryptBlocks, 24, 24},
			{"EncryptBlocks", c.EncryptBlocks, 0, 0}, {"DecryptBlocks", c.DecryptBlocks, 0, 0},
		}
		for _, call := range calls {
			src := bytes.Repeat([]byte{0x3c}, call.src)
			dst := bytes.Repeat([]byte{0xa5}, call.n+16)
			call.f(dst, src)
			if !bytes.Equal(dst[call.n:], bytes.Repeat([]byte{0xa5}, 16)) {
				t.Errorf("%s.%s(%d bytes) wrote past its output: %x", v.name, call.name, call.n, dst)
			}
			if call.n > 0 && bytes.Equal(dst[:call.n], bytes.Repeat([]byte{0xa5}, call.n)) {
				t.Errorf("%s.%s(%d bytes) wrote nothing", v.name, call.name, call.n)
			}
		}
		// A panicking call leaves dst alone.
		dst := bytes.Repeat([]byte{0xa5}, 16)
		expectPanic(t, v.name+".EncryptBlocks partial", "des: input not full block", func() { c.EncryptBlocks(dst, make([]byte, 12)) })
		if !bytes.Equal(dst, bytes.Repeat([]byte{0xa5}, 16)) {
			t.Errorf("%s: panicking EncryptBlocks wrote %x", v.name, dst)
		}
	}
}

// The exported types satisfy crypto/cipher.Block (also asserted at compile
// time in cipher.go); this keeps the test honest about the interface.
var _ = []cipher.Block{(*Cipher)(nil), (*TripleCipher)(nil)}

// TestBlockOverlap checks the single-block overlap test against the general
// one for every offset between two blocks of one buffer.
func TestBlockOverlap(t *testing.T) {
	buf := make([]byte, 48)
	for off := -16; off <= 16; off++ {
		x, y := buf[16+off:24+off], buf[16:24]
		want := inexactOverlap(x, y)
		if got := blockOverlap(&x[0], &y[0]); got != want {
			t.Errorf("offset %d: blockOverlap = %v, inexactOverlap = %v", off, got, want)
		}
		if want != (off != 0 && off > -8 && off < 8) {
			t.Errorf("offset %d: inexactOverlap = %v", off, want)
		}
	}
}
