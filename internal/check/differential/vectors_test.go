package differential

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/perfgate/perfgate/record"
)

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
		keys := keyList(newRand(1, "X", tc.size), tc.size, DefaultKeys)
		if len(keys) != DefaultKeys {
			t.Fatalf("size %d: %d keys, want %d", tc.size, len(keys), DefaultKeys)
		}
		if got := len(specialKeys(newRand(1, "X", tc.size), tc.size)); got != tc.special {
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
		short := keyList(newRand(1, "X", tc.size), tc.size, 10)
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
	des := hexes(specialKeys(newRand(1, "X", 8), 8))
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
	tdes := specialKeys(newRand(1, "X", 24), 24)
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

func TestJobsDeterministic(t *testing.T) {
	a := encodeJobs([]job{newBlockJob(DefaultSeed, "NewCipher", 8, 8, 50, 17, []string{"EncryptBlocks"})})
	b := encodeJobs([]job{newBlockJob(DefaultSeed, "NewCipher", 8, 8, 50, 17, []string{"EncryptBlocks"})})
	c := encodeJobs([]job{newBlockJob(DefaultSeed+1, "NewCipher", 8, 8, 50, 17, []string{"EncryptBlocks"})})
	d := encodeJobs([]job{newBlockJob(DefaultSeed, "NewOther", 8, 8, 50, 17, []string{"EncryptBlocks"})})
	if !bytes.Equal(a, b) {
		t.Error("same seed, different inputs")
	}
	if bytes.Equal(a, c) || bytes.Equal(a[20:], d[19:]) {
		t.Error("a different seed or constructor gives the same inputs")
	}
	// Header (with the batch lengths and 2 × 129 long blocks), then 50 keys × (8-byte key + 2 × 17
	// blocks).
	want := 4 + 4 + 2 + len("NewCipher") + 2 + 4 + 4 + 4 + 1 + 1 + len("EncryptBlocks") +
		4 + 4 + 1 + 2*len(batchLengths) + 4 + 2*129*8 + 50*(8+2*17*8)
	if len(a) != want {
		t.Errorf("stream of %d bytes, want %d", len(a), want)
	}
}

func TestMismatchJSON(t *testing.T) {
	b, err := json.Marshal(record.Mismatch{Constructor: "NewCipher", KeySize: 8, Key: record.Hex{0x01, 0xfe}, Block: 16,
		Direction: "encrypt", Method: "EncryptBlocks", Input: record.Hex{0xab}, Base: record.Hex{0x00}, Head: record.Hex{0xff}, Length: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"constructor":"NewCipher","key_size":8,"key":"01fe","block":16,"direction":"encrypt",` +
		`"method":"EncryptBlocks","input":"ab","base":"00","head":"ff","length":1}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back record.Mismatch
	if err := json.Unmarshal(b, &back); err != nil || !bytes.Equal(back.Key, []byte{0x01, 0xfe}) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

// TestStructuredKeys checks the keys that reach single-value and run bugs for sure: in the block
// and message key lists, every byte position takes every value, and every aligned word, 8-byte run
// and half of a 32-byte key is all zero in some key whose other bytes are not.
func TestStructuredKeys(t *testing.T) {
	const size = 32
	lists := map[string][][]byte{
		"block":   keyList(newRand(1, "X", size), size, DefaultKeys),
		"message": messageKeys(newRand(1, "X", size), size, DefaultMessageKeys),
	}
	for name, keys := range lists {
		var seen [size][256]bool
		for _, k := range keys {
			for p, v := range k {
				seen[p][v] = true
			}
		}
		for p := range seen {
			for v, ok := range seen[p] {
				if !ok {
					t.Errorf("%s keys: byte %d never %#02x", name, p, v)
				}
			}
		}
		for _, run := range []int{4, 8, 16} {
			for at := 0; at < size; at += run {
				found := false
				for _, k := range keys {
					zero := bytes.Equal(k[at:at+run], make([]byte, run))
					found = found || zero && !bytes.Equal(k, make([]byte, size)) && k[(at+run)%size] != 0
				}
				if !found {
					t.Errorf("%s keys: no key with only bytes %d to %d zero", name, at, at+run-1)
				}
			}
		}
	}
	for v, k := range valueKeys(3) {
		if want := []byte{byte(v), byte(v + 0x9d), byte(v + 2*0x9d)}; !bytes.Equal(k, want) {
			t.Fatalf("value key %d: %x, want %x", v, k, want)
		}
	}
}
