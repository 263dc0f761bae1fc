package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sched "github.com/perfgate/perfgate/abba"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// The instruction-count lane.
//
// Wall time on a shared runner has a noise floor of a few percent; an instruction count from a simulator has
// almost none. RunInstructions measures every leaf benchmark's instructions per operation under valgrind's
// cachegrind, in the same A–B–B–A order and on the same pinned CPU as RunABBA:
//
//  1. Calibration first runs natively, as RunABBA's does, for a millisecond per leaf, which discovers the leaves
//     and an iteration count n0 for each. Then it counts under cachegrind once per leaf at n0 iterations and
//     once for the bare process (-test.bench=^$) on base, which estimates each leaf's instructions per
//     operation; N is the iteration count whose difference holds InstrConfig.Target instructions, at least 2.
//     The same N serves both sides. (Native time would be a poor guide: on a loaded machine it would shrink N
//     and with it the precision.)
//  2. Each slot of the schedule runs the leaf twice under cachegrind, for N and for 2N iterations
//     (-test.benchtime=Nx), with GOMAXPROCS=1 and GODEBUG=asyncpreemptoff=1, so that one thread runs the
//     benchmark and no signal interrupts it. instructions/op = (count at 2N − count at N) / N: the start-up of
//     the process, the testing package's set-up and the benchmark's own set-up are the same in both runs and
//     cancel. (With a classic b.N loop, the testing package's first call with b.N = 1 cancels too, which is why
//     N is at least 2.)
//  3. The count is of the code under test: every instruction outside the Go runtime's own machinery, which runs
//     on wall-clock pacing (see runtimeFunc). Measured on the DES benchmarks of this repository, the total count
//     of a process varies by 10,000–90,000 instructions between runs of one binary (the page allocator, the
//     garbage collector's timing, sysmon, the runtime's random generator); the counted instructions vary by a
//     few hundred, in the testing package's formatting of the measured wall time, in the hash seeds of maps and
//     in the preemption checks sysmon requests at wall-clock times. The runtime's own share of an operation,
//     allocation above all, is not counted; allocs/op and B/op gate it exactly in the time lane.
//
// A fixed N and a deterministic program make the count repeatable, and the lane checks that it is: the A–A and
// B–B pairs of a round run the same binary, and two counts that differ by more than RepeatTolerance are a
// Failure of kind "unrepeatable", reported, never averaged away. CompareInstructions classifies the samples.

// UnitInstructions is the unit of the lane's samples, in bench.txt and in a Comparison.
const UnitInstructions = "instructions/op"

// Defaults of InstrConfig and the lane's tolerance.
const (
	// DefaultInstrTarget is how many instructions the difference of the counts at 2N and N should hold: some
	// 10⁵ times the few hundred that vary between runs of one binary. Under cachegrind the two runs of a slot
	// then last about a second together, most of it valgrind's start-up.
	DefaultInstrTarget = 20_000_000
	// instrProbeTime is the native benchmark time of the discovery run, which gives each leaf's n0.
	instrProbeTime = time.Millisecond
	// DefaultInstrRounds is the lane's number of rounds: one A–B–B–A gives each side two counts, which is
	// enough when the counts repeat, and the repeat check needs no more.
	DefaultInstrRounds = 1
	// RepeatTolerance is how far, as a fraction, two counts of the same binary may differ.
	RepeatTolerance = 1e-4
	// valgrindSlowdown bounds how much slower a benchmark runs under cachegrind than natively, for timeouts.
	valgrindSlowdown = 100
)

// InstrConfig configures the instruction-count lane on top of a RunConfig.
type InstrConfig struct {
	Valgrind string // the valgrind program; "" looks for valgrind in PATH
	Target   int64  // instructions N iterations should execute; 0 means DefaultInstrTarget
}

