//go:build linux

package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// snapshot describes every entry beneath top, top itself left out (moving it changes its own change
// time): its path, kind, inode, size, link count, change and modification times, and a link's
// target. Any write, creation, removal, rename, chmod or new hard link changes it; the change time
// cannot be set back from user space.
func snapshot(top string) (string, error) {
	var b strings.Builder
	var st unix.Stat_t
	if err := unix.Lstat(top, &st); err != nil {
		return "", err
	}
	// not its times: moving it into a scratch directory changes them
	fmt.Fprintf(&b, "%o\n", st.Mode)
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == top {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		target := ""
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ = os.Readlink(p)
		}
		fmt.Fprintf(&b, "%s %o %d %d %d.%d %d.%d %d %s\n", p[len(top):], st.Mode, st.Ino, st.Size, st.Ctim.Sec,
			st.Ctim.Nsec, st.Mtim.Sec, st.Mtim.Nsec, st.Nlink, target)
		return nil
	})
	return b.String(), err
}
