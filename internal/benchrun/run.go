package benchrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/progress"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/record"
)

// Binary is one side's test binary.
type Binary struct {
	Path string // the test binary, built with go test -c
	// the working directory of its runs: the package directory in that side's tree (for testdata/)
	Dir    string
	Commit string // the commit it was built from, written to bench.txt as perfgate-commit
	// SHA256 is the binary's hash right after it was built (sandbox.Seal); when set, every run
	// checks it right before the exec, and a binary that changed since is an error naming the
	// tampering.
	SHA256 string
}

// verify checks b against the hash it was sealed with, if it was.
func (b Binary) verify() error {
	if b.SHA256 == "" {
		return nil
	}
	return sandbox.Binary{Path: b.Path, SHA256: b.SHA256}.Verify()
}

// RunConfig configures RunABBA. The zero value of every field but Base and Head is a usable
// default.
type RunConfig struct {
	Base, Head Binary
	// Filter selects benchmarks by their full leaf name, as go test's -bench does (Matcher):
	// "Encrypt/des" selects Encrypt/des/single and Encrypt/des/blocks, "^Sum256$" every
	// sub-benchmark of Sum256. nil selects all.
	Filter *bench.Matcher
	// Tops, when not nil, restricts the run to these top-level benchmarks (names without the
	// "Benchmark" prefix): a shard runs its own, and calibrates no other.
	Tops []string
	// Skip names top-level benchmarks (without the "Benchmark" prefix) that are neither calibrated
	// nor timed, e.g. those whose machine code is the same on both sides: a budgeted run treats
	// them as settled from the start by never scheduling them.
	Skip   []string
	Rounds int // rounds of A B B A per benchmark; 0 means DefaultRounds
	// how long one run should last; calibrates the iteration count; 0 means DefaultBenchTime
	BenchTime time.Duration
	// Iters, when positive, is every run's iteration count, as go test's -benchtime Nx: one call of
	// the benchmark with b.N = Iters on both sides, calibrated by nobody, never shortened by a
	// budget or lengthened for the steady state. BenchTime then only bounds the discovery run's
	// time limit.
	Iters int
	// the CPU to pin children to; -1 picks the last CPU this process may use
	CPU   int
	NoPin bool // run children unpinned
	// Budget, when positive, is the time RunABBA may take, calibration included: rounds run in
	// stages, and a benchmark whose class is settled after a stage stops being timed
	// (sequential.go). Rounds is then the first stage's rounds and MaxRounds (0 means
	// DefaultMaxRounds) the most any benchmark gets. 0 runs exactly Rounds rounds of every
	// benchmark.
	Budget    time.Duration
	MaxRounds int
	// Stats decides when a budgeted run's benchmark is settled; the zero value means
	// DefaultStatsOptions.
	Stats bench.StatsOptions
	// Counts, when set, returns the instruction-count lane's comparisons (CompareInstructions) once
	// that lane is done, and nil before: metric auto counts first, or alongside the timing lane on
	// another CPU. A budgeted run's looks then also stop a leaf whose time is inconclusive when
	// CombineLanes would settle it by its count (CountClass): equal counts and allocations with an
	// interval that reaches into the ±threshold band, or a count moved the way the time's interval
	// lies, wholly beyond half the threshold. The budget goes to the leaves the counts cannot
	// settle.
	Counts func() []record.Benchmark
	// Timeout is the hard wall-clock limit of one measured run, and the limit on silence of a
	// calibration run, whose hard limit is proc.CalibrationFactor × Timeout (it runs every
	// sub-benchmark of a top-level one). A run killed by a limit is a "timeout" Failure with what
	// it printed last. 0 means 10× the benchmark's calibrated duration + 60 s for measured runs,
	// and 10× BenchTime + 60 s for calibration.
	Timeout time.Duration
	// extra KEY=VALUE environment for children (on top of the scrubbed environment)
	Env []string
	// Sandbox confines every run of a test binary (and valgrind running one), base's and head's
	// alike; nil runs them unconfined.
	Sandbox *sandbox.Sandbox
	// progress: one updating line on a terminal, a line per round otherwise; nil for none
	Progress io.Writer
	BenchTxt io.Writer // if non-nil, every sample is written here in bench.txt form as it arrives
}

