package childset

import (
	"os/exec"
	"runtime"
	"strings"
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

// TestRun: Run returns what the command wrote to each stream and its failure, and leaves nothing
// in the set.
func TestRun(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, _, err := Run(exec.Command(goTool, "env", "GOOS"))
	if err != nil || strings.TrimSpace(string(out)) != runtime.GOOS {
		t.Errorf("go env GOOS: %q, %v; want %q", out, err, runtime.GOOS)
	}
	cmd := exec.Command(goTool, "no-such-command")
	out, stderr, err := Run(cmd)
	if err == nil || len(out) != 0 || !strings.Contains(string(stderr), "no-such-command") {
		t.Errorf("go no-such-command: stdout %q, stderr %q, %v; want an error and the complaint on stderr", out, stderr, err)
	}
	var left bool
	Exempt(func(started func(int) bool) { left = started(cmd.Process.Pid) })
	if left {
		t.Error("a child run to its end is still in the set")
	}
}
