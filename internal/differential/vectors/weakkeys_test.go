package vectors

import (
	"crypto/des"
	"encoding/hex"
	"math/bits"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pc1 is Permuted Choice 1 of FIPS 46-3 (Appendix 1): the key bit (1 = most significant bit of the
// first byte) that lands in each position of C (first 28) and D (last 28).
var pc1 = [56]int{
	57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
	63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
}

// registerKey returns the odd-parity key whose C and D registers repeat the 4-bit patterns c and d.
func registerKey(c, d [4]byte) string {
	var key [8]byte
	for i, bit := range pc1 {
		v := c[i%4]
		if i >= 28 {
			v = d[(i-28)%4]
		}
		if v == 1 {
			key[(bit-1)/8] |= 0x80 >> ((bit - 1) % 8)
		}
	}
	for i := range key {
		if bits.OnesCount8(key[i])%2 == 0 {
			key[i] ^= 1
		}
	}
	return hex.EncodeToString(key[:])
}

// TestWeakKeyStructure derives the weak, semi-weak and possibly weak keys from PC-1 (C and D
// repeating patterns of period 1, 2 and 4) and checks that the published tables list exactly those
// keys.
func TestWeakKeyStructure(t *testing.T) {
	constant := [][4]byte{{0, 0, 0, 0}, {1, 1, 1, 1}}
	period2 := append(constant, [4]byte{0, 1, 0, 1}, [4]byte{1, 0, 1, 0})
	period4 := append(period2, [4]byte{0, 0, 1, 1}, [4]byte{0, 1, 1, 0}, [4]byte{1, 1, 0, 0}, [4]byte{1, 0, 0, 1})
	derive := func(set [][4]byte) map[string]bool {
		m := map[string]bool{}
		for _, c := range set {
			for _, d := range set {
				m[registerKey(c, d)] = true
			}
		}
		return m
	}
	sorted := func(m map[string]bool, minus ...map[string]bool) []string {
		var out []string
	next:
		for k := range m {
			for _, x := range minus {
				if x[k] {
					continue next
				}
			}
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	table := func(keys []string) []string {
		out := append([]string(nil), keys...)
		sort.Strings(out)
		return out
	}
	w, s, p := derive(constant), derive(period2), derive(period4)
	if diff := cmp.Diff(sorted(w), table(weakKeys[:])); diff != "" {
		t.Errorf("weak keys (-derived +table):\n%s", diff)
	}
	if diff := cmp.Diff(sorted(s, w), table(semiWeakKeys[:])); diff != "" {
		t.Errorf("semi-weak keys (-derived +table):\n%s", diff)
	}
	if diff := cmp.Diff(sorted(p, s), table(possiblyWeakKeys[:])); diff != "" {
		t.Errorf("possibly weak keys (-derived +table):\n%s", diff)
	}
}

// TestWeakKeysBehave checks the defining property of the weak keys (encryption is an involution)
// and of the semi-weak pairs (one key decrypts what the other encrypts) with the standard library's
// DES.
func TestWeakKeysBehave(t *testing.T) {
	block := func(s string) func(dst, src []byte) {
		key, _ := hex.DecodeString(s)
		c, err := des.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		return c.Encrypt
	}
	x := []byte("perfgate")
	twice := func(e1, e2 func(dst, src []byte)) []byte {
		y, z := make([]byte, 8), make([]byte, 8)
		e1(y, x)
		e2(z, y)
		return z
	}
	for _, k := range weakKeys {
		if got := twice(block(k), block(k)); string(got) != string(x) {
			t.Errorf("weak key %s: E(E(x)) = %x, want %x", k, got, x)
		}
	}
	for i := 0; i < len(semiWeakKeys); i += 2 {
		k1, k2 := semiWeakKeys[i], semiWeakKeys[i+1]
		if got := twice(block(k1), block(k2)); string(got) != string(x) {
			t.Errorf("semi-weak pair %s/%s: E2(E1(x)) = %x, want %x", k1, k2, got, x)
		}
	}
}
