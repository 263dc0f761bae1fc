//go:build unix

package demo

import (
	"os"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat records in e the file's device, inode and owner, as git's index does.
func fillStat(e *index.Entry, fi os.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	e.Dev = uint32(st.Dev)
	e.Inode = uint32(st.Ino)
	e.UID = st.Uid
	e.GID = st.Gid
	e.CreatedAt = ctime(st, e.CreatedAt)
}