// RunInstructions runs the instruction-count lane on cfg.Base and cfg.Head: it calibrates N per leaf, then runs
// the A–B–B–A schedule with two cachegrind runs per slot (see the lane's description above), and returns a Run
// whose Samples carry one Value each, in UnitInstructions, with Iters = N. RunConfig fields mean what they mean
// for RunABBA, except that cfg.BenchTime is ignored (ic.Target calibrates), cfg.Rounds defaults to
// DefaultInstrRounds and cfg.Timeout applies to native calibration only. Samples written to cfg.BenchTxt are
// read by stock benchstat as the unit instructions/op.
//
// A missing valgrind is an error wrapping ErrNoValgrind. Failures and cancellation behave as in RunABBA; in
// addition, two counts of the same binary in one round that differ by more than RepeatTolerance are a Failure
// of kind "unrepeatable" on that side (the samples are kept).
func RunInstructions(ctx context.Context, cfg RunConfig, ic InstrConfig) (*Run, error) {
	if cfg.Base.Path == "" || cfg.Head.Path == "" {
		return nil, errors.New("counting instructions: base and head binaries are required")
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = DefaultInstrRounds
	}
	if ic.Target == 0 {
		ic.Target = DefaultInstrTarget
	}
	if cfg.Rounds < 0 || ic.Target < 0 || cfg.Timeout < 0 {
		return nil, errors.New("counting instructions: rounds, target and timeout must be positive")
	}
	vg, err := FindValgrind(ctx, ic.Valgrind)
	if err != nil {
		return nil, err
	}
	pin, err := sched.Choose(cfg.CPU, cfg.NoPin)
	if err != nil {
		return nil, fmt.Errorf("counting instructions: %w", err)
	}
	tmp, err := os.MkdirTemp("", "perfgate-cachegrind-")
	if err != nil {
		return nil, fmt.Errorf("counting instructions: %w", err)
	}
	defer os.RemoveAll(tmp)

	cfg.BenchTime = instrProbeTime
	cfg.Base.Path = withoutDWARF(ctx, cfg.Base.Path, filepath.Join(tmp, "base.test"))
	cfg.Head.Path = withoutDWARF(ctx, cfg.Head.Path, filepath.Join(tmp, "head.test"))
	cfg.Env = instrEnv(cfg.Env)
	r, start := newRunner(cfg, pin)
	defer r.finish(start)
	leaves, err := r.discover(ctx)
	r.run.Calibration = time.Since(start)
	if err != nil {
		return r.run, err
	}
	l := &lane{runner: r, valgrind: vg.Path, tmp: tmp}
	leaves, err = l.calibrate(ctx, leaves, ic.Target)
	r.run.Calibration = time.Since(start)
	if err != nil {
		return r.run, err
	}
	return r.run, l.measure(ctx, leaves)
}

// calibrate sets each leaf's iteration count N from a count under cachegrind on base (see the lane's
// description) and returns the leaves that could be counted; a leaf whose probe fails is a Failure of base.
func (l *lane) calibrate(ctx context.Context, leaves []leaf, target int64) ([]leaf, error) {
	probe := sched.Entry{Round: -1, Slot: -1}
	bare, fail, err := l.count(ctx, leaf{name: ""}, Base, probe, 0)
	if err != nil {
		return nil, err
	}
	if fail != nil {
		return nil, fmt.Errorf("counting instructions: base without benchmarks: %s", fail.Message)
	}
	var out []leaf
	for _, lf := range leaves {
		l.progress.calibrating(lf.name + " under valgrind")
		n0 := max(lf.iters, 1)
		c, fail, err := l.count(ctx, lf, Base, probe, n0)
		if err != nil {
			return out, err
		}
		if fail != nil {
			l.fail(*fail)
			continue
		}
		perOp := max(float64(c.Counted-bare.Counted)/float64(n0), 1)
		lf.iters = max(2, int(math.Ceil(float64(target)/perOp)))
		l.run.Iters[lf.name] = lf.iters
		out = append(out, lf)
	}
	l.run.Leaves = l.run.Leaves[:0]
	for _, lf := range out {
		l.run.Leaves = append(l.run.Leaves, lf.name)
	}
	return out, nil
}

