//go:build linux

package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once

// becomeSubreaper makes this process the child subreaper of its descendants: an orphan among them
// is re-parented here, not to init, so sweep and KillDescendants can find it whatever session or
// group it moved to. It needs no privilege; if it fails anyway, the process-group kill remains.
func becomeSubreaper() {
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// waitExited blocks until the child pid has exited, without reaping it (exec.Cmd.Wait does that).
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}

// procStat is one process's line of /proc/PID/stat, the fields that matter here.
type procStat struct {
	pid, ppid, pgid, sid int
	state                byte
}

// processes reads /proc: every process this user can see, and the children of each.
func processes() (all map[int]procStat, children map[int][]int) {
	all, children = map[int]procStat{}, map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return all, children
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// "pid (comm) S ppid pgrp session …": comm may hold spaces and parentheses, so cut at the
		// last ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 4 || len(f[0]) != 1 {
			continue
		}
		ps := procStat{pid: pid, state: f[0][0]}
		ps.ppid, _ = strconv.Atoi(f[1])
		ps.pgid, _ = strconv.Atoi(f[2])
		ps.sid, _ = strconv.Atoi(f[3])
		all[pid] = ps
		children[ps.ppid] = append(children[ps.ppid], pid)
	}
	return all, children
}

// Descendants returns the descendants of pid that /proc shows now, children before grandchildren:
// a snapshot, which a process starting or exiting meanwhile does not wait for.
func Descendants(pid int) []int {
	_, children := processes()
	return subtree(children, pid)[1:]
}

// subtree returns pid and all its descendants.
func subtree(children map[int][]int, pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// sweep kills the orphans re-parented to this process that no running child owns, with their
// descendants, and reaps them; mu is held. A direct child is an orphan unless it is a running
// command or belongs to a running command's process group (it dies with that group). Every child
// perfgate starts goes through Command (no package below this one starts a process: gitsrc and
// demo read and write repositories in-process), so nothing else is exempt: a descendant that
// joined perfgate's own process group or session is an orphan like any other.
func sweep() {
	me := os.Getpid()
	for range 100 {
		all, children := processes()
		var orphans []int
		for _, pid := range children[me] {
			if p := all[pid]; !running[pid] && !running[p.pgid] {
				orphans = append(orphans, pid)
			}
		}
		if len(orphans) == 0 {
			return
		}
		for _, o := range orphans {
			for _, pid := range subtree(children, o) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		for _, o := range orphans {
			var ws unix.WaitStatus
			// its children are re-parented here by now: the next pass finds them
			unix.Wait4(o, &ws, 0, nil)
		}
	}
}

// KillDescendants kills every process descended from this one and reaps the orphans among them.
// perfgate calls it as it exits, so that nothing it started — however it detached itself — outlives
// it.
func KillDescendants() {
	me := os.Getpid()
	mu.Lock()
	defer mu.Unlock()
	for range 100 {
		all, children := processes()
		var live []int
		for _, pid := range subtree(children, me)[1:] {
			if all[pid].state != 'Z' {
				live = append(live, pid)
			}
		}
		for _, pid := range children[me] {
			if all[pid].state == 'Z' && !running[pid] {
				var ws unix.WaitStatus
				unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			}
		}
		if len(live) == 0 {
			return
		}
		for _, pid := range live {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}
