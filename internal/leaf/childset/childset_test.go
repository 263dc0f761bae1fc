package childset

import (
	"os/exec"
	"testing"
)

// TestStartWait: a started child is in the set until Wait, and only then.
func TestStartWait(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	cmd := exec.Command(sleep, "0.1")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var during bool
	Exempt(func(started func(int) bool) { during = started(pid) })
	if err := Wait(cmd); err != nil {
		t.Fatal(err)
	}
	var after bool
	Exempt(func(started func(int) bool) { after = started(pid) })
	if !during || after {
		t.Errorf("in the set while running: %v, after Wait: %v; want true, false", during, after)
	}
}
