// Package gen derives the lookup tables of package des from the tables printed
// in FIPS 46-3 and renders them as Go source.
//
// Data flow: the standard's S-boxes and permutations P and PC-2 (written here
// exactly as printed, 1-based bit numbers counted from the most significant
// bit) are composed into
//
//   - spBox: for each S-box, the S-box output moved through P and rotated left
//     by one bit, indexed by the box's 6-bit input in natural order (first input
//     bit most significant), so that a round is eight table lookups;
//   - pc2Box: PC-2 split into eight 7-bit slices of the rotated key halves C and
//     D, each entry already placed in the subkey layout the round function uses.
//
// It also writes unrolled.go (Unrolled): the single-block round function and
// the subkey computation of the key schedule, unrolled because each is 16
// near-identical blocks of code best not typed by hand; sliced.go (Sliced),
// the bitsliced engine; sliced_amd64.s (SlicedAVX2), the same on 256 lanes
// with AVX2; block_amd64.s and const_amd64.go (BlockAMD64, TablesAMD64), the
// single-block calls of amd64 and their table; and methods.go (Methods),
// the methods of Cipher and TripleCipher from one template. The assembly is
// Go assembler text, formatted by the generator itself.
//
// Each Go file is formatted with go/format. The package des test compares them
// byte for byte with the committed files, and `go generate` in package des
// runs gen.go, which writes them.
package gen

import (
	"bytes"
	"fmt"
	"go/format"
)

// sBoxes are the eight DES S-boxes, FIPS 46-3, each 4 rows of 16 columns.
var sBoxes = [8][4][16]uint8{
	{
		{14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7},
		{0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8},
		{4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0},
		{15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13},
	},
	{
		{15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10},
		{3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5},
		{0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15},
		{13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9},
	},
	{
		{10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8},
		{13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1},
		{13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7},
		{1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12},
	},
	{
		{7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15},
		{13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9},
		{10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4},
		{3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14},
	},
	{
		{2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9},
		{14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6},
		{4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14},
		{11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3},
	},
	{
		{12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11},
		{10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8},
		{9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6},
		{4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13},
	},
	{
		{4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1},
		{13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6},
		{1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2},
		{6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12},
	},
	{
		{13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7},
		{1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2},
		{7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8},
		{2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11},
	},
}

// P is the permutation of the cipher function, FIPS 46-3: output bit i is
// input bit P[i-1].
var P = [32]uint8{
	16, 7, 20, 21, 29, 12, 28, 17,
	1, 15, 23, 26, 5, 18, 31, 10,
	2, 8, 24, 14, 32, 27, 3, 9,
	19, 13, 30, 6, 22, 11, 4, 25,
}

// PC2 is permuted choice 2 of the key schedule, FIPS 46-3: subkey bit i is
// bit PC2[i-1] of the 56-bit C|D.
var PC2 = [48]uint8{
	14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10,
	23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
	41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48,
	44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
}

// bit returns bit n (1-based, from the most significant end) of the
// width-bit value x.
func bit(x uint64, width, n uint) uint64 { return x >> (width - n) & 1 }

// SP returns the S-boxes with P folded in. Entry [s][x] is P(S_{s+1}(x)
// placed at output nibble s+1), rotated left by one bit, for the 6-bit input
// x whose most significant bit is the box's first input bit. The rotation
// matches the round function, which keeps both block halves rotated left by
// one so that every S-box input is a byte-aligned 6-bit field.
func SP() [8][64]uint32 {
	var sp [8][64]uint32
	for s := range sBoxes {
		for x := range 64 {
			row := x>>4&2 | x&1
			col := x >> 1 & 15
			pre := uint64(sBoxes[s][row][col]) << (28 - 4*s)
			var out uint32
			for i, n := range P {
				out |= uint32(bit(pre, 32, uint(n))) << (31 - i)
			}
			sp[s][x] = out<<1 | out>>31
		}
	}
	return sp
}

// PC2Tables returns PC-2 as eight tables indexed by 7-bit slices of the
// rotated key halves. Entries [m][v] (m < 4) are for C>>(7m)&127 == v and
// entries [4+m][v] for D>>(7m)&127 == v, with C and D 28-bit values whose
// most significant bit is the standard's first bit.
//
// The round function takes each subkey as two words: k0 holds the 6-bit key
// inputs of S-boxes 8, 6, 4, 2 in bytes 0, 1, 2, 3 and k1 those of S-boxes
// 7, 5, 3, 1. Each entry holds its bits of both as k0 | k1<<32: the C
// entries (S-boxes 1 to 4) fill the upper halves of k0 and k1, the D entries
// the lower ones, so an OR of all eight is the subkey pair.
func PC2Tables() [8][128]uint64 {
	var tab [8][128]uint64
	for half := range 2 {
		for m := range 4 {
			for v := range 128 {
				in := uint64(v) << (7 * m) // 28-bit C or D
				var w [4]uint32            // the four 6-bit S-box key inputs of this half
				for i := range 24 {
					n := uint(PC2[24*half+i]) - uint(28*half)
					w[i/6] |= uint32(bit(in, 28, n)) << (5 - i%6)
				}
				// Boxes 1..4 (C) or 5..8 (D): the odd ones go to k1, the even ones to k0.
				sh := 16 * (1 - half)
				tab[4*half+m][v] = uint64(w[1]<<8|w[3])<<sh | uint64(w[0]<<8|w[2])<<(sh+32)
			}
		}
	}
	return tab
}

