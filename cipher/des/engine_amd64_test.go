//go:build amd64 && !purego

package des

import (
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

// wideBuilt says whether this build has the 256-lane engine.
const wideBuilt = true

// wideEngines returns the 256-lane engine alone (every tail padded to 256
// blocks) and the default mix, if the CPU has AVX2 and GODEBUG has not
// turned it off (useAVX2 at start-up).
func wideEngines() []engine {
	if !defaultAVX2 {
		return nil
	}
	set := func(min int) func(t testing.TB) {
		return func(t testing.TB) {
			oldUse, oldMin := useAVX2, wideMin
			useAVX2, wideMin = true, min
			t.Cleanup(func() { useAVX2, wideMin = oldUse, oldMin })
		}
	}
	return []engine{{"256-lane", set(0)}, {"mixed", set(wideMin)}}
}

// defaultAVX2 is useAVX2 as the package set it.
var defaultAVX2 = useAVX2

// TestRoundsAMD64 checks the assembly rounds of the single-block calls
// against the Go rounds (which the purego build runs, and TestVsStdlib
// checks against crypto/des there) on random subkeys and halves, and that
// their table is the generator's.
func TestRoundsAMD64(t *testing.T) {
	if spBox64 != gen.SP64() {
		t.Fatal("spBox64 differs from gen.SP64()")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		var ks schedule
		for i := range ks {
			for j := range ks[i] {
				ks[i][j] = rng.Uint32() & 0x3f3f3f3f
			}
		}
		l, r := rng.Uint32(), rng.Uint32()
		gl, gr := roundsAMD64(&spBox64, &ks, l, r)
		if wl, wr := roundsGo(&spBox, &ks, l, r); gl != wl || gr != wr {
			t.Fatalf("roundsAMD64(%x, %08x, %08x) = %08x %08x, want %08x %08x", ks, l, r, gl, gr, wl, wr)
		}
		gl, gr = roundsReversedAMD64(&spBox64, &ks, l, r)
		if wl, wr := roundsReversedGo(&spBox, &ks, l, r); gl != wl || gr != wr {
			t.Fatalf("roundsReversedAMD64(%x, %08x, %08x) = %08x %08x, want %08x %08x", ks, l, r, gl, gr, wl, wr)
		}
	}
}
