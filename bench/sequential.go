package bench

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/perfgate/perfgate/abba"
	"github.com/perfgate/perfgate/record"
)

// A time budget, and why looking after every stage stays honest.
//
// With RunConfig.Budget set, rounds run in stages. The first stage runs RunConfig.Rounds rounds of every
// benchmark; each later one brings the benchmarks still running to the next planned total (Looks: each about
// half again as many rounds as the last, up to RunConfig.MaxRounds). After every stage the run looks: it
// analyses the samples so far, and a benchmark whose sec/op class is settled (slower, faster or unchanged), or
// whose one-sided bound already rules out a slowdown beyond the threshold (SettledForGate), stops being timed,
// so that the rest of the budget goes to the unsettled ones. The run ends when every
// benchmark has settled, when the planned looks are used up, or when the next stage's first round would not fit
// in what is left of the budget (the first stage is cut to fit as well, but always runs two rounds).
//
// Looking repeatedly at accumulating data and stopping at the first significant look inflates false alarms: with
// five looks at α = 5% each, identical code would be called "slower" far more often than 5% of the time. The
// run therefore spends its error rate across the looks, a group-sequential design with a Bonferroni spending
// function: each of the K planned looks spends the same share w_k = 1/K of α (and of 1 − confidence), whichever
// benchmarks are still running. Equal shares suit runs that reach their later looks, as budgeted runs do since
// their runs are short (see "Short runs, many rounds"): in simulation (35 benchmarks, a
// budget of 20 rounds of each, drift, AR(1) load and spikes, 60 runs) equal shares settled 94.8%, 56% and 18%
// of A/A benchmarks at 1.5%, 2% and 2.5% noise per run, where halving shares (2^-k, which favours the first
// looks) settled 92.3%, 34% and 8%, and found a 3% change more often (51 against 38 of 60 at 2%). Halving had
// won (96.5% against 93%) when a budget bought 9 rounds of 100 ms runs and the later looks were rarely reached.
// At look k a benchmark is
//
//   - slower or faster when its paired test's p-value (of a change within half the threshold, paired.go) is below
//     α·w_k/m, with m the number of benchmarks the run times (Bonferroni over the family), and its estimate lies
//     beyond the threshold;
//   - unchanged when its paired interval at confidence 1 − (1 − confidence)·w_k lies inside ±threshold;
//   - otherwise still running, or inconclusive at the last look.
//
// Validity follows from the union bound alone, so it holds whatever the stopping rule, the budget or the order
// of the benchmarks does: code whose true change is within half the threshold (identical code
// included) is falsely called slower or faster at some look with probability at most Σ_k Σ_i α·w_k/m = α over
// the whole run and family (family-wise), and a benchmark's interval misses its
// true ratio at some look with probability at most 1 − confidence. No correlation between looks is assumed,
// which makes it conservative: a run cut short by its budget simply leaves the unspent shares unused, and the
// error rate falls below α. The t-interval itself is the fixed-sample one of paired.go, with its disturbed
// rounds left out; the simulations in sequential_test.go (drift, correlated load, load spikes) check that the
// family-wise false-alarm rate stays at or below α and that a 3% change is found.
//
// The analysis that result.json records is the one of each benchmark's last look: SequentialPlan carries which
// look that was, so that Analyze of the finished run gives every benchmark the class it stopped with.

// DefaultMaxRounds bounds the rounds of a budgeted run (RunConfig.MaxRounds). Short runs make many rounds
// affordable (see "Short runs, many rounds"), so that the budget, not this bound, ends a run whose benchmarks
// stay unsettled; since the looks grow by half each time, a higher bound costs few looks: 5, 8, 12, 18, 27, 41,
// 62, 93, 140 and 200 rounds are 10 looks, where 40 rounds were 6. (At 100 rounds, 9 looks, three corpus pairs
// stopped at the bound with 75 to 15 s of their 100 s budget left.)
const DefaultMaxRounds = 200

