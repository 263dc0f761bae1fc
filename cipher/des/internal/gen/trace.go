package gen

// pc1 is permuted choice 1 of the key schedule, FIPS 46-3: bit i of C|D is
// bit pc1[i-1] of the 64-bit key.
var pc1 = [56]uint8{
	57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
	10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
	63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
	14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
}

// permute returns the len(table)-bit value whose bit i (1-based, most
// significant first) is bit table[i-1] of the width-bit value x.
func permute(x uint64, width uint, table []uint8) uint64 {
	var out uint64
	for _, n := range table {
		out = out<<1 | bit(x, width, uint(n))
	}
	return out
}

// Subkeys returns the 16 48-bit subkeys of a 64-bit DES key, in the order
// encryption uses them, read straight from FIPS 46-3.
func Subkeys(key uint64) [16]uint64 {
	cd := permute(key, 64, pc1[:])
	c, d := cd>>28, cd&0x0fffffff
	var ks [16]uint64
	for i, n := range rotations {
		rc := (c<<n | c>>(28-n)) & 0x0fffffff
		rd := (d<<n | d>>(28-n)) & 0x0fffffff
		ks[i] = permute(rc<<28|rd, 56, PC2[:])
	}
	return ks
}

// Trace runs the DES stages on block, each with its subkeys in the order
// given (reverse them for a decrypting stage), the way Triple DES chains
// them, and returns the output block and the 6-bit input of every S-box of
// every round: in[r][s] is the input of S-box s+1 in round r (counting
// across the stages), its first input bit most significant. It is a
// reference model, as slow as the standard reads, for tools that need to
// know which table entries a block makes the table engine read.
func Trace(block uint64, stages ...[16]uint64) (out uint64, in [][8]uint8) {
	ip := permute(block, 64, IP[:])
	l, r := ip>>32, ip&0xffffffff
	for _, ks := range stages {
		for _, k := range ks {
			x := permute(r, 32, E[:]) ^ k
			var round [8]uint8
			var f uint64
			for s := range round {
				v := uint8(x >> (42 - 6*s) & 0x3f)
				round[s] = v
				f = f<<4 | uint64(sBoxes[s][v>>4&2|v&1][v>>1&15])
			}
			in = append(in, round)
			l, r = r, l^permute(f, 32, P[:])
		}
		l, r = r, l // the last round of a stage does not swap
	}
	var fp [64]uint8 // FP = IP⁻¹
	for i, n := range IP {
		fp[n-1] = uint8(i + 1)
	}
	return permute(l<<32|r, 64, fp[:]), in
}
