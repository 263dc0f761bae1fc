package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// hideEnvironment makes this process non-dumpable, so that /proc/PID/environ — which still holds the token the
// Action passed in — is readable by root only, not by the benchmark processes that run as the same user. The
// children's scrubbed environment keeps the token out of their own environment; this keeps them from reading ours.
func hideEnvironment() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("could not hide perfgate's environment from its children: %w", err)
	}
	return nil
}
