package des

import "math/bits"

// This file is the table engine of the single-block calls (the batch calls
// use bitslice.go). A block is loaded big-endian into two 32-bit halves, put
// through the initial permutation (which also rotates both halves left by
// one bit, the form the round function works in), run through 16 rounds per
// DES stage, and put through the final permutation. Triple DES runs its
// three stages between a single initial and final permutation, because FP
// followed by IP is the identity.

// schedule holds the 16 subkeys of one DES stage in the order the rounds use
// them: entry [i] is {k0, k1} of round 2i+1 followed by {k0, k1} of round
// 2i+2. In round terms, k0 holds the 6-bit key inputs of S-boxes 8, 6, 4, 2
// in its bytes 0 to 3 and k1 those of S-boxes 7, 5, 3, 1. In the rotated
// half the inputs of boxes 8, 6, 4, 2 sit in bytes 0 to 3, those of 7, 5,
// 3, 1 at bit offsets 4, 12, 20 and 28 (the last wrapping around): the Go
// rounds rotate k1 left by 4 to meet them, the amd64 rounds rotate the half
// right by 4 instead and read each pair {k0, k1} as one little-endian
// 64-bit word (see internal/gen.BlockAMD64). Decryption reads the same
// schedule from the last round to the first (roundsReversedGo).
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

// cryptGo encrypts the block b with the DES stages ks, one for DES and three
// for Triple DES, each schedule already in its stage's direction. Between
// stages the halves trade places: the FP and IP that would separate two DES
// operations cancel, leaving only the swap that FP starts with.
func cryptGo(ks []schedule, b uint64) uint64 {
	l, r := initialPermutation(uint32(b>>32), uint32(b))
	for i := range ks {
		l, r = roundsGo(&spBox, &ks[i], l, r)
		l, r = r, l
	}
	hi, lo := finalPermutation(r, l)
	return uint64(hi)<<32 | uint64(lo)
}

// cryptReversedGo undoes cryptGo: it runs the stages of ks from the last to the
// first, each with its subkeys in reverse order.
func cryptReversedGo(ks []schedule, b uint64) uint64 {
	l, r := initialPermutation(uint32(b>>32), uint32(b))
	for i := len(ks) - 1; i >= 0; i-- {
		l, r = roundsReversedGo(&spBox, &ks[i], l, r)
		l, r = r, l
	}
	hi, lo := finalPermutation(r, l)
	return uint64(hi)<<32 | uint64(lo)
}