// Tables returns the generated Go file holding both tables (const.go).
func Tables() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by gen.go from the FIPS 46-3 tables; DO NOT EDIT.\n\npackage des\n\n")
	var sp [][]uint32
	for _, t := range SP() {
		sp = append(sp, t[:])
	}
	writeVar(&b, "// spBox[s][x] is S-box s+1 applied to the 6-bit input x, moved through the\n"+
		"// permutation P and rotated left by one bit (see internal/gen).\n", "spBox = [8][64]uint32", sp)
	b.WriteString("\n")
	b.WriteString("// pc2Box maps 7-bit slices of the rotated key halves C (tables 0-3) and D\n" +
		"// (tables 4-7) to subkey bits in the round function's layout, k0 | k1<<32\n// (see internal/gen).\n")
	b.WriteString("var pc2Box = [8][128]uint64{\n")
	for _, t := range PC2Tables() {
		writeTable64(&b, t[:])
	}
	b.WriteString("}\n")
	return gofmt("const.go", b.Bytes())
}

// writeVar writes doc and the table variable decl (name and type) initialised with tables.
func writeVar(b *bytes.Buffer, doc, decl string, tables [][]uint32) {
	b.WriteString(doc)
	b.WriteString("var " + decl + "{\n")
	for _, t := range tables {
		writeTable(b, t)
	}
	b.WriteString("}\n")
}

// writeTable64 writes one table of 64-bit entries as a braced list, four a line.
func writeTable64(b *bytes.Buffer, t []uint64) {
	b.WriteString("{\n")
	for i, v := range t {
		fmt.Fprintf(b, "0x%016x,", v)
		if i%4 == 3 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	b.WriteString("},\n")
}

func gofmt(name string, src []byte) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("formatting generated %s: %w", name, err)
	}
	return out, nil
}

// rotations is the cumulative left rotation of the key halves C and D before
// each round, FIPS 46-3 (shifts 1,1,2,2,2,2,2,2,1,2,2,2,2,2,2,1).
var rotations = [16]uint{1, 2, 4, 6, 8, 10, 12, 14, 15, 17, 19, 21, 23, 25, 27, 28}

// Unrolled returns the generated Go file unrolled.go, holding roundsGo (the
// 16 DES rounds on one block) and subkeys (the 16 subkeys of a key), each
// also with the subkeys in reverse order (roundsReversedGo,
// subkeysReversed), so that one schedule per stage serves both directions.
//
// In rounds, each round XORs eight spBox entries, four indexed by the bytes
// of t = x^k0 and four by v = x^(k1 rotated left by 4) at bit offsets 4,
// 12, 20, 28, into the other half y. The critical path of a round is index, lookup, XOR tree,
// next index, so the next round's t and v are not computed from the new y
// but as (y^next k0) ^ f and (y^next k1) ^ f, with y^next k computed while
// the lookups are in flight, and the tree is ordered so the earliest lookup
// (the one needing only a mask) is folded in first. The last round has no
// next round and just updates y.
//
// subkeys takes each rotation as a constant shift of the doubled halves and
// maps C and D to subkey bits with four pc2Box lookups each, whose OR is the
// round's pair of subkey words.
func Unrolled() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by gen.go; DO NOT EDIT.

package des

import "math/bits"
`)
	for _, reversed := range []bool{false, true} {
		writeRounds(&b, reversed)
	}
	for _, reversed := range []bool{false, true} {
		writeSubkeys(&b, reversed)
	}
	return gofmt("unrolled.go", b.Bytes())
}

// writeRounds writes rounds, or roundsReversed, of Unrolled.
func writeRounds(b *bytes.Buffer, reversed bool) {
	// key returns the schedule entry of subkey word w (0 or 1) of round
	// n (0-based) as the rounds read it.
	key := func(n, w int) string {
		if reversed {
			n = 15 - n
		}
		if w == 1 {
			return fmt.Sprintf("bits.RotateLeft32(ks[%d][%d], 4)", n/2, n%2*2+w)
		}
		return fmt.Sprintf("ks[%d][%d]", n/2, n%2*2+w)
	}
	if reversed {
		b.WriteString(`
