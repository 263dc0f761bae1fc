//go:build unix

package abba

import (
	"os"
	"runtime"
	"syscall"
)

// PeakRSS returns the peak resident set size in bytes of the exited child ps describes (getrusage's
// ru_maxrss), or 0 when unknown.
//
// On Linux a child started by os/exec shares this process's memory until it calls exec (a vfork),
// and the kernel carries the high-water mark of that shared memory into the child's ru_maxrss. A
// child's figure at or below this process's own peak may therefore be this process's, not the
// child's: it is reported as unknown, 0. (Measured: a DES test binary whose peak is 5.5 MB reported
// perfgate's 140 MB.)
func PeakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "linux" {
		var self syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil || ru.Maxrss <= self.Maxrss {
			return 0
		}
	}
	return maxrssBytes(int64(ru.Maxrss))
}

// MinorFaults returns the minor page faults of the exited child ps describes (getrusage's
// ru_minflt), or -1 when unknown. Unlike its peak, a child's faults are its own from the fork on.
func MinorFaults(ps *os.ProcessState) int64 {
	if ps == nil {
		return -1
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return -1
	}
	return int64(ru.Minflt)
}

// maxrssBytes converts ru_maxrss to bytes: it is in bytes on Darwin, in KiB on Linux and the BSDs.
func maxrssBytes(v int64) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return v
	}
	return v * 1024
}