// Run is what RunABBA gathered.
type Run struct {
	Samples  []benchtxt.Sample // in the order they were taken
	Failures []record.Failure  // calibration failures have Round and Slot -1
	Pinning  abba.Pinning      // where the children ran
	// Cpus_allowed_list of the first pinned child, read right after its start; "" if none
	ChildCPUs string
	// the fixed iteration count of each leaf benchmark, the same on both sides
	Iters       map[string]int
	Leaves      []string          // the leaf benchmarks scheduled, in schedule order
	Header      map[string]string // the goos, goarch, pkg and cpu lines the base binary printed
	Calibration time.Duration     // time spent discovering and calibrating on base
	Elapsed     time.Duration     // the whole run, calibration included
	// things the numbers should be read with, e.g. a child that was not on the pinned CPU
	Warnings []string
	// Plan is how a budgeted run spent its error rate across its looks: pass it as
	// StatsOptions.Sequential to analyse the samples as the run decided. nil for a run of fixed
	// rounds.
	Plan   *bench.SequentialPlan
	Stages int // stages a budgeted run ran
	// WarmUp is how many sub-runs each timed process ran first, at the run's iteration count, and
	// discarded (warmUp); 0 from the instruction-count lane
	WarmUp int
	// RunTime is the length of one measured run the iteration counts were set for:
	// RunConfig.BenchTime, or MinRunTime when a budget shortened the runs so that more rounds fit
	// (fitRuns).
	RunTime time.Duration
	// Uncounted names the leaves the instruction-count lane did not count, or whose counts settle
	// nothing, and why (MarkUncounted): a failure of neither side, so not among Failures. nil from
	// the timing lane.
	Uncounted map[string]bench.NotCounted
	// LaneOff says why the instruction-count lane switched itself off part-way (valgrind cannot run
	// the binaries on this host: see triage); "" when it did not. Every leaf it had not counted is
	// in Uncounted.
	LaneOff string
	// Addrs is, per counted leaf and side, the instructions per op by code address of the test
	// binary that ran (the last slot's; see InstrConfig.Addrs); nil unless asked for.
	Addrs map[string]map[record.Side]map[uint64]float64
}

// RunABBA compares the benchmarks of cfg.Base and cfg.Head.
//
// It lists the base binary's top-level benchmarks, then calibrates each once on base at
// cfg.BenchTime, which also discovers its leaf benchmarks (sub-benchmarks included) and their
// iteration counts; cfg.Filter selects among the leaves. Then it runs the A–B–B–A schedule
// (abba.Schedule): every run is a fresh child process running one leaf for its fixed iteration
// count (-test.benchtime=Nx, -test.benchmem, -test.cpu=1), pinned to one CPU when possible, in the
// package directory of its side.
//
// A run that panics, fails, prints no result or is killed by the timeout becomes a Failure of that
// side, and that side stops running that benchmark; the other side keeps its samples and every
// other benchmark continues. A benchmark that fails on base during calibration is reported as a
// Failure and not scheduled. When ctx is cancelled the children are killed and RunABBA returns what
// it gathered together with ctx's error.
func RunABBA(ctx context.Context, cfg RunConfig) (*Run, error) {
	if cfg.Base.Path == "" || cfg.Head.Path == "" {
		return nil, errors.New("running benchmarks: base and head binaries are required")
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = bench.DefaultRounds
	}
	if cfg.Rounds < 0 {
		return nil, fmt.Errorf("running benchmarks: rounds must be positive, not %d", cfg.Rounds)
	}
	if cfg.BenchTime == 0 {
		cfg.BenchTime = bench.DefaultBenchTime
	}
	if cfg.BenchTime < 0 || cfg.Iters < 0 || cfg.Timeout < 0 || cfg.Budget < 0 {
		return nil, errors.New("running benchmarks: benchtime, iterations, timeout and budget must not be negative")
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = bench.DefaultMaxRounds
	}
	if cfg.Stats.Alpha == 0 {
		cfg.Stats = bench.DefaultStatsOptions
	}
	if err := cfg.Stats.Validate(); err != nil {
		return nil, fmt.Errorf("running benchmarks: %w", err)
	}
	pin, err := abba.Choose(cfg.CPU, cfg.NoPin)
	if err != nil {
		return nil, fmt.Errorf("running benchmarks: %w", err)
	}
	launcher, cleanup := buildLauncher(ctx)
	defer cleanup()
	r, start := newRunner(cfg, pin)
	r.launcher = launcher
	defer r.finish(start)

	r.run.WarmUp = warmUp
	leaves, err := r.discover(ctx)
	r.run.Calibration = time.Since(start)
	if err != nil {
		return r.run, err
	}
	if cfg.Budget > 0 {
		err = r.measureStaged(ctx, leaves, start)
	} else {
		if cfg.Iters == 0 {
			r.run.RunTime = cfg.BenchTime
		}
		err = r.measure(ctx, leaves)
	}
	return r.run, err
}

