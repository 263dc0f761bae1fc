//go:build !amd64 || purego

package des

// crypt encrypts the block b with the DES stages ks: cryptGo.
func crypt(ks []schedule, b uint64) uint64 { return cryptGo(ks, b) }

// cryptReversed undoes crypt: cryptReversedGo.
func cryptReversed(ks []schedule, b uint64) uint64 { return cryptReversedGo(ks, b) }
