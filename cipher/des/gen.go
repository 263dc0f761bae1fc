//go:build ignore

// gen writes const.go (the lookup tables of package des, derived from the
// FIPS 46-3 tables) and unrolled.go (the unrolled round function and key
// schedule) using internal/gen. Run it with `go generate` in this directory.
package main

import (
	"fmt"
	"os"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

func main() {
	for _, f := range []struct {
		name string
		make func() ([]byte, error)
	}{{"const.go", gen.Tables}, {"unrolled.go", gen.Unrolled}, {"sliced.go", gen.Sliced}} {
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
