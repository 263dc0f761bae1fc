package main

import (
	"testing"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

// TestTableLines counts the lines of the FIPS 46-3 worked example by hand:
// its round 1 S-box inputs 011000 010001 011110 111010 100001 100110
// 010100 100111 fall in lines 1 1 1 3 2 2 1 2 of their tables.
func TestTableLines(t *testing.T) {
	stages := [][16]uint64{gen.Subkeys(0x133457799bbcdff1)}
	_, in := gen.Trace(0x0123456789abcdef, stages...)
	want := [8]uint8{1, 1, 1, 3, 2, 2, 1, 2}
	for s, x := range in[0] {
		if x>>4 != want[s] {
			t.Errorf("S%d round 1: line %d, want %d", s+1, x>>4, want[s])
		}
	}
	if n := tableLines(stages, 0x0123456789abcdef); n < 8 || n > 32 {
		t.Errorf("tableLines = %d, want 8 to 32", n)
	}
}

// TestFewestLines checks that the search finds a key and block reading
// clearly fewer lines than random blocks do.
func TestFewestLines(t *testing.T) {
	stages := func(k uint64) [][16]uint64 { return [][16]uint64{gen.Subkeys(k)} }
	key, block := fewestLines(stages, true, 1)
	n, mean := tableLines(stages(key), block), meanLines(stages(key), 1)
	if float64(n) > mean-3 {
		t.Errorf("fewestLines: key %016x block %016x reads %d lines, random blocks %.1f", key, block, n, mean)
	}
}
