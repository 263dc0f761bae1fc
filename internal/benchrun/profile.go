package benchrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/record"
)

// ProfileRun is one side's profiling run of a leaf: the CPU profile the test binary wrote, and the
// iterations its result line reports.
type ProfileRun struct {
	Profile []byte // as go test -cpuprofile writes it, readable by go tool pprof
	// the operations the profile covers (the b.N=1 run the testing package begins with aside)
	Iters int
}

// Profile runs the leaf benchmark name once on each side, for iters iterations, with
// -test.cpuprofile, the way the timing lane runs a leaf (pinned as cfg says, sandboxed, checked
// against its seal, in its package's directory), and returns each side's profile. It is meant for
// after the timed rounds, never during them: the profiler's signals and the profile's writing
// disturb the run. The profile is written into the child's scratch directory, the one place the
// sandbox lets it write, and read from there. cfg.Timeout bounds each run (0: 10 × the expected
// time, as for a measured run, from secPerOp).
func Profile(ctx context.Context, cfg RunConfig, name string, iters int, secPerOp float64) (map[record.Side]ProfileRun,
	error) {
	if cfg.Base.Path == "" || cfg.Head.Path == "" || name == "" || iters <= 0 {
		return nil, errors.New("profiling: base and head binaries, a benchmark and its iterations are required")
	}
	pin, err := abba.Choose(cfg.CPU, cfg.NoPin)
	if err != nil {
		return nil, fmt.Errorf("profiling: %w", err)
	}
	r, start := newRunner(cfg, pin)
	defer r.finish(start)
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 10*time.Duration(float64(iters)*secPerOp*float64(time.Second)) + 60*time.Second
	}
	out := map[record.Side]ProfileRun{}
	for _, side := range []record.Side{record.Base, record.Head} {
		bin := map[record.Side]Binary{record.Base: cfg.Base, record.Head: cfg.Head}[side]
		run, err := r.profileOnce(ctx, bin, name, iters, timeout)
		if err != nil {
			return out, fmt.Errorf("profiling %s on %s: %w", name, side, err)
		}
		out[side] = run
	}
	return out, nil
}

// profileOnce is one profiling run of Profile.
func (r *runner) profileOnce(ctx context.Context, bin Binary, name string, iters int, timeout time.Duration) (
	ProfileRun, error) {
	scratch, remove, err := r.cfg.Sandbox.Scratch()
	if err != nil {
		return ProfileRun{}, err
	}
	defer remove()
	prof := filepath.Join(scratch, "cpu.pprof")
	args := []string{"-test.run=^$", "-test.bench=" + benchout.Pattern(name), "-test.benchtime=" + strconv.Itoa(iters) + "x",
		"-test.cpu=1", "-test.count=1", "-test.cpuprofile=" + prof}
	c, err := r.execIn(ctx, bin, bin, scratch, timeout, timeout, args, false)
	if err != nil {
		return ProfileRun{}, err
	}
	if kind, msg := c.failure(); kind != "" {
		return ProfileRun{}, fmt.Errorf("%s: %s", kind, msg)
	}
	var run ProfileRun
	for _, res := range benchout.Parse(c.stdout).Results {
		if res.Name == name {
			run.Iters = res.Iters
		}
	}
	if run.Iters == 0 {
		return ProfileRun{}, errors.New("no result line" + lastLines(c.stdout, c.stderr))
	}
	if run.Profile, err = os.ReadFile(prof); err != nil {
		return ProfileRun{}, fmt.Errorf("reading the profile: %w", err)
	}
	return run, nil
}
