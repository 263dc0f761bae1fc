// Package childset is the set of child processes started below internal/host/proc's floor: the git
// commands of gitsrc and demo. proc kills every child of perfgate that it did not start as an
// orphan (a benchmark's daemon re-parented to perfgate looks just like one); it leaves those in
// this set alone.
//
// Start starts a command and adds its pid, Wait waits for it and removes the pid; Exempt runs
// proc's sweep with the set fixed, so that a sweep never sees a child half-started.
package childset

import (
	"os/exec"
	"sync"
)

var (
	mu   sync.Mutex
	pids = map[int]bool{}
)

// Start starts cmd and records it until Wait.
func Start(cmd *exec.Cmd) error {
	mu.Lock()
	defer mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	pids[cmd.Process.Pid] = true
	return nil
}

// Wait waits for cmd, started with Start, and forgets it.
func Wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if cmd.Process != nil {
		mu.Lock()
		delete(pids, cmd.Process.Pid)
		mu.Unlock()
	}
	return err
}

// Exempt calls f with a function that reports whether pid is a child started with Start and not
// yet waited for. No child starts while f runs.
func Exempt(f func(started func(pid int) bool)) {
	mu.Lock()
	defer mu.Unlock()
	f(func(pid int) bool { return pids[pid] })
}
