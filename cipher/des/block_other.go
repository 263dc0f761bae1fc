//go:build !amd64 || purego

package des

import "encoding/binary"

// cryptBlock encrypts the first block of src into dst with the DES stages
// ks: cryptGo.
func cryptBlock(ks []schedule, dst, src []byte) {
	binary.BigEndian.PutUint64(dst, cryptGo(ks, binary.BigEndian.Uint64(src)))
}

// cryptBlockReversed undoes cryptBlock: cryptReversedGo.
func cryptBlockReversed(ks []schedule, dst, src []byte) {
	binary.BigEndian.PutUint64(dst, cryptReversedGo(ks, binary.BigEndian.Uint64(src)))
}
