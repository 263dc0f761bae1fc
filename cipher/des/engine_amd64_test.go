//go:build amd64 && !purego

package des

import "testing"

// wideBuilt says whether this build has the 256-lane engine.
const wideBuilt = true

// wideEngines returns the 256-lane engine alone (every tail padded to 256
// blocks) and the default mix, if the CPU has AVX2 and GODEBUG has not
// turned it off (useAVX2 at start-up).
func wideEngines() []engine {
	if !defaultAVX2 {
		return nil
	}
	set := func(min int) func(t *testing.T) {
		return func(t *testing.T) {
			oldUse, oldMin := useAVX2, wideMin
			useAVX2, wideMin = true, min
			t.Cleanup(func() { useAVX2, wideMin = oldUse, oldMin })
		}
	}
	return []engine{{"256-lane", set(0)}, {"mixed", set(wideMin)}}
}

// defaultAVX2 is useAVX2 as the package set it.
var defaultAVX2 = useAVX2
