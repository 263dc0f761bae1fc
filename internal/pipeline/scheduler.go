package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/record"
)

// The scheduler: the one place that says which job (timing, counting, tracing, profiling) runs on
// which CPU and when, and that hands each job's result back to the phase that consumes it. Its plan
// is a pure function of the CPUs this process may use, the metric, valgrind and what a valgrind on
// the spare CPU does to a timed probe on the timed one (neighbour.go): nothing runs beside the
// timing unless that probe measured it harmless on this host, since a 2–4% disturbance on a 2%
// threshold is a verdict.
//
// Under metric auto with a CPU to spare and a harmless neighbour, the count lane runs on the spare
// CPU while the timed children run on theirs (runBeside), and the count is usually in long before
// the timing ends: on this repository's gate after 28 s of a 95 s timing phase. The trace, the
// longest check that is not timed (40 s on two CPUs for cipher/des's five constructors), then takes
// the count's CPU instead of running before the tests with both. The whole of perfgate is pinned to
// that CPU meanwhile (abba.PinProcess), so that the trace's valgrind, the parsing of its output and
// this process's garbage collector stay off the timed child's CPU, as the count did; when the
// timing ends, the rest of the trace may use every CPU, the valgrind it is running too
// (abba.WidenDescendants). When the count is not in before the timing ends, the trace runs after
// the benchmarks. With a harmful neighbour, the count runs before the timing on the timed CPU and
// the trace before the tests on every CPU, as they do on a machine of one CPU.

// when is when a job runs, relative to the timing.
type when string

const (
	whenNone   when = ""       // the job does not run
	whenTiming when = "timing" // the timing itself
	whenBefore when = "before" // before the timing, with nothing timed meanwhile
	whenBeside when = "beside" // on a CPU of its own while the timing runs
	whenAfter  when = "after"  // once the timing is done
)

// place is where and when a job runs.
type place struct {
	When when
	CPUs []int // nil: every CPU this process may use
}

// harmlessShare is the part of the threshold a neighbour may move the timed probe by and still be
// harmless: a quarter, 0.5% at the default 2%.
const harmlessShare = 0.25

// planInput is what the plan is made of.
type planInput struct {
	Times, Counts bool // the lanes the metric asks for: timing, instruction counting
	// metric auto: the count settles what the timing leaves open, so it may run beside it
	Auto      bool
	Valgrind  bool // valgrind was found
	Trace     bool // the constant-time check traces
	Pinned    bool // the timed children are pinned, to TimedCPU
	TimedCPU  int
	CPUs      []int   // the CPUs this process may use
	Threshold float64 // the gate's threshold, percent
	// what a valgrind on the spare CPU did to a timed probe (probeNeighbour); unmeasured is harmful
	Neighbour neighbourEffect
}

// neighbourEffect is what a valgrind on the spare CPU did to a timed probe on the timed CPU.
type neighbourEffect struct {
	Measured bool
	// the probe's slowdown beside the valgrind, percent (alone 1.00, beside 1+Pct/100)
	Pct float64
	// what the probe cannot resolve on this host, percent (NeighbourProbe.UncertaintyPct)
	UncertaintyPct float64
	Err            string // why it could not be measured
}

// harmless reports whether n moved the probe by at most harmlessShare of thresholdPct, its
// uncertainty included.
func (n neighbourEffect) harmless(thresholdPct float64) bool {
	return n.Measured && n.Err == "" && n.Pct+n.UncertaintyPct <= harmlessShare*thresholdPct
}

// spare returns the CPU a job may run on beside the timing, -1 for none: one this process may use
// that the timed children do not, when the count lane runs beside the timing under metric auto.
func (in planInput) spare() int {
	if !in.Times || !in.Counts || !in.Valgrind || !in.Auto || !in.Pinned {
		return -1
	}
	for _, c := range in.CPUs {
		if c != in.TimedCPU {
			return c
		}
	}
	return -1
}

// wantsNeighbour reports whether the plan depends on what a neighbour does to the timed CPU: there
// is a spare CPU to run the count on.
func (in planInput) wantsNeighbour() bool { return in.spare() >= 0 }

// harmless reports whether the neighbour was measured harmless: it moved the probe by at most
// harmlessShare of the threshold.
func (in planInput) harmless() bool { return in.Neighbour.harmless(in.Threshold) }

// plan says where and when each job runs.
type plan struct {
	Timing, Counting, Tracing, Profiling place
	Spare                                int // the CPU beside the timing, -1 for none
	// a spare CPU went unused: its neighbour was not measured harmless
	Harmful bool
	In      planInput
}

