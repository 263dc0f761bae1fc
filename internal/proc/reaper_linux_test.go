//go:build linux

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// waitPIDs waits for the shell to write n pids, one per line, to file.
func waitPIDs(t *testing.T, file string, n int) []int {
	t.Helper()
	for range 500 {
		b, _ := os.ReadFile(file)
		if f := strings.Fields(string(b)); len(f) >= n && strings.HasSuffix(string(b), "\n") {
			var pids []int
			for _, s := range f {
				pid, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%s: %q", file, b)
				}
				pids = append(pids, pid)
			}
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: the fixture did not write %d pids", file, n)
	return nil
}

// escapees is a shell script that starts three heartbeat loops that leave its process group, each
// its own way — setsid (a new session), a double fork into a new process group, and a plain
// background job — writes their pids to $1, and exits without waiting for them.
const escapees = `
beat() { while :; do echo "beat $1" >> "$2"; sleep 0.05; done; }
setsid sh -c 'while :; do echo beat setsid >> "$1"; sleep 0.05; done' sh "$3" & echo $! >> "$1"
( ( set -m; sh -c 'while :; do sleep 0.05; done' & echo $! >> "$1" ) & ) 
beat plain "$3" & echo $! >> "$1"
`

// TestWaitKillsEscapedDescendants: a child starts heartbeat processes in a new session, in a new
// process group after a double fork, and in its own group, then exits 0. When Run returns, none of
// them is alive, whichever group or session it moved to.
func TestWaitKillsEscapedDescendants(t *testing.T) {
	needShell(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	dir := t.TempDir()
	pids, beats := filepath.Join(dir, "pids"), filepath.Join(dir, "beats")
	cmd := Command(context.Background(), dir, nil, "sh", "-c", escapees+`while [ $(wc -l < "$1") -lt 3 ]; do sleep 0.01; done`, "sh", pids, "unused", beats)
	if _, _, err := Run(cmd); err != nil {
		t.Fatal(err)
	}
	for _, pid := range waitPIDs(t, pids, 3) {
		if alive(pid) {
			t.Errorf("descendant %d survived its parent's Run", pid)
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
				t.Logf("/proc/%d/stat: %s", pid, b)
			}
		}
	}
}

// TestKillDescendants: what a still running child started in a new session dies with
// KillDescendants, as perfgate calls it when it exits.
func TestKillDescendants(t *testing.T) {
	needShell(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	cmd := Command(context.Background(), dir, nil, "sh", "-c",
		`setsid sh -c 'while :; do sleep 0.05; done' & echo $! >> "$1"; echo $$ >> "$1"; while :; do sleep 0.05; done`, "sh", pids)
	if err := Start(cmd, nil); err != nil {
		t.Fatal(err)
	}
	got := waitPIDs(t, pids, 2)
	KillDescendants()
	if err := Wait(cmd); err == nil {
		t.Error("the killed child exited cleanly")
	}
	for _, pid := range got {
		if alive(pid) {
			t.Errorf("process %d survived KillDescendants", pid)
		}
	}
}

// TestWallClockLimit: a child that keeps printing is still killed at its context's deadline, and
// the error says it was the limit, with what it printed last.
func TestWallClockLimit(t *testing.T) {
	needShell(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	cmd := Command(ctx, "", nil, "sh", "-c", `i=0; while :; do i=$((i+1)); echo "dot $i" >&2; sleep 0.01; done`)
	_, _, err := Run(cmd)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Run: %v, want *Error", err)
	}
	var le *LimitError
	if pe.Limit <= 0 || !errors.As(err, &le) {
		t.Errorf("Error %+v: Limit not set", pe)
	}
	if msg := pe.Error(); !strings.Contains(msg, "killed after its wall-clock limit of") || !strings.Contains(msg, "dot ") {
		t.Errorf("error message:\n%s", msg)
	}
}

// TestConcurrentWaits: children that run and end at the same time, as the differential's base and
// head harnesses do. A sweep by one Wait must never reap another's child before its own Wait does
// (that Wait would fail with "no child processes").
func TestConcurrentWaits(t *testing.T) {
	needShell(t)
	errs := make(chan error, 8*25)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 25 {
				_, _, err := Run(Command(context.Background(), "", nil, "sh", "-c", "exit 0"))
				errs <- err
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestJoinedGroupDoesNotSurvive: a grandchild that moves into perfgate's own process group (setpgid
// to the group of its parent's parent) and loops is killed when its parent's Run returns, like any
// other orphan.
func TestJoinedGroupDoesNotSurvive(t *testing.T) {
	needShell(t)
	file := filepath.Join(t.TempDir(), "pid")
	env := []string{"PROC_TEST_CHILD=joinpgid", "JOIN_PGID=" + strconv.Itoa(syscall.Getpgrp()), "JOIN_FILE=" + file}
	cmd := Command(context.Background(), "", env, "sh", "-c",
		`"$1" & while [ ! -s "$2" ]; do sleep 0.01; done`, "sh", os.Args[0], file)
	if _, _, err := Run(cmd); err != nil {
		t.Fatal(err)
	}
	pid := waitPIDs(t, file, 1)[0]
	if alive(pid) {
		t.Errorf("descendant %d, which joined perfgate's process group, survived its parent's Run", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// needShell skips a test whose child is a shell script when the machine has no shell and utilities
// on PATH (a newcomer's PATH may hold go and git alone); the end-to-end set fails it instead.
func needShell(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"sh", "sleep", "setsid", "wc"} {
		testenv.NeedTool(t, tool, "the test's child is a shell script")
	}
}
