//go:build !unix

package abba

import "os"

// PeakRSS returns 0: this platform does not report a child's peak resident set size.
func PeakRSS(ps *os.ProcessState) int64 { return 0 }

// MinorFaults returns -1: this platform does not report a child's page faults.
func MinorFaults(ps *os.ProcessState) int64 { return -1 }
