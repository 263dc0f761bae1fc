package mcaest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/valgrind"
)

// countEnv is the environment of a counting run, the settings the instruction-count lane runs with:
// one P, no asynchronous preemption and no garbage collection, so that two runs of one binary
// execute the same instructions outside the benchmark's loop and their difference is the loop.
var countEnv = []string{"GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=2GiB", "GODEBUG=asyncpreemptoff=1"}

// profileRun runs the benchmark leaf of the test binary bin for n iterations under callgrind,
// writing its output to out, and returns the instructions executed at each address of the whole
// run.
func profileRun(ctx context.Context, vgPath, bin, leaf string, n int, out string) (map[uint64]int64, error) {
	argv := []string{vgPath, "--tool=callgrind", "--callgrind-out-file=" + out, "--dump-instr=yes",
		"--dump-line=no", "--compress-strings=yes", "--compress-pos=no", bin,
		"-test.run=^$", "-test.bench=" + benchout.Pattern(leaf), "-test.benchtime=" + strconv.Itoa(n) + "x",
		"-test.cpu=1", "-test.count=1"}
	env := countEnv
	// The CPU features valgrind reports and cannot run on this host (RDTSCP where the CPU lacks it)
	// are turned off, as the lane turns them off.
	if host, err := valgrind.Probe(ctx, lookPath(vgPath), os.TempDir()); err == nil {
		env = host.Env(env)
	}
	stdout, _, err := proc.Run(proc.Command(ctx, filepath.Dir(bin), env, argv...))
	if err != nil {
		return nil, fmt.Errorf("running %s under callgrind: %w", leaf, err)
	}
	if !strings.Contains(string(stdout), "Benchmark"+leaf) {
		return nil, fmt.Errorf("running %s under callgrind: the binary printed no result line for it "+
			"(hint: give the leaf's full name as the benchmark output prints it, without \"Benchmark\")", leaf)
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("reading callgrind output: %w", err)
	}
	defer os.Remove(out)
	defer f.Close()
	return parseCallgrind(f)
}

// parseCallgrind reads a callgrind output file written with --dump-instr=yes --compress-pos=no and
// returns the instructions (event Ir, the first) executed at each address. The line after a calls=
// line is the inclusive cost of that call, which the callee's own lines already hold, so it is
// skipped.
func parseCallgrind(r io.Reader) (map[uint64]int64, error) {
	counts := map[uint64]int64{}
	var events, call bool
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "positions:"):
			if f := strings.Fields(strings.TrimPrefix(line, "positions:")); len(f) != 1 || f[0] != "instr" {
				return nil, fmt.Errorf("callgrind output: %q, want positions instr (--dump-instr=yes --dump-line=no)",
					line)
			}
		case strings.HasPrefix(line, "events:"):
			if f := strings.Fields(strings.TrimPrefix(line, "events:")); len(f) == 0 || f[0] != "Ir" {
				return nil, fmt.Errorf("callgrind output: events %q, want Ir first", line)
			}
			events = true
		case strings.HasPrefix(line, "calls="):
			call = true
		case strings.HasPrefix(line, "0x"):
			f := strings.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("callgrind output: malformed line %q", line)
			}
			addr, err1 := strconv.ParseUint(f[0], 0, 64)
			ir, err2 := strconv.ParseInt(f[1], 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				return nil, fmt.Errorf("callgrind output: malformed line %q", line)
			}
			if !call {
				counts[addr] += ir
			}
			call = false
		case line != "" && (line[0] == '+' || line[0] == '-' || line[0] == '*'):
			return nil, fmt.Errorf("callgrind output: relative position in %q, want --compress-pos=no", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading callgrind output: %w", err)
	}
	if !events {
		return nil, errors.New("callgrind output holds no instruction counts")
	}
	return counts, nil
}

// loopCounts returns the instructions each address executed in n iterations of the benchmark leaf:
// the counts of a run at 2n minus those of a run at n, which cancels the process's start-up and
// everything else both runs do alike. An address may have a negative difference, where one run did
// something the other did not (dropNegative).
func loopCounts(ctx context.Context, valgrind, bin, leaf string, n int, dir string) (map[uint64]int64, error) {
	c1, err := profileRun(ctx, valgrind, bin, leaf, n, filepath.Join(dir, "callgrind.n"))
	if err != nil {
		return nil, err
	}
	c2, err := profileRun(ctx, valgrind, bin, leaf, 2*n, filepath.Join(dir, "callgrind.2n"))
	if err != nil {
		return nil, err
	}
	for a, x := range c1 {
		c2[a] -= x
	}
	return c2, nil
}

// dropNegative removes the addresses of counts that are not positive and returns the instructions
// they held, negated: the noise of the difference.
func dropNegative(counts map[uint64]int64) (noise int64) {
	for a, d := range counts {
		if d <= 0 {
			noise -= d
			delete(counts, a)
		}
	}
	return noise
}

// lookPath is the full path of the program name, or name when it is not found.
func lookPath(name string) string {
	if full, err := exec.LookPath(name); err == nil {
		return full
	}
	return name
}
