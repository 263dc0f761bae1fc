package benchrun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	sched "github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/callgrind"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// Defaults of InstrConfig and the lane's tolerance.
const (
	// DefaultInstrTarget is how many instructions the difference of a leaf's counts at 2N and N
	// should hold. The lane's counts are exact, so N need not average anything out; a million keeps
	// a benchmark's own variation (a branch on heap addresses taken in one run and not in the next:
	// a few instructions per op) near 10⁻⁵, a hundredth of RepeatTolerance.
	DefaultInstrTarget = 1_000_000
	// instrProbeTime is the native benchmark time of the discovery run.
	instrProbeTime = time.Millisecond
	// DefaultInstrRounds is the lane's number of rounds: one A–B–B–A gives each side two counts,
	// which is enough when the counts repeat, and the repeat check needs no more.
	DefaultInstrRounds = 1
	// minInstrIters is the smallest N. A b.N benchmark runs its function once with b.N = 1 and
	// then, unless -test.benchtime is 1x, again with b.N = N, and both runs' timed stretches are
	// counted (a reset of the timer is seen only when something follows it that the count keeps):
	// at N ≥ 2 the first run is in the counts at N and at 2N alike and cancels.
	minInstrIters = 2
	// valgrindSlowdown bounds how much slower a benchmark runs under callgrind than natively, for
	// timeouts.
	valgrindSlowdown = 100
	// valgrindStart bounds what starting one valgrind process costs, in simulated instructions that
	// take as long: about a second each on the development machine. groupLeaves weighs processes
	// against iterations with what calibration measured, at most this (lane.startCost).
	valgrindStart = 1_000_000_000
)

// InstrConfig configures the instruction-count lane on top of a RunConfig.
type InstrConfig struct {
	Valgrind string // the valgrind program; "" looks for valgrind in PATH
	Target   int64  // instructions a leaf's N iterations should execute; 0 means DefaultInstrTarget
	// CacheSim runs callgrind's cache simulation, so that each sample also carries
	// record.UnitEstCycles, the estimated cycles per op (callgrind's estCycles); it makes callgrind
	// about 1.5 times slower.
	CacheSim bool
	// Addrs keeps, for every counted leaf and side, the counted instructions per op by code address
	// of the last slot it was counted in (Run.Addrs), which attribution places on source lines;
	// off, none are kept.
	Addrs bool
}

