// Package des implements the Data Encryption Standard (DES) and Triple DES
// (TDEA) of FIPS 46-3 and NIST SP 800-67, with the same results as Go's
// crypto/des and a faster engine.
//
// DES is cryptographically broken: its 56-bit key is within reach of
// exhaustive search, and the 64-bit block of every variant is open to
// birthday attacks (Sweet32). The package exists for compatibility with old
// formats and protocols only.
//
// The engines, and what is constant time:
//
//   - EncryptBlocks and DecryptBlocks (every variant) are constant time. They
//     run a bitsliced engine: the blocks are transposed so that each word
//     holds one bit position of many blocks, the S-boxes are Boolean
//     circuits, the permutations are wiring, and the subkey bits are
//     broadcast masks. The 64-bit engine (Go, bitslice.go and sliced.go)
//     takes 64 blocks a word. On amd64 with AVX2 the 256-lane engine
//     (assembly, sliced_amd64.s) takes 256 a YMM register, for every whole
//     group of 256 blocks and for a rest of more than 64 blocks; a rest of up
//     to 64 blocks goes to the 64-bit engine, which does one group of 64
//     faster than the 256-lane engine does one padded group of 256 (see
//     README.md). Which engine runs which blocks depends only on len(src).
//     Neither engine indexes memory by the key or the data, nor branches on
//     them: the transpositions are fixed sequences of shifts, masks and XORs,
//     every address of the assembly is a constant offset from the state, the
//     subkey masks or a constant table, and its only loops are the Go loops
//     over groups, stages and rounds. A short group is padded with zero
//     blocks, never finished on the table engine. The masks are computed from
//     the key on the first batch call and kept (6 KiB for DES, 18 KiB for
//     Triple DES). -tags purego, other architectures and
//     GODEBUG=cpu.avx2=off (golang.org/x/sys/cpu reads it) leave the 64-bit
//     engine alone.
//   - Encrypt and Decrypt (one block) are not constant time. They use a table
//     engine: every round makes eight lookups indexed by secret data, so
//     timing and cache side channels can leak key and data bits. In Go
//     (block.go, unrolled.go) the tables are spBox, eight of 64 4-byte
//     entries: 256 bytes, four cache lines, per secret index, 2 KiB in all.
//     On amd64 a call is one assembly function (block_amd64.s) from the
//     initial to the final permutation, all 16 or 48 rounds in between,
//     that keeps both index words of a round in one 64-bit word and reads
//     spBox64, eight tables of 64 8-byte entries: 512 bytes, eight cache
//     lines, per secret index, 4 KiB in all; the last round reads spBox32
//     (the 4-byte entries, 2 KiB). The permutations are byte tables too:
//     permBox64, four of 256 8-byte entries (2 KiB, 32 cache lines, per
//     secret index, 8 KiB in all), IP and FP each reading two of them with
//     the eight bytes of the block. So a call may touch 14 KiB of tables by
//     secret data where the Go engine touches 2 KiB: the price of a round of
//     36 instructions (about 50 in Go) and of permutations of about 13
//     cycles instead of 30. The function comes in two instruction
//     sequences, chosen once at start-up from CPUID: one tuned on Intel,
//     one on AMD Zen (the index bytes in pairs from low and high byte
//     registers, 30 instructions a round instead of 36); both read the same
//     tables in the same way, so the above holds for either. The
//     constructors (the key schedule) also look up tables indexed by key
//     bits: pc2Box, eight of 128 8-byte entries (1 KiB, 16 cache lines, per
//     secret index, 8 KiB in all), whose eight lookups a round OR into the
//     pair of subkey words.
//
// Data flow: a constructor checks the key length (a KeySizeError otherwise;
// parity bits are ignored, as DES specifies) and expands every 8-byte DES key
// into 16 subkeys, stored once, in the order the stage's rounds use them
// when encrypting; decryption reads them backwards. Encrypt and Decrypt
// load a block into two 32-bit halves, apply the initial permutation, run 16
// rounds per DES stage (three stages for Triple DES, between a single
// initial and final permutation) and store the result. EncryptBlocks and
// DecryptBlocks (ECB) take groups of 256 or 64 blocks (a shorter last group
// is copied into a buffer padded with zero blocks), transpose them into 64
// words as they load them, run the rounds of every stage on the words in
// place (the initial and final permutations decide only which words form
// each half, and Triple DES stays in that form across its three stages), and
// transpose back as they store them.
//
// Files: cipher.go is the API, alias.go the argument checks, block.go the
// table engine (block_amd64.go and block_other.go choose assembly or Go), key.go
// the key schedule, bitslice.go the 64-bit bitsliced engine and
// bitslice_amd64.go the 256-lane one (bitslice_other.go stands in for it
// elsewhere); methods.go (the methods of Cipher and TripleCipher, from one
// template), const.go and const_amd64.go (tables), unrolled.go (the unrolled
// round function and subkey loop), sliced.go (the S-box circuits, the
// bitsliced round and the transposition), sliced_amd64.s (the same on 256
// lanes) and block_amd64.s (the single-block calls) are generated by gen.go
// with internal/gen, the tables from those of FIPS 46-3, and a test checks
// them byte for byte. internal/dudect measures timing leakage of the
// engines.
package des

