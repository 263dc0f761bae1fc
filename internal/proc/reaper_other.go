//go:build !linux

package proc

import "sync"

var subreaperOnce sync.Once

// becomeSubreaper is Linux only: elsewhere a descendant that leaves the child's process group is
// not tracked.
func becomeSubreaper() {}

func waitExited(pid int) {}

func sweep() {}

// KillDescendants kills every process descended from this one. Only Linux can find them all;
// elsewhere it does nothing (the process-group kill of each child is all there is).
func KillDescendants() {}
