// Package hostenv describes the machine a comparison runs on, for env.json and perfgate doctor:
// the Go toolchain (asked of go env, through proc), the CPU, and the settings that move benchmark
// numbers, read from /proc and /sys where the system exposes them.
package hostenv

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// Collect describes this machine for env.json: the Go toolchain that builds the benchmarks, the
// CPU, and the settings that move benchmark numbers (frequency governor, turbo, SMT, load) where
// the system exposes them.
func Collect(ctx context.Context, pinnedCPU int) record.Env {
	e := record.Env{
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		CPUs:      runtime.NumCPU(),
		CPU:       cpuModel(),
		PinnedCPU: pinnedCPU,
		Pinned:    pinnedCPU >= 0,
		Kernel:    readTrim("/proc/sys/kernel/osrelease"),
	}
	// Through proc, as every child: the scrubbed environment, GOTOOLCHAIN=local (the version
	// reported is the one that built the benchmarks, never one a go.mod line would download) and a
	// limit.
	gctx, cancel := context.WithTimeout(ctx, proc.ToolLimit)
	defer cancel()
	if out, _, err := proc.Run(proc.Command(gctx, "", nil, "go", "env", "GOVERSION", "GOOS", "GOARCH",
		"GOAMD64")); err == nil {
		// One line per variable; GOAMD64's is empty off amd64, so trim only the final newline.
		f := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(f) == 4 {
			e.Go, e.GOOS, e.GOARCH, e.GOAMD64 = f[0], f[1], f[2], f[3]
		}
	}
	if e.Go == "" {
		e.Go = runtime.Version()
	}
	cpu := pinnedCPU
	if cpu < 0 {
		cpu = 0
	}
	e.Governor = readTrim("/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/cpufreq/scaling_governor")
	switch {
	case readTrim("/sys/devices/system/cpu/intel_pstate/no_turbo") == "1":
		e.Turbo = "off"
	case readTrim("/sys/devices/system/cpu/intel_pstate/no_turbo") == "0":
		e.Turbo = "on"
	case readTrim("/sys/devices/system/cpu/cpufreq/boost") == "1":
		e.Turbo = "on"
	case readTrim("/sys/devices/system/cpu/cpufreq/boost") == "0":
		e.Turbo = "off"
	}
	switch readTrim("/sys/devices/system/cpu/smt/active") {
	case "1":
		e.SMT = "on"
	case "0":
		e.SMT = "off"
	}
	if f := strings.Fields(readTrim("/proc/loadavg")); len(f) > 0 {
		e.Load1, _ = strconv.ParseFloat(f[0], 64)
	}
	return e
}

// readTrim returns the contents of the file at path without surrounding space, "" when it cannot
// be read.
func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// cpuModel returns the CPU's model name from /proc/cpuinfo, or GOARCH when it names none.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
