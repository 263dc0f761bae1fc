//go:build !unix

package proc

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

func signalOf(ee *exec.ExitError) string { return "" }

func killGroupOf(pid int) {}
