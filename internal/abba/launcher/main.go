// Command launcher runs one command and reports its own peak resident set size: see package abba's
// Launcher.
//
// Usage: launcher COMMAND [ARG...], with descriptor 3 the write end of a pipe. It starts COMMAND
// with this process's standard streams, environment, working directory, process group and CPU
// affinity, waits for it, writes "maxrss CHILD SELF minflt FAULTS" to descriptor 3 (the child's
// ru_maxrss and this process's own high-water mark VmHWM, in bytes, and the child's minor page
// faults, ru_minflt), and exits as the child did. It is kept small
// on purpose: the child's figure cannot be told from this process's own memory when it is lower, so
// the less memory this process touches, the smaller the peaks it can measure. It uses the standard
// library only.
package main

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(argv []string) int {
	var report *os.File
	var st syscall.Stat_t
	// the parent's pipe, nothing else
	if syscall.Fstat(3, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		syscall.CloseOnExec(3)
		report = os.NewFile(3, "report")
	}
	if len(argv) == 0 {
		os.Stderr.WriteString("perfgate launcher: no command\n")
		return 127
	}
	self := hwm()
	wd, _ := os.Getwd()
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Dir: wd, Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		os.Stderr.WriteString("perfgate launcher: starting " + argv[0] + ": " + err.Error() + "\n")
		return 127
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		os.Stderr.WriteString("perfgate launcher: waiting for " + argv[0] + ": " + err.Error() + "\n")
		return 127
	}
	if report != nil {
		child := strconv.FormatInt(int64(ru.Maxrss)*1024, 10)
		report.WriteString("maxrss " + child + " " + strconv.FormatInt(self, 10) + " minflt " +
			strconv.FormatInt(int64(ru.Minflt), 10) + "\n")
		report.Close()
	}
	if ws.Signaled() {
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// hwm is this process's resident high-water mark in bytes (VmHWM of /proc/self/status), 0 when
// unknown.
func hwm() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n * 1024
				}
			}
		}
	}
	return 0
}
