package differential

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/differential/vectors"
)

func TestMessageLengths(t *testing.T) {
	got := vectors.MessageLengths(16, 4)
	var want []int
	for n := 0; n <= 33; n++ {
		want = append(want, n)
	}
	want = append(want, 47, 48, 49, 63, 64, 65)
	// The residues mod 16 past 64 bytes, the powers of two ±1 to 256, the residues past 256.
	for n := 80; n < 96; n++ {
		want = append(want, n)
	}
	want = append(want, 127, 128, 129, 255, 256, 257)
	for n := 272; n < 288; n++ {
		want = append(want, n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lengths (-want +got):\n%s", diff)
	}
}

func TestRandomChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	empty := 0
	for n := range 600 {
		cs := vectors.Chunks(r, n, 64)
		sum := 0
		for _, c := range cs {
			if c < 0 || c > 96 {
				t.Fatalf("n=%d: chunk %d outside 0..96", n, c)
			}
			if c == 0 {
				empty++
			}
			sum += c
		}
		if sum != n || len(cs) == 0 {
			t.Fatalf("n=%d: chunks %v sum to %d", n, cs, sum)
		}
	}
	if empty < 10 {
		t.Errorf("%d empty writes in 600 messages; they are part of the check", empty)
	}
}

// TestPrimJobsDeterministic checks that the inputs depend on the seed, the constructor and the
// sizes only, and the stream layout of encodePrimJobs.
func TestPrimJobsDeterministic(t *testing.T) {
	p := probeSize{Key: 32, NonceSize: 12, Overhead: 16}
	lengths := []int{0, 1, 17}
	gen := func(seed uint64, ctor string, p probeSize) []byte {
		return encodeJobs([]job{newMsgJob(seed, ctor, aeadFamily{}, p, 2, vectors.SweepKeys, lengths)})
	}
	a, b := gen(7, "New", p), gen(7, "New", p)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed and constructor, different inputs")
	}
	q := p
	q.Nonce = 1
	key := func(seed uint64, ctor string, p probeSize) []byte {
		return newMsgJob(seed, ctor, aeadFamily{}, p, 3, vectors.SweepKeys, lengths).keys[2].key
	}
	k := key(7, "New", p)
	for _, other := range [][]byte{key(8, "New", p), key(7, "NewX", p), key(7, "New", q)} {
		if bytes.Equal(k, other) {
			t.Error("a different seed, constructor or nonce size gives the same inputs")
		}
	}
	j := newMsgJob(7, "New", aeadFamily{}, p, 2, vectors.SweepKeys, lengths)
	if !bytes.Equal(j.keys[0].key, make([]byte, 32)) || !bytes.Equal(j.keys[1].key, bytes.Repeat([]byte{0xff}, 32)) {
		t.Errorf("keys %x, %x: want the zero key first, then all 0xff", j.keys[0].key, j.keys[1].key)
	}
	// Header: magic, jobs, name, key size, nonce size, keys. Per key: the key, the number of cases.
	// Per case: message, nonce, additional data (adLengths cycled by case and key), chunks, tamper
	// offset and mask.
	want := 4 + 4 + 2 + 3 + 2 + 2 + 4
	for k := range 2 {
		want += 32 + 4
		for i, n := range lengths {
			want += 4 + n + 2 + 12 + 4 + adLengths[(i+k)%len(adLengths)] + 2 + 4*len(j.keys[k].cases[i].chunks) + 4 + 1
		}
	}
	if len(a) != want {
		t.Errorf("stream of %d bytes, want %d", len(a), want)
	}
}

// TestMessageKeys checks the structured keys and the lengths each key gets.
func TestMessageKeys(t *testing.T) {
	const size = 16
	keys := vectors.MessageKeys(vectors.Rand(1, "X", size), size, DefaultMessageKeys)
	if len(keys) != DefaultMessageKeys {
		t.Fatalf("%d keys, want %d", len(keys), DefaultMessageKeys)
	}
	if !bytes.Equal(keys[0], make([]byte, size)) || !bytes.Equal(keys[1], bytes.Repeat([]byte{0xff}, size)) {
		t.Errorf("first keys %x %x, want all zero and all 0xff", keys[0], keys[1])
	}
	// After the vectors.SweepKeys come, for each byte position, that byte at 0x00 and at 0xff in a
	// random key.
	for i := range size {
		for j, v := range []byte{0x00, 0xff} {
			k := keys[vectors.SweepKeys+2*i+j]
			if k[i] != v || bytes.Equal(k, keys[0]) || bytes.Equal(k, keys[1]) {
				t.Errorf("key %d: %x, want byte %d = %#x in a random key", vectors.SweepKeys+2*i+j, k, i, v)
			}
		}
	}
	if got := vectors.MessageKeys(vectors.Rand(1, "X", 0), 0, DefaultMessageKeys); len(got) != vectors.SweepKeys {
		t.Errorf("%d empty keys, want %d", len(got), vectors.SweepKeys)
	}
	// Every length meets many keys: the sweep keys and, in turn, the others.
	lengths := vectors.MessageLengths(64, 8)
	met := map[int]int{}
	for k := range DefaultMessageKeys {
		for _, n := range vectors.KeyLengths(lengths, k, vectors.SweepKeys, DefaultMessageKeys) {
			met[n]++
		}
	}
	for _, n := range lengths {
		if met[n] < vectors.SweepKeys+(DefaultMessageKeys-vectors.SweepKeys)*vectors.CasesPerKey/len(lengths) {
			t.Errorf("length %d meets %d keys", n, met[n])
		}
	}
}