// Short runs, many rounds.
//
// What decides whether a benchmark settles is the spread of its per-round contrasts d_r and how many rounds
// there are: the interval's half-width is t·s_d/√R, and t itself falls fast with R (t(0.99, 4) = 3.7, t(0.99,
// 17) = 2.9). On a shared runner most of the spread comes from bursts — a neighbour on the other hyperthread
// of the host core, the host's own work — that slow a run by 10% to 100% for a fraction of a second to
// seconds. A burst that covers all four runs of a round cancels in d_r; one that starts or ends inside the
// round does not. Shorter runs make a round shorter, so more bursts cover it whole, and give more rounds for
// the same budget. Below ~10 ms a run's fixed cost (a process start, the testing package's first b.N = 1 call,
// 20–45 ms in all here) dominates what the budget buys.
//
// A budgeted run therefore runs every run MinRunTime long, after calibration (never longer than
// RunConfig.BenchTime). Measured on this project's 2-core VM (20 fixed rounds of corpus pairs at 10, 30 and
// 100 ms runs, one after the other), the noise per run was the same or lower at 10 ms, and the 20 rounds took
// a third to a fifth of the time: the demo's fold 8.3%, 9.9% and 13.5% noise in 17, 28 and 59 s;
// cespare/xxhash 5.5%, 5.3% and 9.2% in 22, 33 and 76 s; dchest/siphash 7.0%, 7.8% and 5.1% in 12, 19 and
// 42 s. (An earlier rule fitted runs so that BudgetRounds rounds of every leaf filled the budget: a family of
// a few benchmarks then ran 100 ms runs, and stopped at DefaultMaxRounds with a third of the budget left, or
// used all of it for 40 noisy rounds.) The budget then buys many rounds: at 10 ms, 100 rounds of four
// benchmarks take about 25 s.
const (
	// BudgetRounds is how many rounds of every benchmark a budget should allow at MinRunTime runs (the fourth
	// planned look with the default 5 first rounds: 5, 8, 12, 18); when it does not, the progress says so.
	BudgetRounds = 18
	// MinRunTime is the length of one run of a budgeted run (see "Short runs, many rounds").
	MinRunTime = 10 * time.Millisecond
	// runOverhead is the fixed wall time of one measured run beyond its timed loop, as budgeted: starting the
	// process, the testing package's set-up and its b.N = 1 call.
	runOverhead = 20 * time.Millisecond
)

