package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// The lanes of the benchmark phase: the timing lane and the instruction-count lane, run where and
// when the scheduler's plan says (scheduler.go), joined into one benchrun.Run.

// runLanes runs the lanes the metric asks for with rc, joined into one Run: the timing lane, then
// the instruction-count lane. Under metric auto the count comes first, or runs alongside the timing
// lane pinned to another CPU when the scheduler says so (scheduler.go), and the timing lane's looks
// stop the benchmarks the counts settle (RunConfig.Counts), when countsSettle (valgrind hides no
// CPU feature the binaries use: otherwise CombineLanes lets no count settle anything, and neither
// may the stages). So the budget goes to the benchmarks the counts cannot settle. Whatever ran
// before an error is kept.
func (p *pipeline) runLanes(ctx context.Context, rc benchrun.RunConfig, countsSettle bool) (*benchrun.Run, error) {
	ic := rc
	// The lane's one round (no staging: counts repeat), within its share of the budget
	// (countShare).
	ic.Rounds, ic.Budget = benchrun.DefaultInstrRounds, p.countShare(false)
	count := func(ic benchrun.RunConfig, where string) (*benchrun.Run, error) {
		logTo(ic.Progress, "counting instructions under %s%s: %d round of A–B–B–A, each slot at N and 2N iterations",
			p.valgrind.Version, where, benchrun.DefaultInstrRounds)
		return benchrun.RunInstructions(ctx, ic, benchrun.InstrConfig{Valgrind: p.valgrind.Path, CacheSim: p.cfg.Cycles,
			Addrs: true})
	}
	// Where and when each lane runs is the scheduler's plan.
	pl := p.sched.plan
	times, counting := pl.Timing.When != whenNone, pl.Counting.When != whenNone
	if !times || !counting || pl.Counting.When == whenAfter {
		// one lane, or metric both
		var timed, counted *benchrun.Run
		var err error
		if times {
			if rc.Budget > 0 && counting {
				// metric both: the count runs after the timing, within the same budget
				rc.Budget -= ic.Budget
			}
			timed, err = p.timeLane(ctx, rc)
		}
		if err == nil && counting {
			counted, err = count(ic, "")
		}
		return joinRuns(timed, counted), err
	}
	if pl.Counting.When == whenBefore {
		where := ""
		if pl.Harmful {
			where = " before the timing, not beside it (scheduler)"
		}
		counted, err := count(ic, where)
		if err != nil {
			return counted, err
		}
		if rc.Budget > 0 {
			// The count came first on the timing's CPU: the timing gets what it left of the budget.
			rc.Budget = max(rc.Budget-counted.Elapsed, rc.Budget/2)
		}
		if countsSettle {
			cs := instrComparisons(counted, p.cfg.InstrThreshold)
			rc.Counts = func() []record.Benchmark { return cs }
		}
		timed, err := p.timeLane(ctx, rc)
		return joinRuns(timed, counted), err
	}
	// Beside: the count on the spare CPU, the timing on its own; the looks see the counts once they
	// are in. Both lanes write to the log: a file serialises its writes, anything else gets a lock.
	cpu := pl.Spare
	if _, ok := p.log.(*os.File); !ok && p.log != nil {
		rc.Progress = &syncWriter{w: p.log}
	}
	ic.CPU, ic.Budget = cpu, p.countShare(true)
	if ic.Progress = nil; rc.Progress != nil {
		ic.Progress = &lineWriter{w: rc.Progress, prefix: "counting: "}
	}
	// bench.txt's configuration lines apply to the results after them, so two lanes must not
	// interleave there: the counts go after the timing lane's samples, as with metric both.
	var countTxt bytes.Buffer
	if rc.BenchTxt != nil {
		ic.BenchTxt = &countTxt
	}
	var mu sync.Mutex
	var counts []record.Benchmark
	rc.Counts = func() []record.Benchmark {
		mu.Lock()
		defer mu.Unlock()
		return counts
	}
	timed, counted, err, countErr := p.sched.runBeside(ctx, p.store, p.logf,
		func() (*benchrun.Run, error) { return count(ic, fmt.Sprintf(" on cpu %d, alongside the timing", cpu)) },
		func(run *benchrun.Run, err error) {
			if err == nil && countsSettle {
				cs := instrComparisons(run, p.cfg.InstrThreshold)
				mu.Lock()
				counts = cs
				mu.Unlock()
			}
		},
		func() (*benchrun.Run, error) { return p.timeLane(ctx, rc) })
	if err == nil {
		err = countErr
	}
	if rc.BenchTxt != nil && countTxt.Len() > 0 {
		if _, werr := rc.BenchTxt.Write(countTxt.Bytes()); werr != nil && err == nil {
			err = fmt.Errorf("writing bench.txt: %w", werr)
		}
	}
	return joinRuns(timed, counted), err
}