// withoutDWARF returns a copy of the test binary bin without its DWARF sections, written to out, or bin itself
// when objcopy (binutils) is not installed or fails. The machine code and the symbol table, which name the
// functions cachegrind counts, are untouched, so the counts are the same; valgrind starts a third faster
// without the debug information to read (0.45 s instead of 0.7 s a run on the development machine).
func withoutDWARF(ctx context.Context, bin, out string) string {
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		return bin
	}
	if _, _, err := proc.Run(proc.Command(ctx, "", nil, objcopy, "--strip-debug", bin, out)); err != nil {
		return bin
	}
	return out
}

// instrEnv adds the lane's settings to the children's environment: one P, so one thread runs Go code, and no
// asynchronous preemption, whose signals land at wall-clock times. A GODEBUG in env is kept and extended.
func instrEnv(env []string) []string {
	godebug := "asyncpreemptoff=1"
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			out = append(out, kv)
		}
	}
	return append(out, "GOMAXPROCS=1", "GODEBUG="+godebug)
}

// lane runs the schedule of the instruction-count lane.
type lane struct {
	*runner
	valgrind string
	tmp      string // where cachegrind writes its output files
	seq      int    // numbers the output files
}

// measure runs the A–B–B–A schedule over leaves, two counting runs per slot, and checks each round's A–A and
// B–B pairs.
func (l *lane) measure(ctx context.Context, leaves []leaf) error {
	if l.cfg.BenchTxt != nil {
		l.txt = NewBenchTxt(l.cfg.BenchTxt, l.run.Header, map[Side]string{Base: l.cfg.Base.Commit, Head: l.cfg.Head.Commit})
	}
	plan := sched.Schedule(len(leaves), l.cfg.Rounds)
	dead := map[leafSide]bool{}
	started := time.Now()
	perRun := time.Duration(0) // the mean time of one slot so far, for the ETA
	var round [4]*Sample       // this round's samples of the current leaf, by slot
	for i, e := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.Slot == 0 {
			round = [4]*Sample{}
		}
		key := leafSide{e.Bench, e.Side}
		if !dead[key] {
			side := e.Side
			l.progress.running(leaves[e.Bench].name, side, e.Round, l.cfg.Rounds, i, len(plan), time.Duration(len(plan)-i)*perRun)
			s, fail, err := l.countSlot(ctx, leaves[e.Bench], side, e)
			if err != nil {
				return err
			}
			if fail != nil {
				l.fail(*fail)
				dead[key] = true
			} else {
				l.run.Samples = append(l.run.Samples, *s)
				round[e.Slot] = s
				if l.txt != nil {
					if err := l.txt.Write(*s); err != nil {
						return fmt.Errorf("writing bench.txt: %w", err)
					}
				}
			}
			perRun = time.Since(started) / time.Duration(i+1)
		}
		if e.Slot == 3 {
			l.checkRepeat(round[0], round[3])
			l.checkRepeat(round[1], round[2])
		}
		if i+1 == len(plan) || plan[i+1].Round != e.Round {
			l.progress.roundDone(e.Round, l.cfg.Rounds, time.Since(started), time.Duration(len(plan)-i-1)*perRun)
		}
	}
	l.progress.done(len(l.run.Samples), len(l.run.Failures), time.Since(started))
	return nil
}

// checkRepeat records an "unrepeatable" Failure when a and b, two samples of the same binary, differ by more
// than RepeatTolerance.
func (l *lane) checkRepeat(a, b *Sample) {
	if a == nil || b == nil {
		return
	}
	x, _ := a.Get(UnitInstructions)
	y, _ := b.Get(UnitInstructions)
	if spread := relSpread(x, y); spread > RepeatTolerance {
		l.fail(Failure{Name: a.Name, Side: a.Side, Round: a.Round + 1, Slot: b.Slot, Kind: record.FailureUnrepeatable,
			Message: fmt.Sprintf("two runs of the same %s binary counted %s and %s instructions/op, %.4f%% apart "+
				"(tolerance %g%%): the instruction count is not repeatable", a.Side, fmtCount(x), fmtCount(y),
				100*spread, 100*RepeatTolerance)})
	}
}