// planSchedule makes the plan of in. It runs nothing: tests give it every kind of host.
func planSchedule(in planInput) plan {
	pl := plan{Spare: -1, In: in, Profiling: place{When: whenAfter}}
	var timed []int
	if in.Pinned {
		timed = []int{in.TimedCPU}
	}
	if in.Times {
		pl.Timing = place{When: whenTiming, CPUs: timed}
	}
	counts := in.Counts && in.Valgrind
	spare := in.spare()
	switch {
	case !counts:
	case !in.Times:
		pl.Counting = place{When: whenBefore, CPUs: timed} // metric instructions: nothing is timed
	case !in.Auto:
		pl.Counting = place{When: whenAfter, CPUs: timed} // metric both: the count after the timing
	case spare >= 0 && in.harmless():
		pl.Counting, pl.Spare = place{When: whenBeside, CPUs: []int{spare}}, spare
	default:
		// one CPU, unpinned, or a neighbour that disturbs the timed CPU: the count first, and the
		// timing's looks see its counts
		pl.Counting = place{When: whenBefore, CPUs: timed}
		pl.Harmful = spare >= 0
	}
	if in.Trace {
		switch {
		case pl.Counting.When == whenBeside:
			// on the count's CPU once the count is in; after the benchmarks when the timing ends
			// first
			pl.Tracing = place{When: whenBeside, CPUs: []int{spare}}
		case counts && in.Times && in.Auto && in.Pinned && spare < 0:
			// one CPU: after the benchmarks, which costs nothing the tests would not
			pl.Tracing = place{When: whenAfter}
		default:
			pl.Tracing = place{When: whenBefore} // before the tests, on every CPU
		}
	}
	return pl
}

// method is the plan's line in the method ("" when there was no choice to make: no CPU to spare):
// where the timing ran, what ran beside it or not, and why.
func (pl plan) method(stored bool) string {
	in := pl.In
	if !in.wantsNeighbour() {
		return ""
	}
	spare := in.spare()
	th := strconv.FormatFloat(in.Threshold, 'f', -1, 64)
	measured := fmt.Sprintf("a valgrind on CPU %d moved a timed probe on CPU %d by %+.1f%% ±%.1f%%", spare,
		in.TimedCPU, in.Neighbour.Pct, in.Neighbour.UncertaintyPct)
	if !pl.Harmful {
		what := "the instruction count"
		if pl.Tracing.When == whenBeside {
			what += ", then the constant-time trace,"
		}
		return fmt.Sprintf("timed on CPU %d; %s on CPU %d beside the timing: %s, within a quarter of the ±%s%% "+
			"threshold", in.TimedCPU, what, spare, measured, th)
	}
	if !in.Neighbour.Measured || in.Neighbour.Err != "" {
		measured = fmt.Sprintf("what a valgrind on CPU %d does to a timed probe on CPU %d could not be measured (%s)",
			spare, in.TimedCPU, in.Neighbour.Err)
	} else {
		measured += ", not within a quarter of the ±" + th + "% threshold"
	}
	s := fmt.Sprintf("timed on CPU %d with nothing beside it: %s, so the instruction count ran before the timing",
		in.TimedCPU, measured)
	if pl.Tracing.When == whenBefore {
		s += " and the constant-time trace before the tests"
		if stored {
			s += "; the store keeps the trace's analyses across re-runs, so that time is spent once per pair of binaries"
		}
	}
	return s
}

// schedule makes the comparison's plan: the CPUs, the metric, valgrind and, when a CPU is spare,
// what a valgrind there does to the timed CPU (probeNeighbour, measured once a run).
func (p *pipeline) schedule(ctx context.Context) *scheduler {
	in := planInput{
		Times: p.cfg.TimesBenchmarks(), Counts: p.cfg.CountsInstructions(), Auto: p.cfg.Metric == record.MetricAuto,
		Valgrind: p.valgrind.Path != "", Trace: p.constantTimeMode() != record.CTOff && !p.skipChecks,
		TimedCPU: -1, Threshold: p.cfg.Threshold,
	}
	if pin, err := abba.Choose(p.cfg.CPU, p.cfg.NoPin); err == nil && pin.Pinned {
		in.Pinned, in.TimedCPU = true, pin.CPU
	}
	in.CPUs, _ = abba.AllowedCPUs()
	if in.wantsNeighbour() {
		in.Neighbour = p.neighbour(ctx, p.valgrind.Path, in.TimedCPU, in.spare())
	}
	s := &scheduler{plan: planSchedule(in)}
	s.line = s.plan.method(p.store != nil)
	if pl := s.plan; s.line != "" {
		p.logf("schedule: timing on %s; counting %s on %s; constant-time trace %s on %s; profiles after the "+
			"timing: %s", cpusText(pl.Timing.CPUs), orNone(pl.Counting.When), cpusText(pl.Counting.CPUs),
			orNone(pl.Tracing.When), cpusText(pl.Tracing.CPUs), s.line)
	}
	return s
}

// orNone names w for the log: "none" for a job that does not run.
func orNone(w when) string {
	if w == whenNone {
		return "none"
	}
	return string(w)
}

// method is the plan's line in the method, "" for none (plan.method), and what became of a trace
// the plan put beside the timing that ran after it instead.
func (s *scheduler) method() string {
	if s == nil {
		return ""
	}
	if s.tracedAfter && s.plan.Tracing.When == whenBeside {
		return s.line + "; the count was not in before the timing ended, so the constant-time trace ran after it"
	}
	return s.line
}