// buildLauncher builds abba's peak-memory launcher into a temporary directory, which cleanup
// removes; "" where there is none or it does not build (the run goes on, each child's peak as
// PeakRSS can tell it).
func buildLauncher(ctx context.Context) (path string, cleanup func()) {
	dir, err := os.MkdirTemp("", "perfgate-launcher-")
	if err != nil {
		return "", func() {}
	}
	cleanup = func() { os.RemoveAll(dir) }
	if path, err = abba.BuildLauncher(ctx, dir); err != nil {
		return "", cleanup
	}
	return path, cleanup
}

// newRunner starts a run of cfg pinned as pin, and the clock its Elapsed and Calibration are
// measured from.
func newRunner(cfg RunConfig, pin abba.Pinning) (*runner, time.Time) {
	return &runner{cfg: cfg, run: &Run{Pinning: pin, Iters: map[string]int{}}, progress: progress.New(cfg.Progress)},
		time.Now()
}

// finish records how long the run took and stops its progress line.
func (r *runner) finish(start time.Time) {
	r.run.Elapsed = time.Since(start)
	r.progress.Stop()
}

type runner struct {
	cfg       RunConfig
	run       *Run
	progress  *progress.Reporter
	txt       *benchtxt.BenchTxt
	pinWarned bool
	// abba's peak-memory launcher, "" when there is none (a direct child's peak may not be its own)
	launcher string
	// per leaf, each run's first timed sub-run over its last, per op (trend, unsteady)
	trends map[string][]float64
}

// measure runs the A–B–B–A schedule over leaves.
func (r *runner) measure(ctx context.Context, leaves []leaf) error {
	if r.cfg.BenchTxt != nil {
		r.txt = benchtxt.NewBenchTxt(r.cfg.BenchTxt, r.run.Header, map[record.Side]string{record.Base: r.cfg.Base.Commit,
			record.Head: r.cfg.Head.Commit})
	}
	plan := abba.Schedule(len(leaves), r.cfg.Rounds)
	// expected wall time of one run of each leaf, for the ETA
	est := make([]time.Duration, len(leaves))
	for i, l := range leaves {
		est[i] = l.runTime() + 30*time.Millisecond
	}
	dead := map[leafSide]bool{} // (leaf, side) pairs that failed and are no longer run
	started := time.Now()
	for i, e := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !dead[leafSide{e.Bench, e.Side}] {
			var eta time.Duration
			for _, f := range plan[i:] {
				if !dead[leafSide{f.Bench, f.Side}] {
					eta += est[f.Bench]
				}
			}
			t0 := time.Now()
			if err := r.step(ctx, leaves[e.Bench], e, i, len(plan), eta, dead); err != nil {
				return err
			}
			est[e.Bench] = time.Since(t0)
		}
		if i+1 == len(plan) || plan[i+1].Round != e.Round {
			var eta time.Duration
			for _, f := range plan[i+1:] {
				if !dead[leafSide{f.Bench, f.Side}] {
					eta += est[f.Bench]
				}
			}
			r.progress.RoundDone(e.Round, r.cfg.Rounds, time.Since(started), eta)
		}
	}
	r.progress.Done(len(r.run.Samples), len(r.run.Failures), time.Since(started))
	r.unsteady(leaves, r.cfg.Stats.ThresholdPct/100)
	return nil
}

