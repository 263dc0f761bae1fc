package abba

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
)

// launcherSource is the source of the peak-memory launcher, which abba builds and starts each child
// through.
//
// A child's peak resident set size (getrusage's ru_maxrss) is not its own when perfgate starts it
// directly. On Linux, os/exec starts a child with vfork semantics: the child shares perfgate's
// memory until it calls exec, and exec keeps the high-water mark of the memory it leaves in the
// process's rusage, so every benchmark process reports at least perfgate's own peak (a benchmark
// holding 64 MiB showed 132 MiB; small ones showed perfgate's peak and were hidden as unknown, see
// PeakRSS). The mark starts afresh only in a process that a small process started: a process has
// its own rusage from fork on, and what exec keeps is the starting process's mark.
//
// So each benchmark process is started through a launcher (the command in launcher/, which
// BuildLauncher compiles from this package's embedded copy of its source): a static Go program of
// the standard library that starts the benchmark with its own standard streams, environment,
// working directory, process group and CPU affinity, waits for it, and writes the child's ru_maxrss
// and its own high-water mark (VmHWM, about 2 MiB) to descriptor 3. A peak at or below the
// launcher's own cannot be told from it and is reported as unknown, 0; a Go test binary's own is
// about 4 MiB, so every benchmark process has a figure. A re-exec of perfgate itself was tried
// first: perfgate's initialisation alone touches 12 MiB, more than a small benchmark's whole peak.
//
//go:embed launcher/main.go
var launcherSource []byte

// BuildLauncher compiles the launcher into dir with the go command on PATH and returns its path. It
// is for Linux, where a direct child's peak is not its own; elsewhere it returns an error.
func BuildLauncher(ctx context.Context, dir string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("building the peak-memory launcher: only needed on linux, not %s", runtime.GOOS)
	}
	src := filepath.Join(dir, "launcher-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", fmt.Errorf("building the peak-memory launcher: %w", err)
	}
	files := map[string][]byte{"go.mod": []byte("module perfgate.launcher\n\ngo 1.21\n"), "main.go": launcherSource}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), body, 0o644); err != nil {
			return "", fmt.Errorf("building the peak-memory launcher: %w", err)
		}
	}
	out := filepath.Join(dir, "perfgate-launcher")
	cmd := proc.Command(ctx, src, []string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS="},
		"go", "build", "-trimpath", "-o", out, ".")
	if _, _, err := proc.Run(cmd); err != nil {
		return "", fmt.Errorf("building the peak-memory launcher: %w", err)
	}
	return out, nil
}

// LaunchReport is what the launcher says about the child it ran.
type LaunchReport struct {
	// PeakRSS is the child's peak resident set size in bytes, 0 when it is no higher than the
	// launcher's own (then it may be the launcher's) or unknown.
	PeakRSS int64
	// MinorFaults is the child's minor page faults (ru_minflt): pages it touched that the kernel
	// had to map, the first touch of a fresh heap page among them; -1 when unknown.
	MinorFaults int64
}

// ParseLaunchReport reads the launcher's report, "maxrss CHILD SELF minflt FAULTS": a missing or
// malformed report is all unknown.
func ParseLaunchReport(b []byte) LaunchReport {
	out := LaunchReport{MinorFaults: -1}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[0] != "maxrss" || f[3] != "minflt" {
		return out
	}
	child, err1 := strconv.ParseInt(f[1], 10, 64)
	self, err2 := strconv.ParseInt(f[2], 10, 64)
	faults, err3 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || faults < 0 {
		return out
	}
	out.MinorFaults = faults
	if child > self {
		out.PeakRSS = child
	}
	return out
}
