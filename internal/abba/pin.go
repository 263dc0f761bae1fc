package abba

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Pinning says where the children of a run execute.
type Pinning struct {
	Pinned  bool   // children are pinned to CPU
	CPU     int    // the CPU children are pinned to; -1 when they are not pinned
	Reason  string // why children run unpinned; "" when they are pinned
	Allowed string // the CPUs this process may use, as a Linux CPU list ("0-3,6"); "" when unknown
}

// Choose decides the pinning of a run's children. cpu < 0 picks the default: the last CPU this
// process may use (CPU 0 takes more interrupts). A cpu this process may not use is an error that
// lists the allowed ones. noPin, or a platform without CPU affinity, gives an unpinned Pinning with
// its Reason and no error.
func Choose(cpu int, noPin bool) (Pinning, error) {
	if noPin {
		return Pinning{CPU: -1, Reason: "pinning disabled"}, nil
	}
	allowed, err := AllowedCPUs()
	if err != nil {
		return Pinning{CPU: -1, Reason: err.Error()}, nil
	}
	list := FormatCPUList(allowed)
	if len(allowed) == 0 {
		return Pinning{CPU: -1, Reason: "no CPU in this process's affinity mask", Allowed: list}, nil
	}
	if cpu < 0 {
		cpu = allowed[len(allowed)-1]
	} else if !slices.Contains(allowed, cpu) {
		return Pinning{}, fmt.Errorf("cpu %d is not one this process may use (allowed: %s)", cpu, list)
	}
	return Pinning{Pinned: true, CPU: cpu, Allowed: list}, nil
}

// Start starts cmd, pinned to p.CPU when p.Pinned, and returns the child's allowed CPUs as the
// kernel reports them right after the start (the Cpus_allowed_list of /proc/PID/status, e.g. "1"),
// so callers can verify the pinning. It returns "" when the child is not pinned or the list could
// not be read. The calling goroutine and every other goroutine of this process keep their affinity:
// the pinning happens on a thread that is then discarded.
func Start(cmd *exec.Cmd, p Pinning) (childCPUs string, err error) {
	if !p.Pinned {
		return "", cmd.Start()
	}
	return startPinned(cmd, p.CPU)
}

// FormatCPUList formats sorted CPU numbers as a Linux CPU list: [0 1 2 5] → "0-2,5".
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseCPUList parses a Linux CPU list such as "0-2,5" (the format of Cpus_allowed_list) into
// sorted CPU numbers.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("parsing cpu list %q: bad cpu %q", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("parsing cpu list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
