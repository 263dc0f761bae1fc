// Package childset is the set of child processes started below internal/proc's floor: the git
// commands of gitsrc and demo. proc kills every child of perfgate that it did not start as an
// orphan (a benchmark's daemon re-parented to perfgate looks just like one); it leaves those in
// this set alone.
//
// Start starts a command and adds its pid, Wait waits for it and removes the pid, Run does both and
// returns what the command wrote; Exempt runs
// proc's sweep with the set fixed, so that a sweep never sees a child half-started. GitEnv is the
// environment both run git in.
package childset

import (
	"bytes"
	"os"
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

// Run runs cmd through Start and Wait and returns its standard output and standard error
// (cmd's own Stdout and Stderr are replaced).
func Run(cmd *exec.Cmd) (stdout, stderr []byte, err error) {
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err = Start(cmd); err == nil {
		err = Wait(cmd)
	}
	return out.Bytes(), errOut.Bytes(), err
}

// Exempt calls f with a function that reports whether pid is a child started with Start and not
// yet waited for. No child starts while f runs.
func Exempt(f func(started func(pid int) bool)) {
	mu.Lock()
	defer mu.Unlock()
	f(func(pid int) bool { return pids[pid] })
}

// keepEnv are the variables of this process that git runs with: where to find itself and the
// user's configuration (the global excludes file included). Nothing else reaches it: not a token
// (perfgate blanks them only in its own /proc/self/environ, see sandbox.HideEnvironment), and not
// the variables that point git at another repository, index or object store (GIT_DIR,
// GIT_INDEX_FILE, … of a hook that runs perfgate: `git rev-parse --local-env-vars` lists them).
var keepEnv = []string{"PATH", "HOME", "XDG_CONFIG_HOME", "TMPDIR", "SYSTEMROOT", "GIT_EXEC_PATH",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"}

// GitEnv returns the environment git runs in, for every git perfgate starts (gitsrc's and demo's):
// keepEnv, with messages in English (gitsrc.Open recognises "not a git repository"), no optional
// locks (git status would otherwise refresh the index) and no prompt.
func GitEnv() []string {
	env := []string{"LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0"}
	for _, name := range keepEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