// roundsReversedGo is roundsGo with the subkeys of ks taken from round 16
// down to round 1: the inverse of the stage that roundsGo runs with ks.
func roundsReversedGo(sp *[8][64]uint32, ks *schedule, l, r uint32) (uint32, uint32) {
`)
	} else {
		b.WriteString(`
// roundsGo runs the 16 rounds of one DES stage on the rotated halves (l, r)
// and returns the halves after round 16, not swapped. sp is &spBox, passed
// in so that the table address stays in a register. The rounds are unrolled
// and each computes the next round's S-box index words directly (see
// internal/gen.Unrolled), which shortens the dependency chain of a round.
// rounds calls it, or on amd64 the assembly of the same rounds.
func roundsGo(sp *[8][64]uint32, ks *schedule, l, r uint32) (uint32, uint32) {
`)
	}
	fmt.Fprintf(b, "\tt, v := r^%s, r^%s\n", key(0, 0), key(0, 1))
	b.WriteString("\tvar tn, vn, a, c, d, e uint32\n")
	for rd := range 16 {
		y := "l"
		if rd%2 == 1 {
			y = "r"
		}
		fmt.Fprintf(b, "\n\t// Round %d.\n", rd+1)
		n := rd + 1
		if n < 16 {
			fmt.Fprintf(b, "\ttn, vn = %s^%s, %s^%s\n", y, key(n, 0), y, key(n, 1))
		}
		b.WriteString("\ta = sp[7][t&0x3f]\n")
		b.WriteString("\tc = sp[1][t>>24&0x3f]\n")
		b.WriteString("\td = sp[5][t>>8&0x3f] ^ sp[3][t>>16&0x3f]\n")
		b.WriteString("\te = (sp[6][v>>4&0x3f] ^ sp[4][v>>12&0x3f]) ^ (sp[2][v>>20&0x3f] ^ sp[0][bits.RotateLeft32(v, " +
			"4)&0x3f])\n")
		if n < 16 {
			b.WriteString("\tt = ((tn ^ a) ^ c) ^ d ^ e\n")
			b.WriteString("\tv = ((vn ^ a) ^ c) ^ d ^ e\n")
			fmt.Fprintf(b, "\t%s ^= t ^ tn\n", y)
		} else {
			fmt.Fprintf(b, "\t%s ^= ((a ^ c) ^ d) ^ e\n", y)
		}
	}
	b.WriteString("\treturn l, r\n}\n")
}

// writeSubkeys writes subkeys, or subkeysReversed, of Unrolled.
func writeSubkeys(b *bytes.Buffer, reversed bool) {
	if reversed {
		b.WriteString(`
// subkeysReversed is subkeys storing the subkeys in reverse round order, the
// schedule of the inverse stage.
func subkeysReversed(pc *[8][128]uint64, cc, dd uint64, ks *schedule) {
`)
	} else {
		b.WriteString(`
// subkeys computes the 16 subkeys from the PC-1 halves, given doubled as
// cc = C0<<28 | C0 and dd = D0<<28 | D0 so that C rotated left by s is the
// low 28 bits of cc>>(28-s), and stores them in ks in round order (see
// schedule). pc is &pc2Box. An OR of the four C entries and the four D
// entries is the pair k0 | k1<<32 (see internal/gen.PC2Tables).
func subkeys(pc *[8][128]uint64, cc, dd uint64, ks *schedule) {
`)
	}
	b.WriteString("\tvar c, d uint32\n\tvar z uint64\n")
	for i, s := range rotations {
		j := i
		if reversed {
			j = 15 - i
		}
		fmt.Fprintf(b, "\n\t// Round %d: C and D rotated left by %d.\n", i+1, s)
		fmt.Fprintf(b, "\tc, d = uint32(cc>>%d), uint32(dd>>%d)\n", 28-s, 28-s)
		b.WriteString("\tz = pc[0][c&0x7f] | pc[1][c>>7&0x7f] | pc[2][c>>14&0x7f] | pc[3][c>>21&0x7f] |\n")
		b.WriteString("\t\tpc[4][d&0x7f] | pc[5][d>>7&0x7f] | pc[6][d>>14&0x7f] | pc[7][d>>21&0x7f]\n")
		fmt.Fprintf(b, "\tks[%d][%d], ks[%d][%d] = uint32(z), uint32(z>>32)\n", j/2, j%2*2, j/2, j%2*2+1)
	}
	b.WriteString("}\n")
}

func writeTable(b *bytes.Buffer, t []uint32) {
	b.WriteString("{\n")
	for i, v := range t {
		fmt.Fprintf(b, "0x%08x,", v)
		if i%8 == 7 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	b.WriteString("},\n")
}

// E is the expansion of the cipher function, FIPS 46-3: bit i of the 48-bit
// expanded half is bit E[i-1] of the 32-bit half.
var E = [48]uint8{
	32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9,
	8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
	16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25,
	24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
}

// IP is the initial permutation, FIPS 46-3: bit i of the permuted block is
// bit IP[i-1] of the input block.
var IP = [64]uint8{
	58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
	62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
	57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
	61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
}
