package des

import "sync/atomic"

// laneBlocks is the number of blocks processed together, one per bit of a
// word.
const laneBlocks = 64

// slicedKeys is one DES stage's 16 subkeys as masks: [i][n] is all ones if
// bit n+1 of the subkey of round i+1 is set, zero otherwise.
type slicedKeys [16][48]uint64

// subkeyBit locates each subkey bit in the schedule layout (see schedule):
// subkey bit n+1 (S-box n/6+1, input bit n%6+1) is bit shift of word (k0
// or k1) of the round's pair.
var subkeyBit = func() (loc [48]struct{ word, shift uint8 }) {
	for n := range loc {
		box, in := n/6+1, n%6 // S-box 1..8, input bit 0..5 (first = most significant)
		if box%2 == 0 {
			// k0: boxes 8, 6, 4, 2 in bytes 0, 1, 2, 3.
			loc[n].word, loc[n].shift = 0, uint8(8*((8-box)/2)+5-in)
		} else {
			// k1: boxes 7, 5, 3, 1 in bytes 0, 1, 2, 3.
			loc[n].word, loc[n].shift = 1, uint8(8*((7-box)/2)+5-in)
		}
	}
	return loc
}()

// slice computes the masks of the 16 subkeys in s, in the order s holds
// them.
func (s *schedule) slice(dst *slicedKeys) {
	for i := range dst {
		k := s[i/2][i%2*2 : i%2*2+2]
		for n, at := range subkeyBit {
			dst[i][n] = -uint64(k[at.word] >> at.shift & 1)
		}
	}
}

// lazyKeys holds the masks of a cipher's stages, computed on the first
// batch call so that the constructors stay as fast as the table engine
// needs them. Two goroutines racing on the first call compute the same
// masks; either result may be kept.
type lazyKeys struct {
	p atomic.Pointer[[]slicedKeys]
}

// get returns the masks, computing them from the schedules ks (each stage's
// subkeys in the order encryption uses them) if they are not there yet.
func (z *lazyKeys) get(ks []schedule) []slicedKeys {
	if m := z.p.Load(); m != nil {
		return *m
	}
	m := make([]slicedKeys, len(ks))
	for i := range ks {
		ks[i].slice(&m[i])
	}
	z.p.Store(&m)
	return m
}

// cryptSliced encrypts (or, if decrypt is set, decrypts) every block of src
// into dst, 64 blocks at a time. ks holds the stages' masks in encryption
// order, each in round order; decryption runs the stages and their rounds
// backwards. A last group of fewer than 64 blocks is copied into a buffer
// padded with zero blocks and run like the others.
//
// It is the bitsliced engine behind EncryptBlocks and DecryptBlocks: it takes
// 64 blocks at a time, transposes them so that each of 64 words
// holds one bit position of every block (bit j of each word belongs to one
// block),
// and runs the rounds on those words: the S-boxes are Boolean circuits
// (sliced.go) and every permutation is wiring. The subkeys become broadcast
// masks, all ones or all zeros per subkey bit, so XORing the key into 64
// blocks is one XOR per bit.
//
// Nothing here indexes memory by key or data, or branches on them: the
// transposition is a fixed sequence of shifts, masks and XORs, the key
// masks are computed with arithmetic, and a batch that does not fill the
// last 64 lanes is padded with zero blocks, never handed to the table
// engine. The time of a call depends only on the number of blocks.
func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {
	n := cryptWide(ks, decrypt, dst, src)
	dst, src = dst[n:], src[n:]
	const group = laneBlocks * BlockSize
	var x [laneBlocks]uint64
	for len(src) >= group {
		transposeIn(&x, (*[group]byte)(src))
		cryptLanes(ks, decrypt, &x)
		transposeOut((*[group]byte)(dst), &x)
		src, dst = src[group:], dst[group:]
	}
	if len(src) > 0 {
		var buf [group]byte
		copy(buf[:], src)
		transposeIn(&x, &buf)
		cryptLanes(ks, decrypt, &x)
		transposeOut(&buf, &x)
		copy(dst, buf[:len(src)])
	}
}

// cryptLanes runs the cipher on the 64 transposed blocks in x, in place.
// Each stage alternates feistelLR and feistelRL; a stage leaves L16 and R16
// in the words of L0 and R0, and the next starts from R16 | L16, so the
// roles trade between stages: even stages start with feistelLR, odd ones
// with feistelRL. All variants have an odd number of stages, so the output
// block R16 | L16 of the last is the input wiring with the halves swapped.
func cryptLanes(ks []slicedKeys, decrypt bool, x *[laneBlocks]uint64) {
	for s := range ks {
		if decrypt {
			k := &ks[len(ks)-1-s]
			for i := 15; i > 0; i -= 2 {
				if s%2 == 0 {
					feistelLR(x, &k[i])
					feistelRL(x, &k[i-1])
				} else {
					feistelRL(x, &k[i])
					feistelLR(x, &k[i-1])
				}
			}
		} else {
			k := &ks[s]
			for i := 0; i < 16; i += 2 {
				if s%2 == 0 {
					feistelLR(x, &k[i])
					feistelRL(x, &k[i+1])
				} else {
					feistelRL(x, &k[i])
					feistelLR(x, &k[i+1])
				}
			}
		}
	}
	swapHalves(x)
}