// leafSide is one leaf benchmark (an index into the schedule's leaves) on one side.
type leafSide struct {
	leaf int
	side record.Side
}

// step runs entry i of n, leaf l, and records its sample or failure; a failure marks the leaf's
// side dead.
func (r *runner) step(ctx context.Context, l leaf, e abba.Entry, i, n int, eta time.Duration,
	dead map[leafSide]bool) error {
	side := e.Side
	r.progress.Running(l.name, side, e.Round, r.cfg.Rounds, i, n, eta)
	s, fail, err := r.runLeaf(ctx, l, side, e)
	if err != nil {
		return err
	}
	if fail != nil {
		r.fail(*fail)
		dead[leafSide{e.Bench, e.Side}] = true
		return nil
	}
	r.run.Samples = append(r.run.Samples, *s)
	if r.txt != nil {
		if err := r.txt.Write(*s); err != nil {
			return fmt.Errorf("writing bench.txt: %w", err)
		}
	}
	return nil
}

// runLeaf runs leaf l once on side for entry e. It returns a sample, or a failure, or ctx's error.
func (r *runner) runLeaf(ctx context.Context, l leaf, side record.Side, e abba.Entry) (*benchtxt.Sample, *record.Failure,
	error) {
	bin := r.cfg.Base
	if side == record.Head {
		bin = r.cfg.Head
	}
	timeout := r.cfg.Timeout
	if timeout == 0 {
		timeout = 10*l.runTime() + 60*time.Second
	}
	runs, iters := l.split()
	// one sub-run more than are timed: the first warms the process up at the run's iteration count
	// and is discarded (warmUp)
	args := []string{"-test.run=^$", "-test.bench=" + benchout.Pattern(l.name), "-test.benchtime=" + strconv.Itoa(iters) + "x",
		"-test.benchmem", "-test.cpu=1", "-test.count=" + strconv.Itoa(runs+warmUp)}
	c, err := r.exec(ctx, bin, timeout, timeout, args, true)
	if err != nil {
		return nil, nil, err
	}
	fail := &record.Failure{Name: l.name, Side: side, Round: e.Round + 1, Slot: e.Slot}
	if kind, msg := c.failure(); kind != "" {
		fail.Kind, fail.Message = kind, msg
		return nil, fail, nil
	}
	subs := timedSubRuns(benchout.Parse(c.stdout).Results, l.name)
	if res := benchout.Fastest(subs, l.name, r.cfg.Stats.ExactUnits); res != nil {
		r.trend(l.name, subs)
		return &benchtxt.Sample{Name: l.name, Side: side, Round: e.Round, Slot: e.Slot, Iters: res.Iters,
			Values: benchtxt.SecFirst(res.Values), PeakRSS: c.peakRSS, Process: c.process((runs + warmUp) * iters)}, nil, nil
	}
	fail.Kind, fail.Message = record.FailureNoResult, "no result line for "+l.name+lastLines(c.stdout, c.stderr)
	return nil, fail, nil
}

func (r *runner) fail(f record.Failure) {
	r.run.Failures = append(r.run.Failures, f)
	r.progress.Failed(f)
}

func (r *runner) warn(msg string) {
	r.run.Warnings = append(r.run.Warnings, msg)
	r.progress.Warn(msg)
}

// child is one finished run of a test binary.
type child struct {
	stdout, stderr []byte
	err            error         // nil when the child exited 0, else a *proc.Error
	timedOut       bool          // killed by the inactivity timeout
	overran        bool          // killed by the hard wall-clock limit
	idle, limit    time.Duration // the limits it ran under
	flooded        bool          // killed for printing more than proc.MaxOutput bytes
	peakRSS        int64         // bytes
	// a timed run's evidence: its minor page faults (-1 when unknown) and the collections the
	// runtime started on its own (-1 when not traced), read from its gctrace lines, which are not
	// in stderr
	faults, gcs int64
	// its CPU time (user and system, the launcher's few milliseconds included when it ran through
	// it) over its wall time, 0 when unknown
	cpuShare float64
}

