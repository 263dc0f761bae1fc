package main

import (
	"math"
	"math/bits"
	mrand "math/rand/v2"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

// The table engine of package des reads, in every round, one entry of each
// of eight tables of 64 4-byte entries: 256 bytes, four 64-byte cache lines
// a table, entry x in line x/16 (the tables are generated as one 2 KiB
// array). Its time depends on how many distinct lines a block makes it read
// when they are not in the level 1 cache: a random block reads nearly all
// 32 in 16 rounds (31.7 on average), a well chosen one far fewer. That is
// the fixed input of the test: the same for every path, so the bitsliced
// engine, which reads no table, is tested on it too.

// tableLines returns how many distinct table lines the table engine reads
// to encrypt block with the DES stages.
func tableLines(stages [][16]uint64, block uint64) int {
	_, in := gen.Trace(block, stages...)
	var seen [8]uint8 // bit l of seen[s]: line l of table s was read
	for _, round := range in {
		for s, x := range round {
			seen[s] |= 1 << (x >> 4)
		}
	}
	n := 0
	for _, m := range seen {
		n += bits.OnesCount8(m)
	}
	return n
}

// meanLines is the mean of tableLines over 1,000 random blocks.
func meanLines(stages [][16]uint64, seed uint64) float64 {
	rng := mrand.New(mrand.NewPCG(seed, 0x11e5))
	total := 0
	for range 1000 {
		total += tableLines(stages, rng.Uint64())
	}
	return float64(total) / 1000
}

// lineSearchStarts is the number of random starting points of
// fewestLines.
const lineSearchStarts = 400

// spread is a smooth stand-in for tableLines that the search descends:
// the sum over the table lines of the square root of how often the DES
// stages read them for block. Being concave in the counts, it falls as the
// reads crowd into fewer lines, also before a line empties.
func spread(stages [][16]uint64, block uint64) float64 {
	_, in := gen.Trace(block, stages...)
	var count [8][4]int
	for _, round := range in {
		for s, x := range round {
			count[s][x>>4]++
		}
	}
	t := 0.0
	for s := range count {
		for _, n := range count[s] {
			t += math.Sqrt(float64(n))
		}
	}
	return t
}

// fewestLines searches for a key (if searchKey is set; otherwise the
// stages are fixed) and a block that make the table engine read few table
// lines: from each of lineSearchStarts random points it flips the single
// key or block bit that lowers spread most, while one does, and keeps the
// point with the fewest lines. stages makes the subkeys of the DES stages
// from the key.
func fewestLines(stages func(key uint64) [][16]uint64, searchKey bool, seed uint64) (key, block uint64) {
	rng := mrand.New(mrand.NewPCG(seed, 0xf1ced))
	bestN := 1 << 30
	for range lineSearchStarts {
		k, b := uint64(0), rng.Uint64()
		if searchKey {
			k = rng.Uint64()
		}
		st := stages(k)
		v := spread(st, b)
		for {
			fk, fb, fv := -1, -1, v
			for i := range 64 {
				if searchKey {
					if w := spread(stages(k^1<<i), b); w < fv {
						fk, fb, fv = i, -1, w
					}
				}
				if w := spread(st, b^1<<i); w < fv {
					fk, fb, fv = -1, i, w
				}
			}
			if fk < 0 && fb < 0 {
				break
			}
			if fk >= 0 {
				k ^= 1 << fk
				st = stages(k)
			} else {
				b ^= 1 << fb
			}
			v = fv
		}
		if n := tableLines(st, b); n < bestN {
			key, block, bestN = k, b, n
		}
	}
	return key, block
}
