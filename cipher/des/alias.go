package des

import "unsafe"

// This file holds the argument checks of the public methods: buffer lengths
// and overlap. Misuse is a programming error, so it panics, as the
// crypto/cipher implementations of the standard library do.

// checkBlock panics unless src and dst each hold a block and their first
// blocks overlap entirely or not at all. It is cheap enough to be inlined.
func checkBlock(dst, src []byte) {
	if len(src) < BlockSize || len(dst) < BlockSize {
		blockPanic(len(dst), len(src))
	}
	if blockOverlap(&dst[0], &src[0]) {
		panic("des: invalid buffer overlap")
	}
}

// blockPanic panics with the reason checkBlock rejected a buffer length.
func blockPanic(dstLen, srcLen int) {
	if srcLen < BlockSize {
		panic("des: input not full block")
	}
	panic("des: output not full block")
}

// blockOverlap is inexactOverlap for two blocks starting at x and y: they
// share memory at a non-corresponding index if x-y is in [-7, 7] but not 0.
func blockOverlap(x, y *byte) bool {
	d := uintptr(unsafe.Pointer(x)) - uintptr(unsafe.Pointer(y))
	return d != 0 && d+BlockSize-1 < 2*BlockSize-1
}

// checkBlocks panics unless src is a whole number of blocks, dst is at least
// as long, and the part of dst written overlaps src entirely or not at all.
func checkBlocks(dst, src []byte) {
	if len(src)%BlockSize != 0 {
		panic("des: input not full block")
	}
	if len(dst) < len(src) {
		panic("des: output not full block")
	}
	if inexactOverlap(dst[:len(src)], src) {
		panic("des: invalid buffer overlap")
	}
}

// anyOverlap reports whether x and y share memory at any (not necessarily
// corresponding) index. The memory beyond the slice length is ignored.
func anyOverlap(x, y []byte) bool {
	return len(x) > 0 && len(y) > 0 &&
		uintptr(unsafe.Pointer(&x[0])) <= uintptr(unsafe.Pointer(&y[len(y)-1])) &&
		uintptr(unsafe.Pointer(&y[0])) <= uintptr(unsafe.Pointer(&x[len(x)-1]))
}

// inexactOverlap reports whether x and y share memory at any non-corresponding
// index: in-place operation (x and y starting at the same address) is
// allowed, a shifted overlap is not.
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 || &x[0] == &y[0] {
		return false
	}
	return anyOverlap(x, y)
}