//go:generate go run gen.go

import (
	"crypto/cipher"
	"strconv"
)

// BlockSize is the DES block size in bytes.
const BlockSize = 8

// KeySizeError reports a key of the wrong length; its value is the length.
type KeySizeError int

// Error returns "des: invalid key size N".
func (k KeySizeError) Error() string {
	return "des: invalid key size " + strconv.Itoa(int(k))
}

// Cipher is a DES block cipher with one 8-byte key. It implements
// cipher.Block and is safe for concurrent use.
type Cipher struct {
	// ks holds the stage's schedule in encryption order.
	ks [1]schedule
	// sliced holds the subkeys as masks for the bitsliced batch calls.
	sliced lazyKeys
}

// TripleCipher is a Triple DES block cipher made of three DES stages. It
// implements cipher.Block and is safe for concurrent use.
type TripleCipher struct {
	// ks holds the schedules of the three stages in the order encryption
	// runs them, each in the round order of its stage (the middle stage of
	// EDE decrypts, so its subkeys are in reverse order).
	ks [3]schedule
	// sliced holds the subkeys of ks as masks for the bitsliced batch calls.
	sliced lazyKeys
}

var (
	_ cipher.Block = (*Cipher)(nil)
	_ cipher.Block = (*TripleCipher)(nil)
)

// NewCipher returns a DES cipher for an 8-byte key.
func NewCipher(key []byte) (*Cipher, error) {
	if len(key) != 8 {
		return nil, KeySizeError(len(key))
	}
	c := new(Cipher)
	expandKey(key, &c.ks[0], false)
	return c, nil
}

// NewTripleEDE2 returns two-key Triple DES for the 16-byte key K1|K2:
// C = E_K1(D_K2(E_K1(P))). It equals NewTripleEDE3 with K1|K2|K1.
func NewTripleEDE2(key []byte) (*TripleCipher, error) { return newTriple(key, 16, true) }

// NewTripleEDE3 returns three-key Triple DES (TDEA, NIST SP 800-67) for the
// 24-byte key K1|K2|K3: C = E_K3(D_K2(E_K1(P))). It agrees with
// crypto/des.NewTripleDESCipher.
func NewTripleEDE3(key []byte) (*TripleCipher, error) { return newTriple(key, 24, true) }

// NewTripleEEE2 returns two-key encrypt-encrypt-encrypt Triple DES for the
// 16-byte key K1|K2: C = E_K1(E_K2(E_K1(P))).
func NewTripleEEE2(key []byte) (*TripleCipher, error) { return newTriple(key, 16, false) }

// NewTripleEEE3 returns three-key encrypt-encrypt-encrypt Triple DES for the
// 24-byte key K1|K2|K3: C = E_K3(E_K2(E_K1(P))).
func NewTripleEEE3(key []byte) (*TripleCipher, error) { return newTriple(key, 24, false) }

// newTriple checks that key is size bytes long, K1|K2 (K3 is K1) or
// K1|K2|K3, and expands the three stage keys. Encryption runs stage 1 with
// K1, stage 2 with K2 (decrypting if ede) and stage 3 with K3; decryption
// runs the inverse stages in reverse order.
func newTriple(key []byte, size int, ede bool) (*TripleCipher, error) {
	if len(key) != size {
		return nil, KeySizeError(len(key))
	}
	k3 := key[0:8]
	if size == 24 {
		k3 = key[16:24]
	}
	c := new(TripleCipher)
	expandKey(key[0:8], &c.ks[0], false)
	expandKey(key[8:16], &c.ks[1], ede)
	expandKey(k3, &c.ks[2], false)
	return c, nil
}
