//go:build ignore

// gen writes const.go (the lookup tables of package des, derived from the
// FIPS 46-3 tables), unrolled.go (the unrolled round function and key
// schedule), sliced.go (the bitsliced S-box circuits and wiring),
// sliced_amd64.s (the same circuits and wiring on 256 lanes with AVX2),
// block_amd64.s and const_amd64.go (the single-block calls of amd64 and
// their table) and methods.go (the methods of Cipher and TripleCipher) using internal/gen.
// Run it with `go generate` in this directory.
//
// With -search N it writes nothing and instead tries N random recipes per
// S-box circuit, printing the cheapest as Go source for internal/gen's
// recipes table: go run gen.go -search 300
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

func main() {
	search := flag.Int("search", 0, "search this many circuit recipes per S-box instead of generating")
	slack := flag.Int("slack", 0, "with -search: estimated cost above the cheapest a random choice may take")
	flag.Parse()
	if *search > 0 {
		for s := range 8 {
			r, cost := gen.SearchSBox(s, 1, *search, *slack)
			fmt.Printf("\t{Order: [4]int{%d, %d, %d, %d}, Seed: %d, Slack: %d}, // S%d: %d\n",
				r.Order[0], r.Order[1], r.Order[2], r.Order[3], r.Seed, r.Slack, s+1, cost)
		}
		return
	}
	for _, f := range []struct {
		name string
		make func() ([]byte, error)
	}{
		{"const.go", gen.Tables}, {"unrolled.go", gen.Unrolled}, {"sliced.go", gen.Sliced}, {"methods.go", gen.Methods},
		{"sliced_amd64.s", gen.SlicedAVX2}, {"block_amd64.s", gen.BlockAMD64}, {"const_amd64.go", gen.TablesAMD64},
	} {
		src, err := f.make()
		if err == nil {
			err = os.WriteFile(f.name, src, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(1)
		}
	}
}