// RunInstructions runs the instruction-count lane on cfg.Base and cfg.Head: it calibrates N per
// leaf and groups the leaves, then runs the A–B–B–A schedule over the groups with two callgrind
// runs per slot (see the lane's description above), and returns a Run whose Samples carry one Value
// each, in record.UnitInstructions, with Iters = N. RunConfig fields mean what they mean for
// RunABBA, except that cfg.BenchTime is ignored (ic.Target calibrates), cfg.Rounds defaults to
// DefaultInstrRounds, cfg.Timeout applies to native calibration only, and cfg.Budget, when
// positive, is the lane's share of the time budget, which it never overruns: the leaves are costed
// by what valgrind spends on them (valgrindCost) and counted at fewer iterations, or not at all
// (Uncounted, "budget"), when they do not fit, and every callgrind process is killed at the end of
// the share. Samples written to cfg.BenchTxt are read by stock benchstat as the unit
// instructions/op.
//
// A missing valgrind is an error wrapping valgrind.ErrNotFound. Failures and cancellation behave as
// in RunABBA: a leaf that fails on a side is a Failure and that side stops counting it, the rest of
// its group goes on; in addition, two counts of the same binary in one round that differ by more
// than RepeatTolerance are a Failure of kind "unrepeatable" on that side (the samples are kept).
//
// # The instruction-count lane
//
// Wall time on a shared runner has a noise floor of a few percent; an instruction count from a
// simulator has almost none. RunInstructions measures every leaf benchmark's instructions per
// operation under valgrind's callgrind, in the same A–B–B–A order and on the same pinned CPU as
// RunABBA:
//
//  1. What is counted is what the benchmark times. callgrind drops its counts when the testing
//     package enters B.ResetTimer or B.StartTimer, and writes them out when it enters B.StopTimer
//     or formats a result line (callgrind.Args), so the stretches the benchmark timer measured come
//     out as files of their own, and callgrind.TimedCounts adds them up per result line: the b.Loop
//     or b.N loop, without the process's start-up, the -bench pattern's matching, the set-up before
//     ResetTimer, runN's garbage collection or the printing of results, which vary between runs of
//     one binary. Within those stretches the count is of the code under test: every instruction, by
//     its address, of functions outside the Go runtime's and the testing package's machinery
//     (callgrind's machineryFunc), whose share runs on wall-clock pacing (the collector, the
//     scheduler, sysmon, the timer's ReadMemStats); the runtime's copy, clear and compare helpers
//     count when the code calls them (callgrind's helperFunc). Allocation is not counted; allocs/op
//     and B/op gate it exactly in the time lane. Nor is a stack check that failed: sysmon asks a
//     goroutine that ran 10 ms of wall time to stop at its next call, asyncpreemptoff or not, and
//     the call then runs its function's stack check twice and the block that calls the runtime
//     once; callgrind.ReadDumps leaves both out (callgrind's stackCheck), as it does a stack
//     growth. callgrind tracks calls by the stack pointer, which the Go runtime's stack switches
//     and copies mislead now and then into missing a trigger; callgrind.TimedCounts detects it from
//     the code each stretch ran, and count runs such a leaf again, twice in a row in a process of
//     its own (lostRetries), rather than guess.
//  2. One process counts many leaves: a group runs with one -test.bench alternation of their exact
//     names and one -test.benchtime=Nx, and the result lines say which count is whose. Each slot of
//     the schedule runs a group twice, for N and for 2N iterations, with GOMAXPROCS=1,
//     GODEBUG=asyncpreemptoff=1 and GOGC=off (one thread runs Go code, no preemption signal lands
//     at a wall-clock time, no collection runs during a loop: see instrEnv), and instructions/op =
//     (count at 2N − count at N) / N: whatever the timed stretch holds besides the loop (e.g. a b.N
//     benchmark's set-up) is the same in both runs and cancels.
//  3. Calibration runs natively first, as RunABBA's does, for a millisecond per leaf, which
//     discovers the leaves. Then one process on base counts every leaf at 1 iteration, which
//     estimates each leaf's instructions per operation; a leaf's ideal N is the smallest whose
//     difference holds InstrConfig.Target instructions, and at least minInstrIters. groupLeaves
//     then splits the leaves, sorted by ideal N, into the groups that cost least to count, each run
//     at the largest N of its members: a process costs about a second of valgrind's start-up, a
//     simulated instruction about a nanosecond.
//
// A fixed N and a deterministic program make the count exact: the four counts of a leaf in an A/A
// run are the same number, and the change is exactly 0 (measured on this repository's gate and on
// the demo). What can still make them differ is the benchmark's own nondeterminism, which the lane
// counts as it runs: code that branches on heap addresses (an overlap check of two buffers
// allocated apart: Go 1.26 randomizes the heap's base, and the runtime's own allocations move with
// wall-clock events such as a thread started), or on a map's iteration order (a per-process seed).
// The lane checks that the count repeats: the A–A and B–B pairs of a round run the same binary. Two
// counts of a pair that are not the same number are counted a third time, and a third count equal
// to one of them replaces the other (a rare one-process event, see settleRound); two counts that
// still differ by more than RepeatTolerance are a Failure of kind "unrepeatable", reported, never
// averaged away. CompareInstructions classifies the samples.
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
	vg, err := valgrind.Find(ctx, ic.Valgrind, "the instruction-count lane needs it")
	if err != nil {
		return nil, err
	}
	pin, err := sched.Choose(cfg.CPU, cfg.NoPin)
	if err != nil {
		return nil, fmt.Errorf("counting instructions: %w", err)
	}
	tmp, err := os.MkdirTemp("", "perfgate-callgrind-")
	if err != nil {
		return nil, fmt.Errorf("counting instructions: %w", err)
	}
	defer os.RemoveAll(tmp)

	cfg.BenchTime, cfg.Iters = instrProbeTime, 0
	// Every process valgrind runs keeps off the CPU features valgrind reports and cannot run here.
	host, herr := valgrind.Probe(ctx, vg.Path, tmp)
	if herr != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, b := range []*Binary{&cfg.Base, &cfg.Head} {
		if *b, err = stripped(ctx, *b, tmp); err != nil {
			return nil, fmt.Errorf("counting instructions: %w", err)
		}
	}
	cfg.Env = host.Env(instrEnv(cfg.Env))
	r, start := newRunner(cfg, pin)
	defer r.finish(start)
	if herr != nil {
		r.warn(fmt.Sprintf("the CPU features valgrind cannot run here are unknown (%v): counting without turning any off", herr))
	}
	var deadline time.Time
	if cfg.Budget > 0 {
		deadline = start.Add(cfg.Budget)
	}
	leaves, err := r.discover(ctx)
	r.run.Calibration = time.Since(start)
	if err != nil {
		return r.run, err
	}
	l := &lane{runner: r, valgrind: vg.Path, cacheSim: ic.CacheSim, tmp: tmp, syms: map[record.Side]*callgrind.Symtab{},
		deadline: deadline}
	for _, lf := range leaves {
		l.all = append(l.all, lf.name)
	}
	for side, bin := range map[record.Side]Binary{record.Base: cfg.Base, record.Head: cfg.Head} {
		if l.syms[side], err = callgrind.ReadSymtab(bin.Path); err != nil {
			return r.run, fmt.Errorf("counting instructions: %s: %w", side, err)
		}
		l.syms[side].KeepAddrs = ic.Addrs
	}
	groups, err := l.calibrate(ctx, leaves, ic.Target)
	r.run.Calibration = time.Since(start)
	if err != nil {
		return r.run, err
	}
	return r.run, l.measure(ctx, groups)
}

// leafGroup is leaves counted together, all at iteration count n.
type leafGroup struct {
	leaves []leaf
	n      int
}

