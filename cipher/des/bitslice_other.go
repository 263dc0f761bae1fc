//go:build !amd64 || purego

package des

// useAVX2 is false: without the assembly (another architecture, or the
// purego build tag) every batch takes the 64-bit engine.
var useAVX2 = false

// cryptWide does nothing and returns 0: see bitslice_amd64.go.
func cryptWide(ks []slicedKeys, decrypt bool, dst, src []byte) int { return 0 }
