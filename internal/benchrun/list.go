package benchrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/record"
)

// List returns the top-level benchmarks of the test binary bin, without the "Benchmark" prefix, in
// the order the binary lists them (source order). It runs the binary with -test.list, which names
// top-level benchmarks only: sub-benchmarks are discovered by running them (see RunABBA). The
// binary runs in sb (nil: unconfined) and is checked against its seal first.
func List(ctx context.Context, bin Binary, env []string, sb *sandbox.Sandbox) ([]string, error) {
	if err := bin.verify(); err != nil {
		return nil, err
	}
	scratch, remove, err := sb.Scratch()
	if err != nil {
		return nil, err
	}
	defer remove()
	dir, release, err := sb.WorkDir(scratch, bin.Dir)
	if err != nil {
		return nil, err
	}
	defer release()
	cmd := proc.Command(ctx, dir, env, bin.Path, "-test.list=^Benchmark")
	out, _, err := proc.RunStart(cmd, proc.MaxOutput, func() error { return sb.Start(cmd, scratch, nil) })
	if err != nil {
		return nil, fmt.Errorf("listing benchmarks: %w", err)
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if name, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Benchmark"); ok {
			names = append(names, name)
		}
	}
	return names, nil
}

// discover lists and calibrates the base binary's benchmarks and returns the selected leaves.
func (r *runner) discover(ctx context.Context) ([]leaf, error) {
	start := time.Now()
	lctx, cancel := context.WithTimeout(ctx, r.listLimit())
	tops, err := List(lctx, r.cfg.Base, r.cfg.Env, r.cfg.Sandbox)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	var leaves []leaf
	for _, top := range tops {
		if r.cfg.Tops != nil && !slices.Contains(r.cfg.Tops, top) || slices.Contains(r.cfg.Skip, top) {
			continue
		}
		if r.cfg.Filter != nil && !r.cfg.Filter.MatchTop(top) {
			continue // none of its benchmarks is selected: not even calibrated
		}
		r.progress.Calibrating(top)
		found, err := r.calibrate(ctx, top)
		if err != nil {
			return nil, err
		}
		for _, l := range found {
			if r.cfg.Filter != nil && !r.cfg.Filter.Match(l.name) {
				continue
			}
			leaves = append(leaves, l)
			r.run.Leaves = append(r.run.Leaves, l.name)
			_, r.run.Iters[l.name] = l.split()
		}
	}
	r.progress.Calibrated(len(leaves), time.Since(start))
	return leaves, nil
}

// benchtime is the -test.benchtime of a calibration: RunConfig.BenchTime, or "Nx" for a fixed
// count, whose run is then the leaf's first run at that count.
func (r *runner) benchtime() string {
	if r.cfg.Iters > 0 {
		return strconv.Itoa(r.cfg.Iters) + "x"
	}
	return r.cfg.BenchTime.String()
}

// listLimit is the wall-clock limit of -test.list: cfg.Timeout, or a minute.
func (r *runner) listLimit() time.Duration {
	if r.cfg.Timeout > 0 {
		return r.cfg.Timeout
	}
	return time.Minute
}

// maxCalibrationAttempts bounds how often one top-level benchmark is re-run to get past crashing
// sub-benchmarks.
const maxCalibrationAttempts = 20

// calibrate runs top-level benchmark top on base for cfg.BenchTime per leaf, with -test.v so that a
// crash names the benchmark it happened in. The testing package picks each leaf's iteration count
// to last about BenchTime; that count is the leaf's fixed count for both sides. A leaf that fails
// or crashes is recorded as a Failure and skipped (-test.skip) in a re-run that collects the
// remaining leaves; leaves already calibrated are skipped too.
func (r *runner) calibrate(ctx context.Context, top string) ([]leaf, error) {
	var leaves []leaf
	var skip []string
	timeout := r.cfg.Timeout
	if timeout == 0 {
		timeout = 10*r.cfg.BenchTime + 60*time.Second
	}
	for range maxCalibrationAttempts {
		args := []string{"-test.run=^$", "-test.bench=" + benchout.Pattern(top), "-test.benchtime=" + r.benchtime(),
			"-test.benchmem", "-test.cpu=1", "-test.count=1", "-test.v"}
		if len(skip) > 0 {
			args = append(args, "-test.skip="+benchout.SkipPattern(skip))
		}
		c, err := r.exec(ctx, r.cfg.Base, timeout, proc.CalibrationFactor*timeout, args, false)
		if err != nil {
			return leaves, err
		}
		out := benchout.Parse(c.stdout)
		if r.run.Header == nil && out.Header != nil {
			r.run.Header = out.Header
		}
		for _, res := range out.Results {
			sec, _ := benchout.ValueOf(res.Values, "sec/op")
			bytes, _ := benchout.ValueOf(res.Values, "B/op")
			allocs, _ := benchout.ValueOf(res.Values, "allocs/op")
			leaves = append(leaves, leaf{name: res.Name, iters: res.Iters, secPerOp: sec, allocates: bytes > 0 || allocs > 0,
				whole: r.cfg.Iters > 0})
			skip = append(skip, res.Name)
		}
		for _, name := range out.FailedLeaves() {
			r.fail(record.Failure{Name: name, Side: record.Base, Round: 0, Slot: -1, Kind: record.FailureExit,
				Message: benchout.FailBlock(c.stdout, name)})
			skip = append(skip, name)
		}
		kind, msg := c.failure()
		if kind == "" || kind == record.FailureExit && len(out.FailedLeaves()) > 0 {
			return leaves, nil // done, possibly with b.Fatal'd leaves recorded above
		}
		culprit := out.Unfinished()
		if culprit == "" || culprit == top || slices.Contains(skip, culprit) {
			// top itself (a leaf, or its own body outside any sub-benchmark) failed: nothing left
			// to rescue.
			r.fail(record.Failure{Name: top, Side: record.Base, Round: 0, Slot: -1, Kind: kind, Message: msg})
			return leaves, nil
		}
		r.fail(record.Failure{Name: culprit, Side: record.Base, Round: 0, Slot: -1, Kind: kind, Message: msg})
		skip = append(skip, culprit)
	}
	r.warn(fmt.Sprintf("calibrating %s: gave up after %d crashed attempts", top, maxCalibrationAttempts))
	return leaves, nil
}

// leaf is a benchmark that produces a result line: a top-level benchmark without sub-benchmarks, or
// a sub-benchmark without sub-benchmarks of its own. It is the unit of scheduling.
type leaf struct {
	name string // as in Sample.Name
	// the calibrated iteration count: the iterations of one measured run, all its sub-runs together
	iters    int
	secPerOp float64 // sec/op at calibration
	// allocates: B/op or allocs/op was above 0 at calibration, so that short runs may measure
	// another regime of the allocator and collector than go test's (steadyRuns)
	allocates bool
	// whole: each measured run is one sub-run, one call of the benchmark function with b.N = iters,
	// as go test's is; set by steadyRuns for a leaf whose per-op time moves with the length of that
	// call.
	whole bool
}

// split returns the sub-runs of one measured run of l and the iterations of each: SubRuns sub-runs,
// or fewer for a leaf of fewer iterations, and at least one iteration each; one sub-run of all the
// iterations for a whole leaf.
func (l leaf) split() (runs, iters int) {
	if l.whole {
		return 1, max(1, l.iters)
	}
	runs = max(1, min(benchtxt.SubRuns, l.iters))
	return runs, max(1, l.iters/runs)
}