// scheduler runs the jobs of one package's comparison where and when its plan says, and holds their
// results until the phase that consumes them takes them. Only the pipeline's goroutine calls its
// methods, but for runBeside's own goroutine, which starts the trace; the pipeline's reads it after
// runBeside has joined that goroutine.
type scheduler struct {
	plan plan
	line string // the plan's line in the method
	// the trace the plan puts beside or after the timing, until it starts
	held func(context.Context) (*record.ConstantTime, error)
	// that trace, once it started beside the timing
	beside *traceJob
	// the held trace ran after the timing (takeTrace)
	tracedAfter bool
}

// traceJob is the constant-time trace running beside the timing; res is written before done
// closes.
type traceJob struct {
	done  chan struct{}
	unpin func() // gives the process back every CPU; safe to call more than once
	res   traceResult
	// artifacts the trace read from the store: the store's count of hits from the start (nothing
	// else reads the store while the timing runs)
	startHits int64
}

// traceResult is what a trace beside the timing returns to the phase that records it.
type traceResult struct {
	ct   *record.ConstantTime
	err  error
	wall time.Duration
	hits int64 // artifacts read from the store
}

// storeHits is what the trace has read from the store so far.
func (j *traceJob) storeHits(st *store.Store) int64 {
	select {
	case <-j.done:
		return j.res.hits
	default:
		return st.Hits() - j.startHits
	}
}

// hold keeps trace for the slot the plan gives it: beside the timing once the count is in, or after
// the benchmarks (takeTrace).
func (s *scheduler) hold(trace func(context.Context) (*record.ConstantTime, error)) { s.held = trace }

// running is the trace running beside the timing, nil for none.
func (s *scheduler) running() *traceJob {
	if s == nil {
		return nil
	}
	return s.beside
}

// runBeside runs count on the spare CPU while timing runs on the timed one, and returns both
// results. in is called with the count's result as soon as it is in, on the scheduler's goroutine;
// the spare CPU then goes to the held trace if the timing still runs (startTrace). The count's
// goroutine returns its result over a channel; nothing else is shared.
func (s *scheduler) runBeside(ctx context.Context, st *store.Store, logf func(string, ...any),
	count func() (*benchrun.Run, error), in func(*benchrun.Run, error),
	timing func() (*benchrun.Run, error)) (timed, counted *benchrun.Run, timeErr, countErr error) {
	type result struct {
		run *benchrun.Run
		err error
	}
	countc, handed := make(chan result, 1), make(chan result, 1)
	timingDone := make(chan struct{})
	go func() {
		var r result
		r.run, r.err = count()
		countc <- r
	}()
	go func() { // the scheduler's: the count is in, the spare CPU is free
		r := <-countc
		in(r.run, r.err)
		select {
		case <-timingDone:
		default:
			s.startTrace(ctx, st, logf)
		}
		handed <- r
	}()
	timed, timeErr = timing()
	close(timingDone)
	r := <-handed
	if j := s.beside; j != nil {
		// Nothing is timed now: the rest of the trace may use every CPU, the valgrind it runs
		// already too.
		j.unpin()
		abba.WidenDescendants()
	}
	return timed, r.run, timeErr, r.err
}

// startTrace starts the held trace on the spare CPU, with the whole process pinned there; a process
// that cannot be pinned leaves the trace for after the benchmarks.
func (s *scheduler) startTrace(ctx context.Context, st *store.Store, logf func(string, ...any)) {
	trace, cpu := s.held, s.plan.Spare
	if trace == nil || ctx.Err() != nil || s.plan.Tracing.When != whenBeside {
		return
	}
	restore, err := abba.PinProcess(cpu)
	if err != nil {
		logf("constant time: not traced beside the timing (%v); it runs after the benchmarks", err)
		return
	}
	s.held = nil
	j := &traceJob{done: make(chan struct{}), unpin: sync.OnceFunc(restore), startHits: st.Hits()}
	s.beside = j
	logf("constant time: tracing on cpu %d beside the timing, now that the count is in", cpu)
	start := time.Now()
	go func() {
		defer close(j.done)
		defer j.unpin()
		ct, err := trace(ctx)
		j.res = traceResult{ct: ct, err: err, wall: time.Since(start).Round(time.Millisecond),
			hits: st.Hits() - j.startHits}
	}()
}

// takeTrace hands the trace to the phase that records it, once: the job that ran beside the timing
// (wait is called before blocking on one still running), or the held trace, which has not run. Both
// are nil when there is none.
func (s *scheduler) takeTrace(wait func() (stop func())) (*traceResult, func(context.Context) (*record.ConstantTime, error)) {
	if s == nil {
		return nil, nil
	}
	if j := s.beside; j != nil {
		s.beside = nil
		select {
		case <-j.done:
		default:
			stop := wait()
			<-j.done
			stop()
		}
		return &j.res, nil
	}
	held := s.held
	s.held, s.tracedAfter = nil, held != nil
	return nil, held
}

// cpusText is a plan's CPU set as the log says it: "every CPU" for nil.
func cpusText(cpus []int) string {
	if cpus == nil {
		return "every CPU"
	}
	return "cpu " + abba.FormatCPUList(slices.Sorted(slices.Values(cpus)))
}