// exec runs bin with args, pinned as r.run.Pinning says, and kills it (with everything it started,
// see proc.Wait) when it prints nothing for idle or has run for limit, whatever it prints. The
// error is ctx's when ctx ended, or a failure to start the binary at all; a child that ran and
// failed is described by the returned child instead.
//
// With peak set, the child runs through package abba's launcher where there is one, so that its
// peak resident set size is its own (abba.BuildLauncher); otherwise its peak is what its rusage
// says, when that can be its own.
func (r *runner) exec(ctx context.Context, bin Binary, idle, limit time.Duration, args []string,
	peak bool) (*child, error) {
	scratch, remove, err := r.cfg.Sandbox.Scratch()
	if err != nil {
		return nil, err
	}
	defer remove()
	return r.execIn(ctx, bin, bin, scratch, idle, limit, args, peak)
}

// execIn is exec with the child's scratch directory made by the caller (who reads what the child
// left there), and with sealed, the test binary that prog runs (prog itself, or valgrind running
// it), checked right before the start.
func (r *runner) execIn(ctx context.Context, prog, sealed Binary, scratch string, idle, limit time.Duration,
	args []string, peak bool) (*child, error) {
	if err := sealed.verify(); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The child runs in a copy of the package directory, as go test runs it in the directory
	// itself: a benchmark that writes a file in "." writes to its copy, and the next run does not
	// see it.
	dir, release, err := r.cfg.Sandbox.WorkDir(scratch, prog.Dir)
	if err != nil {
		return nil, err
	}
	defer release() // after proc.Wait, which kills what the child left running
	argv := append([]string{prog.Path}, args...)
	var report, wr *os.File // the two ends of the launcher's report
	if peak && r.launcher != "" {
		if report, wr, err = os.Pipe(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", prog.Path, err)
		}
		defer report.Close()
		defer wr.Close()
		argv = append([]string{r.launcher}, argv...)
	}
	env := r.cfg.Env
	if peak {
		env = gctraceEnv(env)
	}
	cmd := proc.Command(cctx, dir, env, argv...)
	if wr != nil {
		cmd.ExtraFiles = []*os.File{wr}
	}
	w := &watched{last: time.Now(), kill: cancel}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &watchedWriter{w, &stdout}
	cmd.Stderr = &watchedWriter{w, &stderr}
	var pin func() error
	if p := r.run.Pinning; p.Pinned {
		pin = func() error { return abba.PinThread(p.CPU) }
	}
	err = proc.Start(cmd, func() error { return r.cfg.Sandbox.Start(cmd, scratch, pin) })
	started := time.Now()
	if wr != nil {
		wr.Close() // the launcher has its own copy: the report ends when the launcher does
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("starting %s: %w", prog.Path, err)
	}
	cpus := ""
	if r.run.Pinning.Pinned {
		cpus = abba.ChildCPUs(cmd.Process.Pid)
	}
	r.checkPinned(cpus)

	var timedOut, overran atomic.Bool
	stop := watch(w, started, idle, limit, &timedOut, &overran)
	werr := proc.Wait(cmd)
	close(stop)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	c := &child{stdout: stdout.Bytes(), stderr: stderr.Bytes(), timedOut: timedOut.Load(), overran: overran.Load(),
		idle: idle, limit: limit, flooded: w.flooded, peakRSS: abba.PeakRSS(cmd.ProcessState),
		faults: abba.MinorFaults(cmd.ProcessState), gcs: -1}
	if wall := time.Since(started); cmd.ProcessState != nil && wall > 0 {
		c.cpuShare = sig4(float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()) / float64(wall))
	}
	if report != nil {
		b, _ := io.ReadAll(io.LimitReader(report, 256))
		lr := abba.ParseLaunchReport(b)
		c.peakRSS, c.faults = lr.PeakRSS, lr.MinorFaults
	}
	if peak {
		var gcs int
		c.stderr, gcs = gcTrace(c.stderr)
		c.gcs = int64(gcs)
	}
	if werr != nil {
		c.err = proc.NewError(cmd, werr, c.stderr)
	}
	return c, nil
}