// calibrate estimates each leaf's instructions per operation from one count on base at 1 iteration,
// sets its N, and returns the leaves that could be counted, grouped (groupLeaves); a leaf that
// fails under valgrind is a Failure of base.
func (l *lane) calibrate(ctx context.Context, leaves []leaf, target int64) ([]leafGroup, error) {
	if len(leaves) == 0 {
		return nil, nil
	}
	l.progress.Calibrating(fmt.Sprintf("%d benchmarks under valgrind", len(leaves)))
	calib := sched.Entry{Round: -1, Slot: -1}
	t0 := time.Now()
	counts, lost, fails, err := l.countOnce(ctx, leaves, record.Base, calib, 1, 1)
	if err != nil {
		return nil, err
	}
	if len(counts) == 0 && len(lost) == 0 && len(fails) > 0 {
		// Nothing counted at all: once more before the lane is judged, since valgrind may fail at
		// random. A second process that counts nothing either switches the lane off when valgrind
		// alone failed (triage).
		if counts, lost, fails, err = l.countOnce(ctx, leaves, record.Base, calib, 1, 1); err != nil {
			return nil, err
		}
		if len(counts) == 0 && len(lost) == 0 {
			l.deadRuns++
		}
	}
	if fails, err = l.triage(ctx, leaves, record.Base, calib, 1, len(counts), fails); err != nil {
		return nil, err
	}
	if l.run.LaneOff != "" {
		return nil, nil
	}
	// The calibrating process ran every leaf once: its wall time is what one valgrind process costs
	// here and now (the machine's speed and load included), an upper bound of the start-up that the
	// plan charges per process.
	l.start = float64(time.Since(t0).Nanoseconds())
	for _, f := range fails {
		l.fail(f)
	}
	// A leaf that timed more than one stretch at 1 iteration stops its timer somewhere in its
	// function: in its loop, it is not counted (timerInLoop), and never counted again and again.
	var suspects []leaf
	for _, lf := range leaves {
		if sh, ok := l.shapes[lf.name]; ok && sh.Timed > 1 {
			suspects = append(suspects, lf)
		}
	}
	if len(suspects) > 0 {
		inLoop, err := l.timerInLoop(ctx, suspects)
		if err != nil {
			return nil, err
		}
		for _, name := range inLoop {
			delete(counts, name)
			lost = slices.DeleteFunc(lost, func(n string) bool { return n == name })
		}
	}
	if len(lost) > 0 {
		// Lost in the first process (most often its first leaf: see lostRetries): counted again, as
		// count does.
		retry := slices.DeleteFunc(slices.Clone(leaves), func(lf leaf) bool { return !slices.Contains(lost, lf.name) })
		c, fails, err := l.count(ctx, retry, record.Base, calib, 1)
		if err != nil {
			return nil, err
		}
		maps.Copy(counts, c)
		for _, f := range fails {
			l.fail(f)
		}
	}
	leaves = slices.DeleteFunc(leaves, func(lf leaf) bool { _, ok := counts[lf.name]; return !ok })
	cost := make([]float64, len(leaves))
	for i, lf := range leaves {
		// One iteration's timed count: the loop's body, and for a b.N benchmark whatever it does
		// before its loop without resetting the timer, which makes N smaller than it could be,
		// never the count wrong.
		perOp := max(float64(counts[lf.name].Counted), 1)
		leaves[i].iters = max(minInstrIters, int(min(math.Ceil(float64(target)/perOp), float64(target))))
		cost[i] = valgrindCost(perOp, lf.secPerOp, counts[lf.name].Wall)
	}
	l.cost = map[string]float64{}
	for i, lf := range leaves {
		l.cost[lf.name] = cost[i]
	}
	groups := groupLeaves(leaves, cost, l.startCost())
	if !l.deadline.IsZero() {
		groups = l.fitBudget(leaves, cost)
		// Cheapest first: when the cost model is wrong about a costly leaf (the runtime's work
		// under valgrind is hard to foresee), its overrun is cut at the share's end after the cheap
		// groups are counted, not before.
		slices.SortStableFunc(groups, func(a, b leafGroup) int {
			return cmp.Compare(slotCost(a, l.cost, l.startCost()), slotCost(b, l.cost, l.startCost()))
		})
	}
	l.run.Leaves = l.run.Leaves[:0]
	clear(l.run.Iters)
	for _, g := range groups {
		for _, lf := range g.leaves {
			l.run.Leaves = append(l.run.Leaves, lf.name)
			l.run.Iters[lf.name] = g.n
		}
	}
	return groups, nil
}

// timerProbe is the pair of iteration counts timerInLoop compares: a benchmark that calls StopTimer
// k times an iteration calls it 4k more times at the larger one, whether it loops over b.N (which
// runs at 1 iteration first, then at the count) or with b.Loop (which runs once, at the count).
var timerProbe = [2]int{2, 6}

// timerInLoop runs each suspect (a leaf that timed more than one stretch at 1 iteration) on base at
// timerProbe's two iteration counts under plain callgrind, in a process of its own each, and marks
// as not counted (UncountedTimerInLoop) and returns those whose own code calls StopTimer more often
// at the larger count (see stopCalls): they stop and start their timer inside their loop. callgrind
// writes a dump at every stop and loses track of the timer now and then at each (the testing
// package reads the memory statistics there, on the system stack), and once lost it misses the
// triggers that follow, so such a leaf would cost a dump per iteration and be lost in run after
// run; wall time judges it instead. A suspect that stops its timer only outside its loop (a set-up
// between StopTimer and StartTimer) is counted as any other leaf: the stretches its timer measured
// are added up (callgrind.TimedCounts). A probe that fails leaves the suspect to the ordinary
// count.
func (l *lane) timerInLoop(ctx context.Context, suspects []leaf) ([]string, error) {
	var inLoop []string
	for _, lf := range suspects {
		var calls [len(timerProbe)]int64
		ok := true
		for i, n := range timerProbe {
			c, err := l.stopCalls(ctx, lf, n)
			if err != nil {
				return nil, err
			}
			calls[i], ok = c, ok && c >= 0
		}
		if ok && calls[1] > calls[0] {
			inLoop = append(inLoop, lf.name)
			l.uncount(lf.name, record.UncountedTimerInLoop, fmt.Sprintf("the benchmark stops and starts its timer "+
				"inside its loop (StopTimer called %d times at %d iterations, %d at %d), which callgrind cannot "+
				"follow reliably", calls[0], timerProbe[0], calls[1], timerProbe[1]))
		}
	}
	return inLoop, nil
}

// stopCalls runs leaf lf on base for n iterations under callgrind without triggers and returns how
// often code under test (callgrind's countedFunc) called testing.(*B).StopTimer, from the call
// counts of callgrind's one dump at the end, which count every call instruction executed whatever
// callgrind's tracking of returns believes; -1 when the run failed or printed no result for lf.
func (l *lane) stopCalls(ctx context.Context, lf leaf, n int) (int64, error) {
	bin := l.cfg.Base
	l.seq++
	scratch, remove, err := l.cfg.Sandbox.Scratch()
	if err != nil {
		return 0, err
	}
	defer remove()
	out := filepath.Join(scratch, "callgrind.out."+strconv.Itoa(l.seq))
	timeout := valgrindSlowdown*time.Duration(float64(2*n)*lf.secPerOp*float64(time.Second)) + 120*time.Second
	args := []string{"--tool=callgrind", "--callgrind-out-file=" + out, "--dump-instr=yes", "--dump-line=no",
		"--compress-strings=yes", "--compress-pos=no", bin.Path, "-test.run=^$", "-test.bench=" + benchout.Pattern(lf.name),
		"-test.benchtime=" + strconv.Itoa(n) + "x", "-test.cpu=1", "-test.count=1"}
	c, err := l.execIn(ctx, Binary{Path: l.valgrind, Dir: bin.Dir}, bin, scratch, timeout, l.limit(timeout), args, false)
	if err != nil {
		return 0, err
	}
	if kind, _ := c.failure(); kind != "" || len(benchout.Parse(c.stdout).Results) == 0 {
		return -1, nil
	}
	f, err := os.Open(out)
	if err != nil {
		return -1, nil
	}
	defer f.Close()
	calls, err := callgrind.CallsTo(f, l.syms[record.Base], l.syms[record.Base].StopTimer())
	if err != nil {
		return -1, nil
	}
	return calls, nil
}

