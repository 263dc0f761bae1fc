package des

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"testing"
)

// unhex decodes a hex string of a test table.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// checkKnownAnswer encrypts plain and decrypts cipher with c, one block at a
// time and through the batch calls, and compares with the known answer.
func checkKnownAnswer(t *testing.T, name string, c blockCipher, plain, want []byte) {
	t.Helper()
	got := make([]byte, len(plain))
	for i := 0; i < len(plain); i += BlockSize {
		c.Encrypt(got[i:], plain[i:])
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: Encrypt(%x) = %x, want %x", name, plain, got, want)
	}
	c.EncryptBlocks(got, plain)
	if !bytes.Equal(got, want) {
		t.Errorf("%s: EncryptBlocks(%x) = %x, want %x", name, plain, got, want)
	}
	for i := 0; i < len(want); i += BlockSize {
		c.Decrypt(got[i:], want[i:])
	}
	if !bytes.Equal(got, plain) {
		t.Errorf("%s: Decrypt(%x) = %x, want %x", name, want, got, plain)
	}
	c.DecryptBlocks(got, want)
	if !bytes.Equal(got, plain) {
		t.Errorf("%s: DecryptBlocks(%x) = %x, want %x", name, want, got, plain)
	}
}

// checkSingleKey runs a known answer for an 8-byte key as DES and as the
// Triple DES variants that reduce to DES when all keys are equal (EDE2 with
// K1|K1, EDE3 with K1|K1|K1).
func checkSingleKey(t *testing.T, name string, key, plain, want []byte) {
	t.Helper()
	c, err := NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	checkKnownAnswer(t, name+"/des", c, plain, want)
	c2, err := NewTripleEDE2(bytes.Repeat(key, 2))
	if err != nil {
		t.Fatal(err)
	}
	checkKnownAnswer(t, name+"/ede2", c2, plain, want)
	c3, err := NewTripleEDE3(bytes.Repeat(key, 3))
	if err != nil {
		t.Fatal(err)
	}
	checkKnownAnswer(t, name+"/ede3", c3, plain, want)
}

func TestSP80020(t *testing.T) {
	zero := make([]byte, BlockSize)
	for i, v := range sp80020A1 {
		checkSingleKey(t, "A.1 #"+itoa(i), unhex(t, sp80020A1Key), unhex(t, v.plain), unhex(t, v.cipher))
	}
	for i, v := range sp80020A2 {
		checkSingleKey(t, "A.2 #"+itoa(i), unhex(t, v.key), zero, unhex(t, v.cipher))
	}
	for i, v := range sp80020A3 {
		checkSingleKey(t, "A.3 #"+itoa(i), unhex(t, v.key), zero, unhex(t, v.cipher))
	}
	for i, v := range sp80020A4 {
		checkSingleKey(t, "A.4 #"+itoa(i), unhex(t, v.key), unhex(t, v.plain), unhex(t, v.cipher))
	}
}

func TestExtraVectors(t *testing.T) {
	for i, v := range extraDES {
		c, err := NewCipher(unhex(t, v.key))
		if err != nil {
			t.Fatal(err)
		}
		checkKnownAnswer(t, "des #"+itoa(i), c, unhex(t, v.plain), unhex(t, v.cipher))
	}
	for i, v := range extraTDES {
		c, err := NewTripleEDE3(unhex(t, v.key))
		if err != nil {
			t.Fatal(err)
		}
		checkKnownAnswer(t, "ede3 #"+itoa(i), c, unhex(t, v.plain), unhex(t, v.cipher))
	}
}

func TestSP80067(t *testing.T) {
	c, err := NewTripleEDE3(unhex(t, sp80067.key))
	if err != nil {
		t.Fatal(err)
	}
	checkKnownAnswer(t, "SP 800-67", c, unhex(t, sp80067.plain), unhex(t, sp80067.cipher))
}

// TestWeakKeys checks that encryption under a weak key is its own inverse.
func TestWeakKeys(t *testing.T) {
	for i, v := range weakKeys {
		c, err := NewCipher(unhex(t, v.key))
		if err != nil {
			t.Fatal(err)
		}
		plain := unhex(t, v.plain)
		once, twice, dec := make([]byte, 8), make([]byte, 8), make([]byte, 8)
		c.Encrypt(once, plain)
		c.Encrypt(twice, once)
		c.Decrypt(dec, plain)
		if !bytes.Equal(twice, plain) || !bytes.Equal(dec, once) || bytes.Equal(once, plain) {
			t.Errorf("weak key #%d %s: E(P)=%x E(E(P))=%x D(P)=%x, P=%x", i, v.key, once, twice, dec, plain)
		}
	}
}

// TestSemiWeakKeys checks that each semi-weak key decrypts what its partner
// encrypts.
func TestSemiWeakKeys(t *testing.T) {
	for i, v := range semiWeakKeys {
		c1, err1 := NewCipher(unhex(t, v.key))
		c2, err2 := NewCipher(unhex(t, v.cipher))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		plain := unhex(t, v.plain)
		mid, out := make([]byte, 8), make([]byte, 8)
		c1.Encrypt(mid, plain)
		c2.Encrypt(out, mid)
		if !bytes.Equal(out, plain) || bytes.Equal(mid, plain) {
			t.Errorf("semi-weak pair #%d: E_K2(E_K1(%x)) = %x via %x", i, plain, out, mid)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
