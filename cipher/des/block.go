package des

import (
	"encoding/binary"
	"math/bits"
)

// This file is the DES engine. A block is loaded big-endian into two 32-bit
// halves, put through the initial permutation (which also rotates both halves
// left by one bit, the form the round function works in), run through 16
// rounds per DES stage, and put through the final permutation. Triple DES
// runs its three stages between a single initial and final permutation,
// because FP followed by IP is the identity.

// schedule holds the 16 subkeys of one DES stage in the order the rounds use
// them: entry [i] is {k0, k1} of round 2i+1 followed by {k0, k1} of round
// 2i+2. In round terms, k0 holds the 6-bit key inputs of S-boxes 8, 6, 4, 2
// in its bytes 0 to 3; k1, rotated left by 4, those of S-boxes 7, 5, 3, 1 at
// bit offsets 4, 12, 20 and 28 (the last wrapping around), which are where
// those boxes' inputs sit in the rotated half. Decryption uses a second
// schedule holding the subkeys in reverse round order, so one round function
// serves both directions.
type schedule [8][4]uint32

// exchange swaps the bits of a selected by mask<<n with the bits of b
// selected by mask (a "swap-move"). IP and FP are five such exchanges.
func exchange(a, b uint32, n uint, mask uint32) (uint32, uint32) {
	w := (a>>n ^ b) & mask
	return a ^ w<<n, b ^ w
}

// initialPermutation applies IP to the block (hi, lo) and returns its two
// halves L0, R0, each rotated left by one bit.
func initialPermutation(hi, lo uint32) (l, r uint32) {
	l, r = exchange(hi, lo, 4, 0x0f0f0f0f)
	l, r = exchange(l, r, 16, 0x0000ffff)
	r, l = exchange(r, l, 2, 0x33333333)
	r, l = exchange(r, l, 8, 0x00ff00ff)
	l, r = exchange(l, bits.RotateLeft32(r, 1), 0, 0xaaaaaaaa)
	return bits.RotateLeft32(l, 1), r
}

// finalPermutation undoes initialPermutation: given the rotated halves l, r
// after the last round, it swaps them (the last round of DES does not swap)
// and applies FP, returning the output block as (hi, lo).
func finalPermutation(l, r uint32) (hi, lo uint32) {
	l, r = exchange(l, bits.RotateLeft32(r, -1), 0, 0xaaaaaaaa)
	l, r = exchange(bits.RotateLeft32(l, -1), r, 8, 0x00ff00ff)
	l, r = exchange(l, r, 2, 0x33333333)
	r, l = exchange(r, l, 16, 0x0000ffff)
	r, l = exchange(r, l, 4, 0x0f0f0f0f)
	return r, l
}

// crypt encrypts or decrypts the block b with the DES stages ks, one for DES
// and three for Triple DES, each schedule already in its stage's direction.
// Between stages the halves trade places: the FP and IP that would separate
// two DES operations cancel, leaving only the swap that FP starts with.
func crypt(ks []schedule, b uint64) uint64 {
	l, r := initialPermutation(uint32(b>>32), uint32(b))
	for i := range ks {
		l, r = rounds(&spBox, &ks[i], l, r)
		l, r = r, l
	}
	hi, lo := finalPermutation(r, l)
	return uint64(hi)<<32 | uint64(lo)
}

// rounds2 is rounds on two independent blocks at once, written as a loop of
// plain rounds: with two dependency chains to overlap, the processor is busy
// enough that the fewest instructions win over the shortest chain.
func rounds2(sp *[8][64]uint32, ks *schedule, l0, r0, l1, r1 uint32) (uint32, uint32, uint32, uint32) {
	for i := range ks {
		k := &ks[i]
		t0, v0 := r0^k[0], r0^k[1]
		t1, v1 := r1^k[0], r1^k[1]
		l0 ^= ((sp[7][t0&0x3f] ^ sp[5][t0>>8&0x3f]) ^ (sp[3][t0>>16&0x3f] ^ sp[1][t0>>24&0x3f])) ^
			((sp[6][v0>>4&0x3f] ^ sp[4][v0>>12&0x3f]) ^ (sp[2][v0>>20&0x3f] ^ sp[0][bits.RotateLeft32(v0, 4)&0x3f]))
		l1 ^= ((sp[7][t1&0x3f] ^ sp[5][t1>>8&0x3f]) ^ (sp[3][t1>>16&0x3f] ^ sp[1][t1>>24&0x3f])) ^
			((sp[6][v1>>4&0x3f] ^ sp[4][v1>>12&0x3f]) ^ (sp[2][v1>>20&0x3f] ^ sp[0][bits.RotateLeft32(v1, 4)&0x3f]))
		t0, v0 = l0^k[2], l0^k[3]
		t1, v1 = l1^k[2], l1^k[3]
		r0 ^= ((sp[7][t0&0x3f] ^ sp[5][t0>>8&0x3f]) ^ (sp[3][t0>>16&0x3f] ^ sp[1][t0>>24&0x3f])) ^
			((sp[6][v0>>4&0x3f] ^ sp[4][v0>>12&0x3f]) ^ (sp[2][v0>>20&0x3f] ^ sp[0][bits.RotateLeft32(v0, 4)&0x3f]))
		r1 ^= ((sp[7][t1&0x3f] ^ sp[5][t1>>8&0x3f]) ^ (sp[3][t1>>16&0x3f] ^ sp[1][t1>>24&0x3f])) ^
			((sp[6][v1>>4&0x3f] ^ sp[4][v1>>12&0x3f]) ^ (sp[2][v1>>20&0x3f] ^ sp[0][bits.RotateLeft32(v1, 4)&0x3f]))
	}
	return l0, r0, l1, r1
}

// cryptBlocks runs crypt over every block of src (a whole number of blocks)
// and writes dst, which is at least as long, two blocks at a time.
func cryptBlocks(ks []schedule, dst, src []byte) {
	for len(src) >= 2*BlockSize {
		b0 := binary.BigEndian.Uint64(src[0:8])
		b1 := binary.BigEndian.Uint64(src[8:16])
		l0, r0 := initialPermutation(uint32(b0>>32), uint32(b0))
		l1, r1 := initialPermutation(uint32(b1>>32), uint32(b1))
		for i := range ks {
			l0, r0, l1, r1 = rounds2(&spBox, &ks[i], l0, r0, l1, r1)
			l0, r0, l1, r1 = r0, l0, r1, l1
		}
		hi0, lo0 := finalPermutation(r0, l0)
		hi1, lo1 := finalPermutation(r1, l1)
		binary.BigEndian.PutUint64(dst[0:8], uint64(hi0)<<32|uint64(lo0))
		binary.BigEndian.PutUint64(dst[8:16], uint64(hi1)<<32|uint64(lo1))
		src, dst = src[16:], dst[16:]
	}
	if len(src) > 0 {
		binary.BigEndian.PutUint64(dst, crypt(ks, binary.BigEndian.Uint64(src)))
	}
}
