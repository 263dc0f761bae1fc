package vectors

import (
	"bytes"
	"math/rand/v2"
	"slices"
)

// MessageLengths returns the message lengths of a primitive whose blocks are block bytes: every
// length from 0 to 2 blocks + 1; each block boundary ±1 up to maxBlocks blocks; each power of two
// ±1 from 64 to 256 bytes (the blocks of other primitives, and SipHash's length byte wraps at 256);
// and two runs of every residue mod 16, one from past the first two blocks and 64 bytes, one from
// past half the longest and 256 bytes, so that a bug tied to a length class (len ≡ 7 mod 16) of
// long messages meets one.
func MessageLengths(block, maxBlocks int) []int {
	var ls []int
	for n := 0; n <= 2*block+1; n++ {
		ls = append(ls, n)
	}
	for k := 3; k <= maxBlocks; k++ {
		ls = append(ls, k*block-1, k*block, k*block+1)
	}
	for p := 64; p <= 256; p *= 2 {
		ls = append(ls, p-1, p, p+1)
	}
	longest := slices.Max(ls)
	for _, from := range []int{max(2*block+2, 65), max(longest/2, 257)} {
		start := (from + 15) &^ 15
		for r := range 16 {
			ls = append(ls, start+r)
		}
	}
	slices.Sort(ls)
	return slices.Compact(ls)
}

// SweepKeys is how many keys of each size get a message of every length; every other key gets
// CasesPerKey messages, their lengths taken in turn from the list, so that each length meets many
// keys and each key a few lengths. A constructor without a key (size 0) gets SweepKeys empty keys:
// only its messages can vary.
const (
	SweepKeys   = 8
	CasesPerKey = 2
)

// MessageKeys returns the keys of one size: all zero, all 0xff, random keys up to SweepKeys, then
// for each byte position a random key with that byte 0x00 and one with it 0xff, the keys with a run
// of 0x00 or 0xff bytes (RunKeys) and the keys that give each byte every value
// (ValueKeys), then random keys up to n in all.
func MessageKeys(src *rand.ChaCha8, size, n int) [][]byte {
	random := func() []byte {
		k := make([]byte, size)
		src.Read(k)
		return k
	}
	if size == 0 {
		n = min(n, SweepKeys)
	}
	ff := bytes.Repeat([]byte{0xff}, size)
	keys := [][]byte{make([]byte, size), ff}
	for len(keys) < SweepKeys {
		keys = append(keys, random())
	}
	for i := range size {
		for _, v := range []byte{0x00, 0xff} {
			k := random()
			k[i] = v
			keys = append(keys, k)
		}
	}
	keys = append(keys, RunKeys(random, size)...)
	keys = append(keys, ValueKeys(size)...)
	for len(keys) < n {
		keys = append(keys, random())
	}
	return keys[:min(n, len(keys))]
}

// KeyLengths returns the message lengths of key number k (MessageKeys order) of n keys, the first
// sweep of which get every length. The others take CasesPerKey lengths each in turn, spread over
// the list when there are fewer such cases than lengths.
func KeyLengths(lengths []int, k, sweep, n int) []int {
	if k < sweep {
		return lengths
	}
	stride := max(1, len(lengths)/max(1, CasesPerKey*(n-sweep)))
	ls := make([]int, CasesPerKey)
	for i := range ls {
		ls[i] = lengths[(CasesPerKey*(k-sweep)+i)*stride%len(lengths)]
	}
	return ls
}

// Chunks splits n bytes into chunks of 0 to 1.5 blocks: an empty write one time in eight.
func Chunks(r *rand.Rand, n, block int) []int {
	if n == 0 {
		return []int{0}
	}
	var cs []int
	for n > 0 {
		c := 0
		if r.IntN(8) != 0 {
			c = 1 + r.IntN(min(n, block+block/2))
		}
		cs = append(cs, c)
		n -= c
	}
	return cs
}
