//go:build linux

package abba

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/perfgate/perfgate/internal/proc"
)

// AllowedCPUs returns the CPUs this process may run on, sorted.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("reading cpu affinity: %w", err)
	}
	return cpusOf(&set), nil
}

func cpusOf(set *unix.CPUSet) []int {
	var out []int
	for c := range len(set) * 64 {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// startPinned starts cmd from a goroutine locked to a thread whose affinity is cpu alone. The
// goroutine never unlocks its thread: when it returns, the runtime terminates the thread, so the
// narrowed mask dies with it. Threads the runtime creates meanwhile are not affected: a locked
// thread hands thread creation to the runtime's template thread. One exception needs care: the main
// thread cannot exit, so if the goroutine happened to run on it the runtime parks that thread for
// good instead; the original mask is therefore restored after the start, so even a parked main
// thread keeps it.
func startPinned(cmd *exec.Cmd, cpu int) (string, error) {
	type result struct {
		cpus string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		var orig, set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &orig); err != nil {
			done <- result{err: fmt.Errorf("reading cpu affinity: %w", err)}
			return
		}
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			done <- result{err: fmt.Errorf("pinning to cpu %d: %w", cpu, err)}
			return
		}
		err := cmd.Start()
		unix.SchedSetaffinity(0, &orig) // best effort; the thread is discarded anyway
		if err != nil {
			done <- result{err: err}
			return
		}
		cpus, _ := childCPUs(cmd.Process.Pid)
		done <- result{cpus: cpus}
	}()
	r := <-done
	return r.cpus, r.err
}

// PinThread narrows the calling thread's affinity to cpu alone. The caller runs on a goroutine
// locked to a thread that is then discarded (as internal/sandbox's Start does with its onThread),
// so that the mask dies with it; a child started from that thread inherits it.
func PinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pinning to cpu %d: %w", cpu, err)
	}
	return nil
}

// ChildCPUs returns the child pid's allowed CPUs as the kernel reports them (Cpus_allowed_list), to
// verify a pinning; "" when they cannot be read.
func ChildCPUs(pid int) string {
	cpus, _ := childCPUs(pid)
	return cpus
}

// childCPUs reads Cpus_allowed_list from /proc/PID/status. The entry exists until the child is
// reaped, so a child that already exited can still be read.
func childCPUs(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "", err
	}
	return cpusAllowedList(b)
}

func cpusAllowedList(status []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Cpus_allowed_list:")); ok {
			return string(bytes.TrimSpace(v)), nil
		}
	}
	return "", fmt.Errorf("no Cpus_allowed_list in status")
}

// PinProcess narrows every thread of this process to cpu alone, so that whatever it runs next,
// and the children it starts, stay off the other CPUs; restore gives each thread of the process
// then the affinity the calling thread had before. Threads the runtime creates meanwhile inherit
// the narrowed mask from their creator; a thread created while the threads are walked may keep
// the old one, so they are walked twice. It is for work beside the timing lane: the timed children
// pin themselves (startPinned), and this process's own goroutines, its garbage collector included,
// then share the other CPU with the work instead of the timed child's.
func PinProcess(cpu int) (restore func(), err error) {
	var orig, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return nil, fmt.Errorf("reading cpu affinity: %w", err)
	}
	if !orig.IsSet(cpu) {
		return nil, fmt.Errorf("cpu %d is not one this process may use", cpu)
	}
	set.Set(cpu)
	if err := setThreads(&set); err != nil {
		setThreads(&orig) //nolint:errcheck // best effort: undo what was done
		return nil, fmt.Errorf("pinning to cpu %d: %w", cpu, err)
	}
	//nolint:errcheck // a thread left narrowed costs time only
	return func() { setThreads(&orig) }, nil
}

// setThreads sets the affinity of every thread of this process to set, walking them twice; a thread
// that exits meanwhile is skipped.
func setThreads(set *unix.CPUSet) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return err
			}
		}
	}
	return nil
}

// WidenDescendants gives every thread of this process's descendants the affinity the calling thread
// has: for work started beside the timing under PinProcess that goes on once the timing has ended
// (a child started while the process was pinned keeps the narrowed mask). Only for when nothing
// timed runs: a timed child would lose its pinning too. Best effort: a process that exits meanwhile
// is skipped.
func WidenDescendants() {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return
	}
	for _, pid := range proc.Descendants(os.Getpid()) {
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue
		}
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				unix.SchedSetaffinity(tid, &set) //nolint:errcheck // best effort, as the doc says
			}
		}
	}
}
