package des

import "encoding/binary"

// This file is the key schedule: PC-1 as an 8×8 bit-matrix transpose, then
// subkeys (generated, in unrolled.go) for the rotations and PC-2.

// expandKey computes the 16 subkeys of an 8-byte key and stores them in ks,
// in round order, or in reverse round order (the schedule of decryption)
// if reversed is set.
func expandKey(key []byte, ks *schedule, reversed bool) {
	c, d := permutedChoice1(key)
	cc, dd := uint64(c)<<28|uint64(c), uint64(d)<<28|uint64(d)
	if reversed {
		subkeysReversed(&pc2Box, cc, dd, ks)
	} else {
		subkeys(&pc2Box, cc, dd, ks)
	}
}

// permutedChoice1 returns the 28-bit halves C0 and D0 of PC-1 applied to the
// 8-byte key. Parity bits (the low bit of every byte) are dropped.
//
// PC-1 reads the key as an 8×8 bit matrix, one row per byte: C is columns 1,
// 2, 3 and the upper half of column 4, D is columns 7, 6, 5 and the lower
// half of column 4, each column read from the last byte to the first. Loading
// the key little-endian and transposing the matrix turns column j into byte
// 8-j of x, last key byte most significant.
func permutedChoice1(key []byte) (c, d uint32) {
	x := binary.LittleEndian.Uint64(key)
	// Transpose: exchange 1×1, then 2×2, then 4×4 bit blocks across the diagonal.
	t := (x ^ x>>7) & 0x00aa00aa00aa00aa
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000cccc0000cccc
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000f0f0f0f0
	x ^= t ^ t<<28
	c = uint32(x >> 36)
	d = uint32(x>>8&0xff)<<20 | uint32(x>>16&0xff)<<12 | uint32(x>>24&0xff)<<4 | uint32(x>>32&0x0f)
	return c, d
}
