//go:build unix

package abba

import (
	"os"
	"runtime"
	"syscall"
)

// PeakRSS returns the peak resident set size in bytes of the exited child ps describes (getrusage's ru_maxrss),
// or 0 when unknown.
func PeakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux and the BSDs
}
