package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
)

// ValgrindInstall is the command that installs valgrind on the Debian and Ubuntu machines perfgate runs on,
// GitHub's hosted runners among them.
const ValgrindInstall = "sudo apt-get install -y valgrind"

// ErrNoValgrind is wrapped by FindValgrind's error when valgrind is not installed. perfgate cannot run the
// instruction-count lane without it: a caller exits 3 (could not run), never passes.
var ErrNoValgrind = errors.New("valgrind not found")

// Valgrind is an installed valgrind.
type Valgrind struct {
	Path    string // the valgrind program
	Version string // as valgrind --version prints it, e.g. "valgrind-3.19.0"; env.json records it
}

// FindValgrind finds valgrind (path, or "valgrind" in PATH when path is "") and asks it for its version. A
// missing valgrind is an error wrapping ErrNoValgrind that names the install command.
func FindValgrind(ctx context.Context, path string) (Valgrind, error) {
	if path == "" {
		path = "valgrind"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		return Valgrind{}, fmt.Errorf("%w (%s); the instruction-count lane needs it: install it with %q",
			ErrNoValgrind, path, ValgrindInstall)
	}
	out, _, err := proc.Run(proc.Command(ctx, "", nil, full, "--version"))
	if err != nil {
		return Valgrind{}, fmt.Errorf("asking valgrind for its version: %w", err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "valgrind-") {
		return Valgrind{}, fmt.Errorf("%s --version printed %q, not a valgrind version", full, v)
	}
	return Valgrind{Path: full, Version: v}, nil
}

// cachegrindArgs are the valgrind options of a counting run: cachegrind with its cache simulation off counts
// the instructions each function executes, and nothing else, which makes it the cheapest counting tool
// (lackey counts the same at several times the cost). out is the per-function count file.
func cachegrindArgs(out string) []string {
	return []string{"--tool=cachegrind", "--cache-sim=no", "--branch-sim=no", "--cachegrind-out-file=" + out}
}

// Counts is what one cachegrind run counted.
type Counts struct {
	Total   int64 // every instruction the process executed
	Counted int64 // the instructions of the code under test: Total without the Go runtime's (see Counted)
}

// readCounts reads a cachegrind output file (cachegrind --cache-sim=no: the one event Ir) and splits its
// per-function counts into Counts.
func readCounts(r io.Reader) (Counts, error) {
	var c Counts
	var fn string
	var events bool
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "events:"):
			if f := strings.Fields(strings.TrimPrefix(line, "events:")); len(f) == 0 || f[0] != "Ir" {
				return c, fmt.Errorf("cachegrind output: events %q, want Ir first", line)
			}
			events = true
		case strings.HasPrefix(line, "fn="):
			fn = line[len("fn="):]
		case line != "" && line[0] >= '0' && line[0] <= '9':
			// "LINE IR ...": the instructions executed on one source line of fn.
			f := strings.Fields(line)
			if len(f) < 2 || fn == "" {
				return c, fmt.Errorf("cachegrind output: malformed line %q", line)
			}
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return c, fmt.Errorf("cachegrind output: malformed count in %q", line)
			}
			c.Total += n
			if !runtimeFunc(fn) {
				c.Counted += n
			}
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("reading cachegrind output: %w", err)
	}
	if !events || c.Total == 0 {
		return c, errors.New("cachegrind output holds no instruction counts")
	}
	return c, nil
}

// runtimeFunc reports whether the function named fn (as in a Go symbol table) belongs to the Go runtime's own
// machinery, which the counted instructions leave out: package runtime, the internal/runtime packages, the
// runtime's random generator (internal/chacha8rand, refilled as the scheduler draws from it) and the runtime's
// assembly entry points. Kept are the runtime's helpers that do the code's own work in a fixed number
// of instructions: runtime.memmove (copy), runtime.memequal (== on arrays and strings) and the
// internal/bytealg bodies (memeqbody, cmpbody, indexbytebody, countbody), which are not runtime functions.
//
// What is left out (allocation, garbage collection, the scheduler, sysmon, timers, the scavenger, stack growth)
// runs on wall-clock pacing and on when the collector happens to run: under valgrind its count changes from
// one run of the same binary to the next by tens of thousands of instructions. Allocation is gated exactly
// by allocs/op and B/op instead.
func runtimeFunc(fn string) bool {
	switch {
	case strings.HasPrefix(fn, "runtime.memmove"), strings.HasPrefix(fn, "runtime.memequal"):
		return false
	case strings.HasPrefix(fn, "runtime."), strings.HasPrefix(fn, "internal/runtime/"),
		strings.HasPrefix(fn, "internal/chacha8rand."):
		return true
	}
	// Assembly without a package qualifier: the runtime's entry points and write barriers.
	for _, p := range []string{"gcWriteBarrier", "gogo", "gosave", "_rt0_", "morestack", "asmcgocall"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// readCountsFile reads and removes the cachegrind output file path.
func readCountsFile(path string) (Counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counts{}, fmt.Errorf("reading cachegrind output: %w", err)
	}
	defer os.Remove(path)
	defer f.Close()
	return readCounts(f)
}
