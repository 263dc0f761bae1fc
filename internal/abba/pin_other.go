//go:build !linux

package abba

import (
	"fmt"
	"os/exec"
	"runtime"
)

// AllowedCPUs returns an error: this platform has no CPU affinity perfgate can use.
func AllowedCPUs() ([]int, error) {
	return nil, fmt.Errorf("cpu affinity is not supported on %s: children run unpinned", runtime.GOOS)
}

func startPinned(cmd *exec.Cmd, cpu int) (string, error) {
	return "", fmt.Errorf("cpu affinity is not supported on %s", runtime.GOOS)
}

// PinThread is not supported here.
func PinThread(cpu int) error {
	return fmt.Errorf("cpu affinity is not supported on %s", runtime.GOOS)
}

// ChildCPUs is "": nothing to read here.
func ChildCPUs(pid int) string { return "" }

// PinProcess is not supported here.
func PinProcess(cpu int) (restore func(), err error) {
	return nil, fmt.Errorf("cpu affinity is not supported on %s", runtime.GOOS)
}

// WidenDescendants does nothing here.
func WidenDescendants() {}
