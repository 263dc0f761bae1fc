//go:build !unix

package gitsrc

import "os"

// inode reports that the file system gives no inode number to compare.
func inode(os.FileInfo) (uint32, bool) { return 0, false }
