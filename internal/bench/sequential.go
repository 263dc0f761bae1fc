package bench

import (
	"math"

	"github.com/perfgate/perfgate/record"
)

// DefaultMaxRounds bounds the rounds of a budgeted run (benchrun.RunConfig.MaxRounds). Short runs
// make many rounds affordable (see "Short runs, many rounds"), so that the budget, not this bound,
// ends a run whose benchmarks stay unsettled; since the looks grow by half each time, a higher
// bound costs few looks: 5, 8, 12, 18, 27, 41, 62, 93, 140 and 200 rounds are 10 looks, where 40
// rounds were 6. (At 100 rounds, 9 looks, three corpus pairs stopped at the bound with 75 to 15 s
// of their 100 s budget left.)
const DefaultMaxRounds = 200

// SequentialPlan is how a budgeted run spent its error rate: StatsOptions.Sequential.
//
// # A time budget, and why looking after every stage stays honest
//
// With benchrun.RunConfig.Budget set, rounds run in stages. The first stage runs
// benchrun.RunConfig.Rounds rounds of every benchmark; each later one brings the benchmarks still
// running to the next planned total (Looks: each about half again as many rounds as the last, up to
// benchrun.RunConfig.MaxRounds). After every stage the run looks: it analyses the samples so far,
// and a benchmark whose sec/op class is settled (slower, faster or unchanged), or whose one-sided
// bound already rules out a slowdown beyond the threshold (SettledForGate), stops being timed, so
// that the rest of the budget goes to the unsettled ones. The run ends when every benchmark has
// settled, when the planned looks are used up, or when the next stage's first round would not fit
// in what is left of the budget (the first stage is cut to fit as well, but always runs two
// rounds).
//
// Looking repeatedly at accumulating data and stopping at the first significant look inflates false
// alarms: with five looks at α = 5% each, identical code would be called "slower" far more often
// than 5% of the time. The run therefore spends its error rate across the looks, a group-sequential
// design with a Bonferroni spending function: each of the K planned looks spends the same share w_k
// = 1/K of α (and of 1 − confidence), whichever benchmarks are still running. Equal shares suit
// runs that reach their later looks, as budgeted runs do since their runs are short (see "Short
// runs, many rounds"): in simulation (35 benchmarks, a budget of 20 rounds of each, drift, AR(1)
// load and spikes, 60 runs) equal shares settled 94.8%, 56% and 18% of A/A benchmarks at 1.5%, 2%
// and 2.5% noise per run, where halving shares (2^-k, which favours the first looks) settled 92.3%,
// 34% and 8%, and found a 3% change more often (51 against 38 of 60 at 2%). Halving had won (96.5%
// against 93%) when a budget bought 9 rounds of 100 ms runs and the later looks were rarely
// reached. At look k a benchmark is
//
//   - slower or faster when its paired test's p-value (of a change within half the threshold,
//     paired.go) is below α·w_k/m, with m the number of benchmarks the run times (Bonferroni over
//     the family), and its estimate lies beyond the threshold;
//   - unchanged when its paired interval at confidence 1 − (1 − confidence)·w_k lies inside
//     ±threshold;
//   - otherwise still running, or inconclusive at the last look.
//
// Validity follows from the union bound alone, so it holds whatever the stopping rule, the budget
// or the order of the benchmarks does: code whose true change is within half the threshold
// (identical code included) is falsely called slower or faster at some look with probability at
// most Σ_k Σ_i α·w_k/m = α over the whole run and family (family-wise), and a benchmark's interval
// misses its true ratio at some look with probability at most 1 − confidence. No correlation
// between looks is assumed, which makes it conservative: a run cut short by its budget simply
// leaves the unspent shares unused, and the error rate falls below α. The t-interval itself is the
// fixed-sample one of paired.go, with its disturbed rounds left out; the simulations in
// sequential_test.go (drift, correlated load, load spikes) check that the family-wise false-alarm
// rate stays at or below α and that a 3% change is found.
//
// The analysis that result.json records is the one of each benchmark's last look: SequentialPlan
// carries which look that was, so that Analyze of the finished run gives every benchmark the class
// it stopped with.
type SequentialPlan struct {
	// the looks the run planned (len(Looks(first, max))); each spends 1/Looks of alpha
	Looks  int
	Family int // the benchmarks the run timed: the Bonferroni family
	// per benchmark, the look (1-based) of its last analysis; a missing one is the last
	Look map[string]int
}

// Share is the share of alpha and of 1-confidence that benchmark name's last look spent.
func (q *SequentialPlan) Share(name string) float64 {
	k, ok := q.Look[name]
	if !ok {
		k = q.Looks
	}
	return spend(k, q.Looks)
}

// spend is the share of the error rate that look k (1-based) of looks spends: the same for every
// look, so that the shares sum to 1.
func spend(k, looks int) float64 {
	return 1 / float64(max(looks, 1))
}

// adjust sets PHolm of every comparison with a paired test to its p-value divided by its look's
// share alpha per benchmark of the family: PHolm < alpha is then the look's test.
func (q *SequentialPlan) adjust(cs []record.Benchmark, tested []bool) {
	for i := range cs {
		if tested[i] {
			cs[i].PHolm = math.Min(1, cs[i].Paired.PMargin*float64(q.Family)/q.Share(cs[i].Name))
		}
	}
}

// Looks returns the planned cumulative rounds at each look of a budgeted run: first, then about
// half again as many each time, ending at most.
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