// fitRuns returns leaves with their iteration counts cut to runs of MinRunTime (see "Short runs, many rounds";
// never longer than RunConfig.BenchTime), and records the run length chosen in r.run.RunTime; left, what is
// left of the budget, only decides whether the progress says that BudgetRounds rounds do not fit. A leaf whose
// calibrated run is already shorter keeps its count.
func (r *runner) fitRuns(leaves []leaf, left time.Duration) []leaf {
	runTime := min(r.cfg.BenchTime, MinRunTime)
	floored := false
	if n := len(leaves); n > 0 {
		floored = left/time.Duration(BudgetRounds*4*n)-runOverhead < runTime
	}
	r.run.RunTime = runTime
	r.progress.fitted(len(leaves), runTime, r.cfg.BenchTime, floored)
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

// SequentialPlan is how a budgeted run spent its error rate: StatsOptions.Sequential.
type SequentialPlan struct {
	Looks  int            // the looks the run planned (len(Looks(first, max))); each spends 1/Looks of alpha
	Family int            // the benchmarks the run timed: the Bonferroni family
	Look   map[string]int // per benchmark, the look (1-based) of its last analysis; a missing one is the last
}

// Share is the share of alpha and of 1-confidence that benchmark name's last look spent.
func (q *SequentialPlan) Share(name string) float64 {
	k, ok := q.Look[name]
	if !ok {
		k = q.Looks
	}
	return spend(k, q.Looks)
}

// spend is the share of the error rate that look k (1-based) of looks spends: the same for every look, so that
// the shares sum to 1.
func spend(k, looks int) float64 {
	return 1 / float64(max(looks, 1))
}

// adjust sets PHolm of every comparison with a paired test to its p-value divided by its look's share alpha
// per benchmark of the family: PHolm < alpha is then the look's test.
func (q *SequentialPlan) adjust(cs []record.Benchmark, tested []bool) {
	for i := range cs {
		if tested[i] {
			cs[i].PHolm = math.Min(1, cs[i].Paired.PMargin*float64(q.Family)/q.Share(cs[i].Name))
		}
	}
}

// Looks returns the planned cumulative rounds at each look of a budgeted run: first, then about half again as
// many each time, ending at most.
func Looks(first, most int) []int {
	first = max(first, 2)
	most = max(most, first)
	out := []int{first}
	for n := first; n < most; {
		n = min(most, n+max(2, (n+1)/2))
		out = append(out, n)
	}
	return out
}

// settled reports whether class c ends a benchmark's timing.
func settled(c record.Class) bool {
	return c == record.ClassSlower || c == record.ClassFaster || c == record.ClassUnchanged
}

// stager runs the looks of a budgeted run: how many rounds the next stage gets, and which benchmarks a look
// settles. It runs nothing itself, so that the simulations drive it as the runner does.
type stager struct {
	opt    StatsOptions // with Sequential set
	looks  []int        // planned cumulative rounds at each look
	names  []string     // the benchmarks, by index
	active []int        // indexes of the benchmarks still timed, in schedule order
	rounds int          // rounds run so far
	looked int          // looks taken
	// counts returns the instruction-count comparisons, nil until they are in (RunConfig.Counts): a look also
	// settles what CombineLanes would settle by them.
	counts func() []record.Benchmark
}

func newStager(names []string, first, most int, opt StatsOptions) *stager {
	looks := Looks(first, most)
	opt.Sequential = &SequentialPlan{Looks: len(looks), Family: len(names), Look: map[string]int{}}
	opt.look = true
	s := &stager{opt: opt, looks: looks, names: names}
	for i := range names {
		s.active = append(s.active, i)
	}
	return s
}

// next returns the rounds of the next stage, given the expected time of one round of the active benchmarks and
// what is left of the budget (left <= 0 with perRound 0: no budget); 0 when the run is over.
func (s *stager) next(perRound, left time.Duration) int {
	if len(s.active) == 0 || s.looked == len(s.looks) {
		return 0
	}
	n := s.looks[s.looked] - s.rounds
	if perRound > 0 {
		n = min(n, int(left/perRound))
	}
	if s.looked == 0 {
		n = max(n, 2)
	}
	return max(n, 0)
}

// retire stops timing benchmark i without a look, e.g. because a side of it failed.
func (s *stager) retire(i int) {
	s.active = slices.DeleteFunc(s.active, func(j int) bool { return j == i })
}

// look takes the look after a stage of n rounds over samples (all of the run so far) and stops timing the
// benchmarks it settles, which it returns by index. Only the samples of the benchmarks still timed are analysed.
func (s *stager) look(samples []Sample, n int) []int {
	s.rounds += n
	s.looked++
	active := map[string]bool{}
	for _, i := range s.active {
		s.opt.Sequential.Look[s.names[i]] = s.looked
		active[s.names[i]] = true
	}
	var mine []Sample
	for _, x := range samples {
		if active[x.Name] {
			mine = append(mine, x)
		}
	}
	cs, err := Analyze(mine, s.opt)
	if err != nil {
		return nil // invalid options: RunABBA checked them
	}
	class, ruledOut := map[string]record.Class{}, map[string]bool{}
	for _, c := range cs {
		if c.Unit == "sec/op" {
			class[c.Name], ruledOut[c.Name] = c.Class, SettledForGate(c, s.opt.ThresholdPct)
		}
	}
	if s.counts != nil {
		// Rule 2 needs the allocations unchanged, and the look's analysis has sec/op only.
		s.settleByCounts(append(cs, allocRows(mine, s.opt)...), class)
	}
	var done []int
	s.active = slices.DeleteFunc(s.active, func(i int) bool {
		if settled(class[s.names[i]]) || ruledOut[s.names[i]] {
			done = append(done, i)
			return true
		}
		return false
	})
	return done
}

// plan is the schedule of the stager's next stage: n more rounds of A–B–B–A of every active leaf.
func (st *stager) plan(n int) []abba.Entry {
	var plan []abba.Entry
	for round := range n {
		for _, i := range st.active {
			for slot, side := range abba.Slots {
				plan = append(plan, abba.Entry{Bench: i, Round: st.rounds + round, Slot: slot, Side: side})
			}
		}
	}
	return plan
}

// pending is the expected wall time of the runs of plan whose leaf and side still run (est: one run of each
// leaf), and of those among them in the given round.
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

// allocRows returns the B/op and allocs/op comparisons of samples as the final analysis gives them, so that a
// look settles by the counts only what CombineLanes settles: equal counts with moved allocations are not the same
// work.
func allocRows(samples []Sample, opt StatsOptions) []record.Benchmark {
	var allocs []Sample
	for _, x := range samples {
		var vs []Value
		for _, v := range x.Values {
			if v.Unit == "B/op" || v.Unit == "allocs/op" {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			x.Values, x.PeakRSS = vs, 0
			allocs = append(allocs, x)
		}
	}
	opt.look = false
	cs, _ := Analyze(allocs, opt) // the options are the look's, which RunABBA checked
	return cs
}

// settleByCounts sets in class the class CombineLanes would give, by the instruction counts, to the inconclusive
// benchmarks of cs (CountClass), once the counts are in. The look's interval is the one the final analysis gives
// a benchmark that stops at this look (its share of the looks), so the stop and the report agree.
func (s *stager) settleByCounts(cs []record.Benchmark, class map[string]record.Class) {
	if s.counts == nil {
		return
	}
	ins := map[string]record.Benchmark{}
	for _, in := range s.counts() {
		if in.Unit == record.UnitInstructions {
			ins[in.Name] = in
		}
	}
	if len(ins) == 0 {
		return
	}
	moved := allocsMoved(cs)
	for _, c := range cs {
		in, ok := ins[c.Name]
		if !ok || c.Unit != record.UnitTime {
			continue
		}
		switch cl := CountClass(c, in, !moved[record.Qualified(c.Package, c.Name)], s.opt.ThresholdPct); cl {
		case record.ClassUnchanged:
			class[c.Name] = cl
		case record.ClassSlower, record.ClassFaster:
			if s.beyondHalf(c) {
				class[c.Name] = cl
			}
		}
	}
}

// lookAgreeAlpha is the two-sided error rate, spent across the looks as the plan spends α, at which a look stops
// a benchmark by rule 3 (counts moved, the time beyond half the threshold the same way). Rule 3 at every look
// must not make a true change within half the threshold fail more often than 1% of runs: by the union bound, the
// looks' stops err on one side with probability at most lookAgreeAlpha/2 = 0.5%, and the final analysis's rule 3
// on what never stopped at most (1 − confidence)/2 times its last look's share, 2.5%/6 at the default 6 looks,
// 0.92% in all.
const lookAgreeAlpha = 0.01

// beyondHalf reports whether the look's paired interval of c, widened to confidence 1 − lookAgreeAlpha × its
// look's share, still lies wholly beyond half the threshold.
func (s *stager) beyondHalf(c record.Benchmark) bool {
	p := c.Paired
	if p == nil || p.Rounds < 2 || !(p.Lo > 0) || !(p.Hi > p.Lo) {
		return false
	}
	w := s.opt.Sequential.Share(c.Name)
	df := float64(p.Rounds - 1)
	conf := 1 - (1-s.opt.Confidence)*w // the level Analyze gave this look's interval
	se := math.Log(p.Hi/p.Lo) / (2 * tQuantile(1-(1-conf)/2, df))
	h := tQuantile(1-lookAgreeAlpha*w/2, df) * se
	m, half := math.Log(p.Ratio), s.opt.ThresholdPct/200
	return m-h > math.Log1p(half) || m+h < math.Log1p(-half)
}

// measureStaged runs a budgeted run: stages of the A–B–B–A schedule over the benchmarks still unsettled, a look
// after each (stager), until all are settled, the looks are used up or the budget, counted from start, is spent.
func (r *runner) measureStaged(ctx context.Context, leaves []leaf, start time.Time) error {
	if r.cfg.BenchTxt != nil {
		r.txt = NewBenchTxt(r.cfg.BenchTxt, r.run.Header, map[record.Side]string{record.Base: r.cfg.Base.Commit,
			record.Head: r.cfg.Head.Commit})
	}
	leaves = r.fitRuns(leaves, time.Until(start.Add(r.cfg.Budget)))
	names := make([]string, len(leaves))
	est := make([]time.Duration, len(leaves)) // expected wall time of one run of each leaf
	for i, l := range leaves {
		names[i] = l.name
		est[i] = time.Duration(float64(l.iters)*l.secPerOp*float64(time.Second)) + 30*time.Millisecond
	}
	st := newStager(names, r.cfg.Rounds, r.cfg.MaxRounds, r.cfg.Stats)
	st.counts = r.cfg.Counts
	r.run.Plan = st.opt.Sequential
	deadline := start.Add(r.cfg.Budget)
	r.progress.deadline = deadline
	dead := map[leafSide]bool{}
	started := time.Now()
	for {
		var perRound time.Duration
		for _, i := range st.active {
			perRound += 4 * est[i]
		}
		n := st.next(perRound, time.Until(deadline))
		if n == 0 {
			break
		}
		planned := st.looks[st.looked]
		plan := st.plan(n)
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
				st.retire(e.Bench)
			}
			if k+1 == len(plan) || plan[k+1].Round != e.Round {
				rest, round := pending(plan[k+1:], est, dead, e.Round+1)
				r.progress.roundDone(e.Round, planned, time.Since(started), min(rest, time.Until(deadline)))
				// The runs took longer than calibration said (a loaded machine): end the stage at this round
				// when the next one would overrun the budget. The first stage still runs two rounds.
				if ran := e.Round + 1 - st.rounds; ran < n && time.Until(deadline) < round && (st.looked > 0 || ran >= 2) {
					n = ran
					break
				}
			}
		}
		for _, i := range st.active {
			if dead[leafSide{i, record.Base}] || dead[leafSide{i, record.Head}] {
				st.retire(i)
			}
		}
		done := st.look(r.run.Samples, n)
		r.run.Stages = st.looked
		r.progress.looked(st.looked, st.rounds, len(done), len(st.active), time.Until(deadline))
	}
	r.progress.done(len(r.run.Samples), len(r.run.Failures), time.Since(started))
	return nil
}