// fits reports whether a slot of g fits in what is left of the lane's budget; always without one.
// Once a slot of g has run, the longest so far (took) is the estimate: the cost model (slotCost)
// charges a full valgrindStart per process and is the larger on a quick group, and discarding the
// three slots a round has already counted for the model's margin wastes them. Before that the model
// decides.
func (l *lane) fits(g leafGroup, took time.Duration) bool {
	if l.deadline.IsZero() {
		return true
	}
	need := time.Duration(slotCost(g, l.cost, l.startCost()))
	if took > 0 {
		need = took
	}
	return time.Until(l.deadline) >= need
}

// limit is the wall-clock limit of a callgrind process: timeout, cut to what is left of the lane's
// budget.
func (l *lane) limit(timeout time.Duration) time.Duration {
	if l.deadline.IsZero() {
		return timeout
	}
	return max(min(timeout, time.Until(l.deadline)), time.Second)
}

// uncount records that leaf name is not counted, and why (Run.Uncounted); the first reason stays.
func (l *lane) uncount(name string, why record.Uncounted, detail string) {
	if l.run.Uncounted == nil {
		l.run.Uncounted = map[string]bench.NotCounted{}
	}
	if _, ok := l.run.Uncounted[name]; ok {
		return
	}
	l.run.Uncounted[name] = bench.NotCounted{Why: why, Detail: detail}
	l.progress.Warn(fmt.Sprintf("%s is not counted (metric auto judges it by wall time alone): %s", name, detail))
}

// startCost is what the plan charges for starting one valgrind process: as measured at calibration,
// never more than valgrindStart, the model's bound from the development machine.
func (l *lane) startCost() float64 {
	if l.start > 0 {
		return min(l.start, valgrindStart)
	}
	return valgrindStart
}

// counted reports whether leaf name is still counted: not marked by uncount.
func (l *lane) counted(name string) bool {
	_, ok := l.run.Uncounted[name]
	return !ok
}

// valgrindCost is what one operation of a leaf costs under callgrind, in simulated instructions
// that take as long (a nanosecond each, as valgrindStart): its counted instructions per op, or more
// when it is slow under valgrind for what the count leaves out. The count leaves the runtime's and
// the kernel's work out, so a benchmark that allocates 64 MiB an op counts a few hundred
// instructions and takes 55 ms an op under callgrind (measured). Two bounds of that, both measured
// at calibration, runtime and kernel included, and the smaller one is taken: the wall time of the
// leaf's stretch at 1 iteration in the calibrating callgrind run (wall1, with the garbage
// collection and set-up before it: 0 when unknown), and its native time per op times
// valgrindSlowdown (137 ms natively for the 64 MiB one, whose fresh pages the kernel faults in).
func valgrindCost(instrPerOp, secPerOp float64, wall1 time.Duration) float64 {
	slow := secPerOp * valgrindSlowdown * 1e9
	if wall1 > 0 {
		slow = min(slow, float64(wall1.Nanoseconds()))
	}
	return max(instrPerOp, slow)
}

// laneSafety is the share of what is left of the lane's budget that fitBudget plans to use: the
// rest absorbs a machine slower than the cost model.
const laneSafety = 0.8

// fitBudget groups leaves (groupLeaves, by cost) so that one round of the lane fits in laneSafety
// of what is left of its budget. While the plan's cost (planCost) does not fit, the costliest
// leaves' iteration counts are cut to a common level of cost (water filling: a leaf that is cheap
// under valgrind keeps its N), and a leaf that cannot run minInstrIters iterations at that level is
// not counted (UncountedBudget); when even the processes' start-up does not fit, no leaf is. It
// returns the groups of the leaves it keeps.
func (l *lane) fitBudget(leaves []leaf, cost []float64) []leafGroup {
	left := laneSafety * float64(time.Until(l.deadline).Nanoseconds())
	leaves, cost = slices.Clone(leaves), slices.Clone(cost)
	shrink := 1.0
	for range 8 {
		groups := groupLeaves(leaves, cost, l.startCost())
		total := planCost(groups, leaves, cost, l.startCost())
		if total <= left || len(leaves) == 0 {
			return groups
		}
		work := make([]float64, len(leaves)) // what each leaf's iterations cost in a round
		for i, lf := range leaves {
			work[i] = 12 * float64(lf.iters) * cost[i]
		}
		level := shrink * waterLevel(work, left-float64(len(groups))*8*l.startCost())
		// groups run at their largest member's N: cut further if a regrouped plan still overruns
		shrink *= 0.8
		var kl []leaf
		var kc []float64
		for i, lf := range leaves {
			if work[i] > level {
				n := int(level / (12 * cost[i]))
				if n < minInstrIters {
					l.uncount(lf.name, record.UncountedBudget, fmt.Sprintf("counting it would take about %s under "+
						"valgrind at %d iterations a run, and the lane's share of the budget has %s left",
						time.Duration(12*cost[i]*minInstrIters).Round(time.Second), minInstrIters,
						time.Until(l.deadline).Round(time.Second)))
					continue
				}
				lf.iters = n
			}
			kl, kc = append(kl, lf), append(kc, cost[i])
		}
		leaves, cost = kl, kc
	}
	for _, lf := range leaves {
		l.uncount(lf.name, record.UncountedBudget, "the lane's share of the budget does not hold its count")
	}
	return nil
}

