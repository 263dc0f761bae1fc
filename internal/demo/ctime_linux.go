package demo

import (
	"syscall"
	"time"
)

// ctime returns the file's status change time.
func ctime(st *syscall.Stat_t, _ time.Time) time.Time { return time.Unix(st.Ctim.Unix()) }