// watch kills the child w watches, through w.kill, when it has been silent for longer than idle
// (setting timedOut) or has run for longer than limit since started (setting overran), until the
// returned channel is closed.
func watch(w *watched, started time.Time, idle, limit time.Duration, timedOut, overran *atomic.Bool) chan<- struct{} {
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(min(max(min(idle, limit)/20, 10*time.Millisecond), 250*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if w.idle() > idle {
					timedOut.Store(true)
					w.kill()
					return
				}
				if time.Since(started) > limit {
					overran.Store(true)
					w.kill()
					return
				}
			}
		}
	}()
	return stop
}

// checkPinned warns, once, when a pinned child was not confined to the pinned CPU.
func (r *runner) checkPinned(cpus string) {
	p := r.run.Pinning
	if r.run.ChildCPUs == "" {
		r.run.ChildCPUs = cpus
	}
	if !p.Pinned || cpus == strconv.Itoa(p.CPU) || r.pinWarned {
		return
	}
	r.pinWarned = true
	if cpus == "" {
		r.warn(fmt.Sprintf("could not verify that children run on cpu %d", p.CPU))
		return
	}
	r.warn(fmt.Sprintf("a child pinned to cpu %d may run on cpus %s", p.CPU, cpus))
}

// failure classifies a finished child: kind "" when it succeeded, else the Failure kind and
// message.
func (c *child) failure() (kind record.FailureKind, msg string) {
	switch {
	case c.overran:
		return record.FailureTimeout, fmt.Sprintf("killed after its wall-clock limit of %s", c.limit) + lastLines(c.stdout,
			c.stderr)
	case c.timedOut:
		return record.FailureTimeout, fmt.Sprintf("killed after printing nothing for %s", c.idle) + lastLines(c.stdout,
			c.stderr)
	case c.flooded:
		return record.FailureExit, fmt.Sprintf("killed after printing more than %d bytes", proc.MaxOutput) +
			lastLines(c.stdout, c.stderr)
	case benchout.PanicMessage(c.stderr) != "":
		return record.FailurePanic, benchout.PanicMessage(c.stderr)
	case benchout.PanicMessage(c.stdout) != "":
		return record.FailurePanic, benchout.PanicMessage(c.stdout)
	case c.err != nil:
		var pe *proc.Error
		if errors.As(c.err, &pe) && pe.ExitCode >= 0 {
			return record.FailureExit, fmt.Sprintf("exit status %d", pe.ExitCode) + lastLines(c.stdout, c.stderr)
		}
		return record.FailureExit, c.err.Error()
	}
	return "", ""
}

// lastLines returns "\n" and the last lines of the child's output, or "" when it printed nothing.
func lastLines(stdout, stderr []byte) string {
	t := proc.Tail(append(append([]byte(nil), stdout...), stderr...), 10)
	if t == "" {
		return ""
	}
	return "\n" + t
}

// watched records when a child last wrote to its standard output or error.
type watched struct {
	mu      sync.Mutex
	last    time.Time
	size    int    // bytes written to both buffers
	flooded bool   // more than proc.MaxOutput arrived: the child was killed
	kill    func() // kills the child
}

func (w *watched) idle() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.last)
}

type watchedWriter struct {
	w   *watched
	buf *bytes.Buffer
}

func (ww *watchedWriter) Write(p []byte) (int, error) {
	ww.w.mu.Lock()
	defer ww.w.mu.Unlock()
	ww.w.last = time.Now()
	if ww.w.flooded {
		return len(p), nil
	}
	if ww.w.size += len(p); ww.w.size > proc.MaxOutput {
		// Code under test printing without end must not exhaust memory, nor keep the inactivity
		// timeout at bay.
		ww.w.flooded = true
		ww.w.kill()
		return len(p), nil
	}
	return ww.buf.Write(p)
}