// waterLevel returns the level λ at which Σ min(work_i, λ) = total, or 0 when total is not
// positive; the largest work when it all fits.
func waterLevel(work []float64, total float64) float64 {
	if total <= 0 {
		return 0
	}
	w := slices.Sorted(slices.Values(work))
	for i, x := range w {
		// The rest, len(w)−i leaves, all at level x at least.
		if rest := float64(len(w) - i); x*rest >= total {
			return total / rest
		}
		total -= x
	}
	return w[len(w)-1]
}

// planCost is the estimated wall time, in nanoseconds, of one A–B–B–A round of groups: per slot two
// processes (valgrindStart each) and 3n iterations of every member (the runs at n and 2n). cost is
// by leaf, as leaves.
func planCost(groups []leafGroup, leaves []leaf, cost []float64, start float64) float64 {
	byName := map[string]float64{}
	for i, lf := range leaves {
		byName[lf.name] = cost[i]
	}
	total := 0.0
	for _, g := range groups {
		total += 4 * slotCost(g, byName, start)
	}
	return total
}

// slotCost is the estimated wall time, in nanoseconds, of one slot of g: two processes and 3n
// iterations of every member, costed by cost (by name).
func slotCost(g leafGroup, cost map[string]float64, start float64) float64 {
	work := 0.0
	for _, lf := range g.leaves {
		work += cost[lf.name]
	}
	return 2*start + 3*float64(g.n)*work
}

// groupLeaves splits leaves into groups that each run at the largest ideal N (leaf.iters) of their
// members: sorted by ideal N, cut where the cut saves more simulated iterations (3 × N ×
// instructions per op, for the N and 2N runs) than the two more valgrind processes cost
// (valgrindStart each). The cuts are chosen by dynamic programming over the sorted leaves, which
// finds the cheapest split into consecutive runs. perOp[i] is what one operation of leaf i costs
// under valgrind (valgrindCost): a leaf that is slow under valgrind is not run at a fast one's N.
// Each group keeps its leaves in the order given.
func groupLeaves(leaves []leaf, perOp []float64, start float64) []leafGroup {
	idx := make([]int, len(leaves))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return leaves[a].iters - leaves[b].iters })
	// best[j]: the cheapest cost of the first j sorted leaves; cut[j]: where its last group starts.
	best := make([]float64, len(idx)+1)
	cut := make([]int, len(idx)+1)
	for j := 1; j <= len(idx); j++ {
		best[j] = math.Inf(1)
		n := float64(leaves[idx[j-1]].iters)
		work := 0.0
		for i := j - 1; i >= 0; i-- {
			work += perOp[idx[i]]
			if c := best[i] + 2*start + 3*n*work; c < best[j] {
				best[j], cut[j] = c, i
			}
		}
	}
	var groups []leafGroup
	for j := len(idx); j > 0; j = cut[j] {
		members := slices.Clone(idx[cut[j]:j])
		slices.Sort(members)
		g := leafGroup{n: leaves[idx[j-1]].iters}
		for _, m := range members {
			lf := leaves[m]
			lf.iters = g.n
			g.leaves = append(g.leaves, lf)
		}
		groups = append(groups, g)
	}
	slices.Reverse(groups)
	return groups
}

// stripped returns bin with its Path replaced by a copy without DWARF (withoutDWARF) in dir, sealed
// anew after the original was checked against its own seal, so that the lane's runs check the copy
// they run.
func stripped(ctx context.Context, bin Binary, dir string) (Binary, error) {
	if err := bin.verify(); err != nil {
		return bin, err
	}
	path := withoutDWARF(ctx, bin.Path, filepath.Join(dir, filepath.Base(bin.Path)))
	if bin.SHA256 == "" || path == bin.Path {
		bin.Path = path
		return bin, nil
	}
	sealed, err := sandbox.Seal(path)
	if err != nil {
		return bin, err
	}
	bin.Path, bin.SHA256 = sealed.Path, sealed.SHA256
	return bin, nil
}

// withoutDWARF returns a copy of the test binary bin without its DWARF sections, written to out, or
// bin itself when objcopy (binutils) is not installed or fails. The machine code and the symbol
// table, which name the functions callgrind counts, are untouched, so the counts are the same;
// valgrind starts a third faster without the debug information to read (0.45 s instead of 0.7 s a
// run on the development machine).
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

// instrEnv adds the lane's settings to the children's environment: one P, so one thread runs Go
// code; no asynchronous preemption, whose signals land at wall-clock times; and no garbage
// collection short of instrMemLimit (GOGC=off), since a collection that overlaps a timed loop makes
// its code run the write barrier's slow path for as long as the concurrent mark lasts in wall time
// (measured: counts of an allocating loop 1% apart, bit-identical with GOGC=off). runN's runtime.GC
// before each run still collects, outside the timed stretch. A GODEBUG in env is kept and extended;
// a GOMAXPROCS, GOGC or GOMEMLIMIT is replaced.
func instrEnv(env []string) []string {
	godebug := "asyncpreemptoff=1"
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		name, _, _ := strings.Cut(kv, "=")
		if name != "GOMAXPROCS" && name != "GOGC" && name != "GOMEMLIMIT" {
			out = append(out, kv)
		}
	}
	return append(out, "GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT="+instrMemLimit, "GODEBUG="+godebug)
}

// instrMemLimit bounds the heap of a counting run, in which the collector is off: a benchmark that
// allocates more than this in one run of its loop is collected, and its count may then differ from
// run to run, which the repeat check reports.
const instrMemLimit = "2GiB"

// lane runs the schedule of the instruction-count lane.
type lane struct {
	*runner
	valgrind string
	cacheSim bool // InstrConfig.CacheSim
	// where the copies of the binaries without DWARF are (callgrind writes to each run's scratch)
	tmp  string
	seq  int // numbers the output files
	syms map[record.Side]*callgrind.Symtab
	// deadline ends the lane's share of the time budget (RunConfig.Budget); zero for none. No
	// callgrind process runs past it (limit), and what does not fit is not counted (fitBudget,
	// measure).
	deadline time.Time
	cost     map[string]float64 // each leaf's valgrindCost, from calibration
	// start is what one valgrind process costs, in nanoseconds: the calibrating process's wall time
	// (calibrate); 0 before it ran (startCost then says valgrindStart).
	start float64
	// shapes holds, for every result line of the last countOnce at its iteration count, its timed
	// count with the number of timed segments, lost or not (calibrate reads them).
	shapes map[string]callgrind.LeafCount
	// deadRuns counts the valgrind processes in a row in which every leaf failed under valgrind
	// alone (triage).
	deadRuns int
	// all names every leaf the lane was given, for switchOff.
	all []string
}