// countShare is the instruction-count lane's share of the budget, 0 for none (no budget: fixed
// rounds): all of it when the lane runs alone (metric instructions) or alongside the timing on a
// CPU of its own, and countShareOfBudget of it when it runs before or after the timing on the same
// CPU (auto on one CPU, metric both), whose budget is then cut by what the count took. So the
// comparison ends within the budget, plus build and test time, whatever the benchmarks cost under
// valgrind.
func (p *pipeline) countShare(alongside bool) time.Duration {
	switch {
	case p.cfg.Budget <= 0:
		return 0
	case alongside || !p.cfg.TimesBenchmarks():
		return p.cfg.Budget
	}
	return time.Duration(countShareOfBudget * float64(p.cfg.Budget))
}

// countShareOfBudget is the instruction-count lane's share of the budget when it does not run
// alongside the timing: on this repository's gate the count takes about a minute on its own, the
// timing most of a 100 s budget.
const countShareOfBudget = 0.4

// timeLane runs the timing lane with rc.
func (p *pipeline) timeLane(ctx context.Context, rc benchrun.RunConfig) (*benchrun.Run, error) {
	// A budget may shorten a calibrated run, never a fixed count.
	perRun := p.cfg.BenchTime.String()
	if n := p.cfg.BenchTime.Iters; n > 0 {
		perRun = text.Plural(n, "iteration")
	} else if p.cfg.Budget > 0 {
		perRun = "at most " + perRun
	}
	if p.cfg.Budget > 0 {
		logTo(rc.Progress, "timing: A–B–B–A in stages of %d rounds and more, %s per run, within a budget "+
			"of %s; settled benchmarks stop", p.cfg.Rounds, perRun, p.cfg.Budget)
	} else {
		logTo(rc.Progress, "timing: %d rounds of A–B–B–A, %s per run", p.cfg.Rounds, perRun)
	}
	return benchrun.RunABBA(ctx, rc)
}

// instrComparisons returns run's instructions/op comparisons, nil for no run; the leaves the lane
// did not count are marked so (bench.MarkUncounted).
func instrComparisons(run *benchrun.Run, instrPct float64) []record.Benchmark {
	if run == nil {
		return nil
	}
	cs, err := bench.CompareInstructions(run.Samples, instrPct)
	if err != nil {
		return nil
	}
	return bench.MarkUncounted(cs, run.Uncounted) // what the lane gave up on settles nothing
}

// joinRuns returns the timing lane's run a followed by the instruction-count lane's run b; either
// may be nil. Pinning, header, plan and stages come from the first lane that ran.
func joinRuns(a, b *benchrun.Run) *benchrun.Run {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	j := *a
	j.Samples = slices.Concat(a.Samples, b.Samples)
	j.Failures = slices.Concat(a.Failures, b.Failures)
	j.Warnings = slices.Concat(a.Warnings, b.Warnings)
	j.Elapsed += b.Elapsed
	j.Calibration += b.Calibration
	if len(b.Uncounted) > 0 {
		j.Uncounted = maps.Clone(b.Uncounted)
		maps.Copy(j.Uncounted, a.Uncounted)
	}
	j.Addrs = b.Addrs
	j.LaneOff = b.LaneOff
	return &j
}
