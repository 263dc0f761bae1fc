//go:build unix

package gitsrc

import (
	"os"
	"syscall"
)

// inode returns the file's inode number as the index records it (its low 32 bits).
func inode(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint32(st.Ino), true
}