// measure runs the A–B–B–A schedule over groups, two counting runs per slot, and checks each
// round's A–A and B–B pairs of every leaf (settleRound). A round's samples of a group are kept back
// until its check is done, and whatever was counted is kept when the run stops early.
func (l *lane) measure(ctx context.Context, groups []leafGroup) (err error) {
	if l.cfg.BenchTxt != nil {
		l.txt = benchtxt.NewBenchTxt(l.cfg.BenchTxt, l.run.Header, map[record.Side]string{record.Base: l.cfg.Base.Commit,
			record.Head: l.cfg.Head.Commit})
	}
	plan := sched.Schedule(len(groups), l.cfg.Rounds)
	dead := map[record.Side]map[string]bool{record.Base: {}, record.Head: {}}
	started := time.Now()
	perRun := time.Duration(0) // the mean time of one slot so far, for the ETA
	// this round's samples of the current group, by slot
	var round [4][]benchtxt.Sample
	slotTime := make([]time.Duration, len(groups)) // the longest slot of each group so far
	defer func() {
		if ferr := l.keep(round); err == nil {
			err = ferr
		}
	}()
	for i, e := range plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.Slot == 0 {
			round = [4][]benchtxt.Sample{}
		}
		g := groups[e.Bench]
		live := slices.DeleteFunc(slices.Clone(g.leaves), func(lf leaf) bool {
			return dead[e.Side][lf.name] || !l.counted(lf.name)
		})
		if len(live) > 0 {
			name := live[0].name
			if len(live) > 1 {
				name = fmt.Sprintf("%s and %d more", name, len(live)-1)
			}
			l.progress.Running(name, e.Side, e.Round, l.cfg.Rounds, i, len(plan), time.Duration(len(plan)-i)*perRun)
			if l.fits(g, slotTime[e.Bench]) {
				t0 := time.Now()
				samples, fails, err := l.countSlot(ctx, live, e.Side, e, g.n)
				slotTime[e.Bench] = max(slotTime[e.Bench], time.Since(t0))
				if err != nil {
					return err
				}
				for _, f := range fails {
					l.fail(f)
					dead[e.Side][f.Name] = true
				}
				round[e.Slot] = samples
			} else {
				for _, lf := range live {
					l.uncount(lf.name, record.UncountedBudget, fmt.Sprintf("a slot of its group takes about %s under "+
						"valgrind, and the lane's share of the budget had %s left",
						max(slotTime[e.Bench], time.Duration(slotCost(g, l.cost, l.startCost()))).Round(time.Second),
						max(time.Until(l.deadline), 0).Round(time.Second)))
				}
			}
			perRun = time.Since(started) / time.Duration(i+1)
		}
		if e.Slot == 3 {
			if err := l.settleRound(ctx, g, &round, e); err != nil {
				return err
			}
			err := l.keep(round)
			round = [4][]benchtxt.Sample{}
			if err != nil {
				return err
			}
		}
		if i+1 == len(plan) || plan[i+1].Round != e.Round {
			l.progress.RoundDone(e.Round, l.cfg.Rounds, time.Since(started), time.Duration(len(plan)-i-1)*perRun)
		}
	}
	l.progress.Done(len(l.run.Samples), len(l.run.Failures), time.Since(started))
	return nil
}

// keep adds a round's samples to the run and to bench.txt, in the order of the schedule.
func (l *lane) keep(round [4][]benchtxt.Sample) error {
	for _, samples := range round {
		for _, s := range samples {
			l.run.Samples = append(l.run.Samples, s)
			if l.txt != nil {
				if err := l.txt.Write(s); err != nil {
					return fmt.Errorf("writing bench.txt: %w", err)
				}
			}
		}
	}
	return nil
}

// settleRound checks the A–A (slots 0 and 3) and B–B (slots 1 and 2) pairs of each leaf of g in a
// finished round. A pair whose counts are not the same number is counted a third time, in one
// process per side for all such leaves: when the third count equals one of the two, it takes the
// other's place (a rare event in one process, such as a missed trigger that callgrind does not
// report, moved that count by a few instructions per op: measured, 34 instructions in 2174
// iterations of a 422-instruction loop, once in several hundred counts). A pair that still
// disagrees, or whose third count fails, is kept as counted, and checkRepeat judges it.
func (l *lane) settleRound(ctx context.Context, g leafGroup, round *[4][]benchtxt.Sample, e sched.Entry) error {
	for _, pair := range [][2]int{{0, 3}, {1, 2}} {
		var odd []leaf
		side := record.Base
		for _, lf := range g.leaves {
			a, b := findSample(round[pair[0]], lf.name), findSample(round[pair[1]], lf.name)
			if a == nil || b == nil {
				continue
			}
			side = a.Side
			if x, y := instructions(a), instructions(b); x != y {
				odd = append(odd, lf)
			}
		}
		if len(odd) > 0 {
			l.progress.Warn(fmt.Sprintf("two counts of %s on %s differ: counting a third time", leafNames(odd), side))
			third, _, err := l.countSlot(ctx, odd, side, e, g.n)
			if err != nil {
				return err
			}
			for _, z := range third {
				a, b := findSample(round[pair[0]], z.Name), findSample(round[pair[1]], z.Name)
				switch instructions(&z) {
				case instructions(a):
					b.Values = z.Values
				case instructions(b):
					a.Values = z.Values
				}
			}
		}
		for _, lf := range g.leaves {
			l.checkRepeat(findSample(round[pair[0]], lf.name), findSample(round[pair[1]], lf.name))
		}
	}
	return nil
}

