package main

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestHideEnvironment checks that perfgate action leaves its process non-dumpable: /proc/PID/environ, which holds
// the token, is then readable by root only, not by benchmark processes running as the same user.
func TestHideEnvironment(t *testing.T) {
	if err := hideEnvironment(); err != nil {
		t.Fatal(err)
	}
	got, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != 0 {
		t.Errorf("PR_GET_DUMPABLE = %d after hideEnvironment, want 0", got)
	}
}