// relSpread returns |x − y| / min(x, y), or +Inf when min(x, y) is not positive and x ≠ y.
func relSpread(x, y float64) float64 {
	if x == y {
		return 0
	}
	lo := math.Min(x, y)
	if lo <= 0 {
		return math.Inf(1)
	}
	return math.Abs(x-y) / lo
}

func fmtCount(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// countSlot counts leaf lf on side at N and 2N iterations and returns the sample, or the failure of either run.
func (l *lane) countSlot(ctx context.Context, lf leaf, side Side, e sched.Entry) (*Sample, *Failure, error) {
	n := lf.iters
	c1, fail, err := l.count(ctx, lf, side, e, n)
	if err != nil || fail != nil {
		return nil, fail, err
	}
	c2, fail, err := l.count(ctx, lf, side, e, 2*n)
	if err != nil || fail != nil {
		return nil, fail, err
	}
	perOp := float64(c2.Counted-c1.Counted) / float64(n)
	if perOp <= 0 {
		return nil, &Failure{Name: lf.name, Side: side, Round: e.Round + 1, Slot: e.Slot, Kind: record.FailureNoResult,
			Message: fmt.Sprintf("counted %d instructions at %d iterations and %d at %d: the benchmark does no work per iteration",
				c1.Counted, n, c2.Counted, 2*n)}, nil
	}
	return &Sample{Name: lf.name, Side: side, Round: e.Round, Slot: e.Slot, Iters: n,
		Values: []Value{{Value: perOp, Unit: UnitInstructions}}}, nil, nil
}

// count runs leaf lf of side's binary for n iterations under cachegrind and returns its counts, or a Failure
// when the benchmark failed or printed no result. A leaf without a name runs no benchmark: the bare process.
func (l *lane) count(ctx context.Context, lf leaf, side Side, e sched.Entry, n int) (Counts, *Failure, error) {
	bin := l.cfg.Base
	if side == Head {
		bin = l.cfg.Head
	}
	l.seq++
	out := filepath.Join(l.tmp, "cachegrind.out."+strconv.Itoa(l.seq))
	timeout := valgrindSlowdown*time.Duration(float64(2*n)*lf.secPerOp*float64(time.Second)) + 120*time.Second
	pattern := "^$"
	if lf.name != "" {
		pattern = Pattern(lf.name)
	}
	args := append(cachegrindArgs(out), bin.Path, "-test.run=^$", "-test.bench="+pattern,
		"-test.benchtime="+strconv.Itoa(max(n, 1))+"x", "-test.cpu=1", "-test.count=1")
	c, err := l.exec(ctx, Binary{Path: l.valgrind, Dir: bin.Dir}, timeout, timeout, args)
	if err != nil {
		return Counts{}, nil, err
	}
	fail := &Failure{Name: lf.name, Side: side, Round: e.Round + 1, Slot: e.Slot}
	if kind, msg := c.failure(); kind != "" {
		os.Remove(out)
		fail.Kind, fail.Message = kind, "under valgrind: "+msg
		return Counts{}, fail, nil
	}
	found := lf.name == ""
	for _, res := range parseOutput(c.stdout).results {
		found = found || res.name == lf.name && res.iters == n
	}
	if !found {
		os.Remove(out)
		fail.Kind, fail.Message = record.FailureNoResult, "under valgrind: no result line for "+lf.name+lastLines(c.stdout, c.stderr)
		return Counts{}, fail, nil
	}
	counts, err := readCountsFile(out)
	if err != nil {
		fail.Kind, fail.Message = record.FailureNoResult, err.Error()+lastLines(nil, c.stderr)
		return Counts{}, fail, nil
	}
	return counts, nil, nil
}