// findSample returns the sample of the leaf named name in samples, or nil.
func findSample(samples []benchtxt.Sample, name string) *benchtxt.Sample {
	for i := range samples {
		if samples[i].Name == name {
			return &samples[i]
		}
	}
	return nil
}

// leafNames lists the names of leaves for a message.
func leafNames(leaves []leaf) string {
	names := make([]string, len(leaves))
	for i, lf := range leaves {
		names[i] = lf.name
	}
	return strings.Join(names, ", ")
}

// instructions returns the sample's instructions/op.
func instructions(s *benchtxt.Sample) float64 {
	x, _ := s.Get(record.UnitInstructions)
	return x
}

// fmtCount formats an instruction count exactly.
func fmtCount(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// checkRepeat marks the leaf as not counted (UncountedUnrepeatable) when a and b, two samples of
// the same binary, differ by more than RepeatTolerance: the benchmark's own work varies from run to
// run (randomness seeded by the time, I/O), which is a failure of neither side; the samples are
// kept, and the lane stops counting the leaf.
func (l *lane) checkRepeat(a, b *benchtxt.Sample) {
	if a == nil || b == nil {
		return
	}
	x, y := instructions(a), instructions(b)
	if spread := bench.RelSpread(x, y); spread > bench.RepeatTolerance {
		l.uncount(a.Name, record.UncountedUnrepeatable, fmt.Sprintf("two runs of the same %s binary counted %s and %s "+
			"instructions/op, %.4f%% apart (tolerance %g%%): the instruction count is not repeatable", a.Side,
			fmtCount(x), fmtCount(y), 100*spread, 100*bench.RepeatTolerance))
	}
}

// countSlot counts leaves on side at n and 2n iterations and returns a sample per leaf counted both
// times, and a Failure for each other leaf.
func (l *lane) countSlot(ctx context.Context, leaves []leaf, side record.Side, e sched.Entry, n int) ([]benchtxt.Sample,
	[]record.Failure, error) {
	c1, fails, err := l.count(ctx, leaves, side, e, n)
	if err != nil {
		return nil, nil, err
	}
	leaves = slices.DeleteFunc(slices.Clone(leaves), func(lf leaf) bool { _, ok := c1[lf.name]; return !ok })
	c2, fails2, err := l.count(ctx, leaves, side, e, 2*n)
	if err != nil {
		return nil, nil, err
	}
	fails = append(fails, fails2...)
	var out []benchtxt.Sample
	for _, lf := range leaves {
		x, ok := c2[lf.name]
		if !ok {
			continue
		}
		perOp := float64(x.Counted-c1[lf.name].Counted) / float64(n)
		if perOp <= 0 {
			fails = append(fails, record.Failure{Name: lf.name, Side: side, Round: e.Round + 1, Slot: e.Slot,
				Kind: record.FailureNoResult,
				Message: fmt.Sprintf("counted %d instructions at %d iterations and %d at %d: the benchmark does no work per "+
					"iteration",
					c1[lf.name].Counted, n, x.Counted, 2*n)})
			continue
		}
		vs := []benchtxt.Value{{Value: perOp, Unit: record.UnitInstructions}}
		if cyc := float64(x.Cycles-c1[lf.name].Cycles) / float64(n); l.cacheSim && cyc > 0 {
			vs = append(vs, benchtxt.Value{Value: cyc, Unit: record.UnitEstCycles})
		}
		out = append(out, benchtxt.Sample{Name: lf.name, Side: side, Round: e.Round, Slot: e.Slot, Iters: n, Values: vs})
		if x.Addrs != nil {
			l.keepAddrs(lf.name, side, callgrind.PerOpAddrs(c1[lf.name].Addrs, x.Addrs, n))
		}
	}
	return out, fails, nil
}

// keepAddrs records a leaf's per-op counts by address on side in the run: each slot's replaces the
// previous, so the run ends with the last round's.
func (l *lane) keepAddrs(name string, side record.Side, perOp map[uint64]float64) {
	if l.run.Addrs == nil {
		l.run.Addrs = map[string]map[record.Side]map[uint64]float64{}
	}
	if l.run.Addrs[name] == nil {
		l.run.Addrs[name] = map[record.Side]map[uint64]float64{}
	}
	l.run.Addrs[name][side] = perOp
}

// lostRetries is how often count runs again the leaves whose count callgrind lost (see
// callgrind.TimedCounts). It loses it most often in the first leaf a process runs (measured: a
// third of the processes on this repository's gate lost Encrypt/des/batch64's, which missed
// b.Loop's ResetTimer), so a retry runs each leaf twice in a row (-test.count=2) and keeps the
// second run's count.
const lostRetries = 3

// count runs leaves of side's binary for n iterations each in one process under callgrind and
// returns each leaf's timed count (see callgrind.TimedCounts), and a Failure for each leaf that
// printed no result. The leaves whose count callgrind lost run again in a process of their own, up
// to lostRetries times; a count is never guessed.
func (l *lane) count(ctx context.Context, leaves []leaf, side record.Side, e sched.Entry, n int) (
	map[string]callgrind.LeafCount, []record.Failure, error) {
	counts := map[string]callgrind.LeafCount{}
	var fails []record.Failure
	all := leaves
	leaves = slices.Clone(leaves)
	for attempt := 0; len(leaves) > 0; attempt++ {
		c, lost, f, err := l.countOnce(ctx, leaves, side, e, n, min(attempt, 1)+1)
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(counts, c)
		fails = append(fails, f...)
		leaves = slices.DeleteFunc(leaves, func(lf leaf) bool { return !slices.Contains(lost, lf.name) || !l.counted(lf.name) })
		if len(leaves) > 0 && attempt < lostRetries {
			l.progress.Warn(fmt.Sprintf("callgrind lost track of the benchmark timer of %s on %s: counting again",
				strings.Join(lost, ", "), side))
		}
		if attempt == lostRetries {
			// A failure of the lane, not of the side: the leaf is not counted, never guessed.
			for _, lf := range leaves {
				l.uncount(lf.name, record.UncountedLostTimer, fmt.Sprintf("callgrind lost track of the benchmark timer "+
					"in %d runs on %s (a trigger point missed after a stack switch)", attempt+1, side))
			}
			break
		}
	}
	// valgrind may fail at random (its own diagnosis says so): what it failed on is counted once
	// more before triage asks whether the benchmark fails natively.
	var again []leaf
	for _, lf := range all {
		if slices.ContainsFunc(fails, func(f record.Failure) bool { return f.Name == lf.name && diagnosed(f) }) {
			again = append(again, lf)
		}
	}
	if len(again) > 0 && ctx.Err() == nil {
		c, _, f, err := l.countOnce(ctx, again, side, e, n, 1)
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(counts, c)
		fails = slices.DeleteFunc(fails, func(f record.Failure) bool {
			return slices.ContainsFunc(again, func(lf leaf) bool { return lf.name == f.Name })
		})
		fails = append(fails, f...)
	}
	fails, err := l.triage(ctx, all, side, e, n, len(counts), fails)
	return counts, fails, err
}

// countOnce is one process of count, which runs each leaf repeat times in a row (-test.count) and
// keeps the last run's count: the clean counts, the leaves whose count was lost, and the failures.
func (l *lane) countOnce(ctx context.Context, leaves []leaf, side record.Side, e sched.Entry, n,
	repeat int) (map[string]callgrind.LeafCount, []string, []record.Failure, error) {
	bin := map[record.Side]Binary{record.Base: l.cfg.Base, record.Head: l.cfg.Head}[side]
	l.seq++
	// callgrind's output: the one place the sandbox lets it write
	scratch, remove, err := l.cfg.Sandbox.Scratch()
	if err != nil {
		return nil, nil, nil, err
	}
	defer remove()
	out := filepath.Join(scratch, "callgrind.out."+strconv.Itoa(l.seq))
	var native float64 // seconds the leaves would run natively
	names := make([]string, len(leaves))
	for i, lf := range leaves {
		names[i] = lf.name
		native += float64(2*n*repeat) * lf.secPerOp
	}
	timeout := valgrindSlowdown*time.Duration(native*float64(time.Second)) + 120*time.Second
	limit := l.limit(timeout)
	args := append(callgrind.Args(out, l.cacheSim), bin.Path, "-test.run=^$", "-test.bench="+benchout.SkipPattern(names),
		"-test.benchtime="+strconv.Itoa(n)+"x", "-test.cpu=1", "-test.count="+strconv.Itoa(repeat))
	started := time.Now()
	c, err := l.execIn(ctx, Binary{Path: l.valgrind, Dir: bin.Dir}, bin, scratch, timeout, limit, args, false)
	if err != nil {
		return nil, nil, nil, err
	}
	if c.overran && limit < timeout {
		// Killed at the end of the lane's share of the budget: a failure of neither side.
		os.Remove(out)
		for _, lf := range leaves {
			l.uncount(lf.name, record.UncountedBudget, fmt.Sprintf("the lane's share of the budget ran out while it "+
				"was counted on %s (the callgrind process was stopped after %s)", side, limit.Round(time.Second)))
		}
		return map[string]callgrind.LeafCount{}, nil, nil, nil
	}
	segs, rerr := callgrind.ReadDumps(out, l.syms[side])
	l.shapes = map[string]callgrind.LeafCount{}
	results := benchout.Parse(c.stdout).Results
	// The process's start dates the first dump: the first leaf's wall time then holds valgrind's
	// start-up too, an upper bound (valgrindCost).
	timed := callgrind.TimedCounts(append([]callgrind.Segment{{At: started}}, segs...))
	counts := map[string]callgrind.LeafCount{}
	var lost []string
	switch {
	case rerr != nil:
	case len(timed) < len(results):
		// callgrind missed the dump of a result line (a trigger point missed after a stack switch,
		// as in callgrind.TimedCounts), so the counts cannot be told apart: every leaf that printed
		// a result is lost, and counted again.
		for _, res := range results {
			if slices.Contains(names, res.Name) && !slices.Contains(lost, res.Name) {
				lost = append(lost, res.Name)
			}
		}
	case len(timed) == len(results):
		for i, res := range results {
			if res.Iters == n {
				l.shapes[res.Name] = timed[i]
			}
			switch {
			case res.Iters != n || !slices.Contains(names, res.Name):
			case timed[i].Lost:
				if !slices.Contains(lost, res.Name) {
					lost = append(lost, res.Name)
				}
				delete(counts, res.Name)
			default:
				counts[res.Name] = timed[i]
				lost = slices.DeleteFunc(lost, func(name string) bool { return name == res.Name })
			}
		}
	}
	var fails []record.Failure
	kind, msg := c.failure()
	for _, lf := range leaves {
		if _, ok := counts[lf.name]; ok || slices.Contains(lost, lf.name) {
			continue
		}
		f := record.Failure{Name: lf.name, Side: side, Round: e.Round + 1, Slot: e.Slot, Kind: record.FailureNoResult}
		switch {
		case rerr != nil:
			f.Message = rerr.Error() + lastLines(nil, c.stderr)
		case len(timed) != len(results):
			f.Message = fmt.Sprintf("callgrind saw %d results, the benchmarks printed %d: the counts cannot be told apart",
				len(timed), len(results)) + lastLines(c.stdout, c.stderr)
		case strings.Contains(string(c.stdout), "--- FAIL: Benchmark"+lf.name):
			f.Kind, f.Message = record.FailureExit, benchout.FailBlock(c.stdout, lf.name)
		case kind != "":
			f.Kind, f.Message = kind, msg
		default:
			f.Message = "no result line for " + lf.name + lastLines(c.stdout, c.stderr)
		}
		f.Message = "under valgrind: " + f.Message
		f.Under = "valgrind"
		if d := valgrind.Diagnose(c.stderr); d != "" {
			f.Message = d + "; " + f.Message // see diagnosed
		}
		fails = append(fails, f)
	}
	return counts, lost, fails, nil
}
