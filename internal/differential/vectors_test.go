package differential

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/perfgate/perfgate/internal/differential/vectors"
	"github.com/perfgate/perfgate/record"
)

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
		"block":   vectors.Keys(vectors.Rand(1, "X", size), size, DefaultKeys),
		"message": vectors.MessageKeys(vectors.Rand(1, "X", size), size, DefaultMessageKeys),
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
	for v, k := range vectors.ValueKeys(3) {
		if want := []byte{byte(v), byte(v + 0x9d), byte(v + 2*0x9d)}; !bytes.Equal(k, want) {
			t.Fatalf("value key %d: %x, want %x", v, k, want)
		}
	}
}
