package benchrun

import (
	"context"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// Short runs, many rounds.
//
// What decides whether a benchmark settles is the spread of its per-round contrasts d_r and how
// many rounds there are: the interval's half-width is t·s_d/√R, and t itself falls fast with R
// (t(0.99, 4) = 3.7, t(0.99,
//  17. = 2.9). On a shared runner most of the spread comes from bursts — a neighbour on the other
//     hyperthread
//
// of the host core, the host's own work — that slow a run by 10% to 100% for a fraction of a second
// to seconds. A burst that covers all four runs of a round cancels in d_r; one that starts or ends
// inside the round does not. Shorter runs make a round shorter, so more bursts cover it whole, and
// give more rounds for the same budget. Below ~10 ms a run's fixed cost (a process start, the
// testing package's first b.N = 1 call, 20–45 ms in all here) dominates what the budget buys.
//
// A budgeted run therefore runs every run MinRunTime long, after calibration (never longer than
// RunConfig.BenchTime). Measured on this project's 2-core VM (20 fixed rounds of corpus pairs at
// 10, 30 and 100 ms runs, one after the other), the noise per run was the same or lower at 10 ms,
// and the 20 rounds took a third to a fifth of the time: the demo's fold 8.3%, 9.9% and 13.5% noise
// in 17, 28 and 59 s; cespare/xxhash 5.5%, 5.3% and 9.2% in 22, 33 and 76 s; dchest/siphash 7.0%,
// 7.8% and 5.1% in 12, 19 and 42 s. (An earlier rule fitted runs so that BudgetRounds rounds of
// every leaf filled the budget: a family of a few benchmarks then ran 100 ms runs, and stopped at
// DefaultMaxRounds with a third of the budget left, or used all of it for 40 noisy rounds.) The
// budget then buys many rounds: at 10 ms, 100 rounds of four benchmarks take about 25 s.
const (
	// BudgetRounds is how many rounds of every benchmark a budget should allow at MinRunTime runs
	// (the fourth planned look with the default 5 first rounds: 5, 8, 12, 18); when it does not,
	// the progress says so.
	BudgetRounds = 18
	// MinRunTime is the length of one run of a budgeted run (see "Short runs, many rounds").
	MinRunTime = 10 * time.Millisecond
	// runOverhead is the fixed wall time of one measured run beyond its timed loop, as budgeted:
	// starting the process, the testing package's set-up and its b.N = 1 call.
	runOverhead = 20 * time.Millisecond
)

// fitRuns returns leaves with their iteration counts cut to runs of MinRunTime (see "Short runs,
// many rounds"; never longer than RunConfig.BenchTime), and records the run length chosen in
// r.run.RunTime; left, what is left of the budget, only decides whether the progress says that
// BudgetRounds rounds do not fit. A leaf whose calibrated run is already shorter keeps its count.
func (r *runner) fitRuns(leaves []leaf, left time.Duration) []leaf {
	runTime := min(r.cfg.BenchTime, MinRunTime)
	floored := false
	if n := len(leaves); n > 0 {
		floored = left/time.Duration(BudgetRounds*4*n)-runOverhead < runTime
	}
	r.run.RunTime = runTime
	r.progress.Fitted(len(leaves), BudgetRounds, runTime, r.cfg.BenchTime, floored)
	out := make([]leaf, len(leaves))
	for i, l := range leaves {
		if l.secPerOp > 0 {
			if n := int(runTime.Seconds() / l.secPerOp); n < l.iters {
				l.iters = max(n, 1)
			}
		}
		out[i] = l
		_, r.run.Iters[l.name] = l.split()
	}
	return out
}

// Plan is the schedule of the Stager's next stage: n more rounds of A–B–B–A of every active leaf.
func stagePlan(st *bench.Stager, n int) []abba.Entry {
	var plan []abba.Entry
	for round := range n {
		for _, i := range st.Active() {
			for slot, side := range abba.Slots {
				plan = append(plan, abba.Entry{Bench: i, Round: st.Rounds() + round, Slot: slot, Side: side})
			}
		}
	}
	return plan
}

// pending is the expected wall time of the runs of plan whose leaf and side still run (est: one run
// of each leaf), and of those among them in the given round.
func pending(plan []abba.Entry, est []time.Duration, dead map[leafSide]bool, round int) (all, inRound time.Duration) {
	for _, f := range plan {
		if !dead[leafSide{f.Bench, f.Side}] {
			all += est[f.Bench]
			if f.Round == round {
				inRound += est[f.Bench]
			}
		}
	}
	return all, inRound
}

// measureStaged runs a budgeted run: stages of the A–B–B–A schedule over the benchmarks still
// unsettled, a look after each (Stager), until all are settled, the looks are used up or the
// budget, counted from start, is spent.
func (r *runner) measureStaged(ctx context.Context, leaves []leaf, start time.Time) error {
	if r.cfg.BenchTxt != nil {
		r.txt = benchtxt.NewBenchTxt(r.cfg.BenchTxt, r.run.Header, map[record.Side]string{record.Base: r.cfg.Base.Commit,
			record.Head: r.cfg.Head.Commit})
	}
	if r.cfg.Iters == 0 { // a fixed count is run as it is: not shortened, not lengthened
		leaves = r.fitRuns(leaves, time.Until(start.Add(r.cfg.Budget)))
		var err error
		if leaves, err = r.steadyRuns(ctx, leaves); err != nil {
			return err
		}
	}
	names := make([]string, len(leaves))
	est := make([]time.Duration, len(leaves)) // expected wall time of one run of each leaf
	for i, l := range leaves {
		names[i] = l.name
		est[i] = l.runTime() + 30*time.Millisecond
	}
	st := bench.NewStager(names, r.cfg.Rounds, r.cfg.MaxRounds, r.cfg.Stats)
	st.Counts = r.cfg.Counts
	r.run.Plan = st.Sequential()
	deadline := start.Add(r.cfg.Budget)
	r.progress.Deadline = deadline
	dead := map[leafSide]bool{}
	started := time.Now()
	for {
		var perRound time.Duration
		for _, i := range st.Active() {
			perRound += 4 * est[i]
		}
		n := st.Next(perRound, time.Until(deadline))
		if n == 0 {
			break
		}
		planned := st.Planned()
		plan := stagePlan(st, n)
		for k, e := range plan {
			if err := ctx.Err(); err != nil {
				return err
			}
			if dead[leafSide{e.Bench, e.Side}] {
				continue
			}
			eta, _ := pending(plan[k:], est, dead, -1)
			t0 := time.Now()
			if err := r.step(ctx, leaves[e.Bench], e, k, len(plan), min(eta, time.Until(deadline)), dead); err != nil {
				return err
			}
			est[e.Bench] = time.Since(t0)
			if dead[leafSide{e.Bench, e.Side}] {
				st.Retire(e.Bench)
			}
			if k+1 == len(plan) || plan[k+1].Round != e.Round {
				rest, round := pending(plan[k+1:], est, dead, e.Round+1)
				r.progress.RoundDone(e.Round, planned, time.Since(started), min(rest, time.Until(deadline)))
				// The runs took longer than calibration said (a loaded machine): end the stage at
				// this round when the next one would overrun the budget. The first stage still runs
				// two rounds.
				if ran := e.Round + 1 - st.Rounds(); ran < n && time.Until(deadline) < round && (st.Looked() > 0 || ran >= 2) {
					n = ran
					break
				}
			}
		}
		for _, i := range st.Active() {
			if dead[leafSide{i, record.Base}] || dead[leafSide{i, record.Head}] {
				st.Retire(i)
			}
		}
		done := st.Look(r.run.Samples, n)
		r.run.Stages = st.Looked()
		r.progress.Looked(st.Looked(), st.Rounds(), len(done), len(st.Active()), time.Until(deadline))
	}
	r.progress.Done(len(r.run.Samples), len(r.run.Failures), time.Since(started))
	r.unsteady(leaves, r.cfg.Stats.ThresholdPct/100)
	return nil
}
