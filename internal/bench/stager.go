package bench

import (
	"math"
	"slices"
	"time"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// Stager runs the looks of a budgeted run (sequential.go): how many rounds the next stage gets, and
// which benchmarks a look settles. It runs nothing itself: package benchrun's staged runner drives
// it, and the simulations in sequential_test.go drive it as that runner does.
type Stager struct {
	opt    StatsOptions // with Sequential set
	looks  []int        // planned cumulative rounds at each look
	names  []string     // the benchmarks, by index
	active []int        // indexes of the benchmarks still timed, in schedule order
	rounds int          // rounds run so far
	looked int          // looks taken
	// Counts returns the instruction-count comparisons, nil until they are in
	// (benchrun.RunConfig.Counts): a look also settles what CombineLanes would settle by them.
	Counts func() []record.Benchmark
}

// NewStager plans the looks of a budgeted run over the benchmarks names: first rounds at the first
// look, at most most in all (Looks), each look analysed with opt.
func NewStager(names []string, first, most int, opt StatsOptions) *Stager {
	looks := Looks(first, most)
	opt.Sequential = &SequentialPlan{Looks: len(looks), Family: len(names), Look: map[string]int{}}
	opt.look = true
	s := &Stager{opt: opt, looks: looks, names: names}
	for i := range names {
		s.active = append(s.active, i)
	}
	return s
}

// Next returns the rounds of the next stage, given the expected time of one round of the active
// benchmarks and what is left of the budget (left <= 0 with perRound 0: no budget); 0 when the run
// is over.
func (s *Stager) Next(perRound, left time.Duration) int {
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

// Retire stops timing benchmark i without a look, e.g. because a side of it failed.
func (s *Stager) Retire(i int) {
	s.active = slices.DeleteFunc(s.active, func(j int) bool { return j == i })
}

// Look takes the look after a stage of n rounds over samples (all of the run so far) and stops
// timing the benchmarks it settles, which it returns by index. Only the samples of the benchmarks
// still timed are analysed.
func (s *Stager) Look(samples []benchtxt.Sample, n int) []int {
	s.rounds += n
	s.looked++
	active := map[string]bool{}
	for _, i := range s.active {
		s.opt.Sequential.Look[s.names[i]] = s.looked
		active[s.names[i]] = true
	}
	var mine []benchtxt.Sample
	for _, x := range samples {
		if active[x.Name] {
			mine = append(mine, x)
		}
	}
	cs, err := Analyze(mine, s.opt)
	if err != nil {
		return nil // invalid options: benchrun.RunABBA checked them
	}
	class, ruledOut := map[string]record.Class{}, map[string]bool{}
	for _, c := range cs {
		if c.Unit == "sec/op" {
			class[c.Name] = c.Class
			// Settled for the gate (a slowdown beyond the threshold ruled out) stops a benchmark
			// only from DefaultRounds on: before that too few samples can give any class (benchmath
			// wants more per side than three rounds give at the looks' alpha), so a clear speedup
			// would end "inconclusive" though a round or two more call it faster.
			ruledOut[c.Name] = s.rounds >= DefaultRounds && SettledForGate(c, s.opt.ThresholdPct)
		}
	}
	if s.Counts != nil {
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

// allocRows returns the B/op and allocs/op comparisons of samples as the final analysis gives them,
// so that a look settles by the counts only what CombineLanes settles: equal counts with moved
// allocations are not the same work.
func allocRows(samples []benchtxt.Sample, opt StatsOptions) []record.Benchmark {
	var allocs []benchtxt.Sample
	for _, x := range samples {
		var vs []benchtxt.Value
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
	cs, _ := Analyze(allocs, opt) // the options are the look's, which benchrun.RunABBA checked
	return cs
}

// settleByCounts sets in class the class CombineLanes would give, by the instruction counts, to the
// inconclusive benchmarks of cs (CountClass), once the counts are in. The look's interval is the
// one the final analysis gives a benchmark that stops at this look (its share of the looks), so the
// stop and the report agree.
func (s *Stager) settleByCounts(cs []record.Benchmark, class map[string]record.Class) {
	if s.Counts == nil {
		return
	}
	ins := map[string]record.Benchmark{}
	for _, in := range s.Counts() {
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

// lookAgreeAlpha is the two-sided error rate, spent across the looks as the plan spends α, at which
// a look stops a benchmark by rule 3 (counts moved, the time beyond half the threshold the same
// way). Rule 3 at every look must not make a true change within half the threshold fail more often
// than 1% of runs: by the union bound, the looks' stops err on one side with probability at most
// lookAgreeAlpha/2 = 0.5%, and the final analysis's rule 3 on what never stopped at most (1 −
// confidence)/2 times its last look's share, 2.5%/6 at the default 6 looks, 0.92% in all.
const lookAgreeAlpha = 0.01

// beyondHalf reports whether the look's paired interval of c, widened to confidence 1 −
// lookAgreeAlpha × its look's share, still lies wholly beyond half the threshold.
func (s *Stager) beyondHalf(c record.Benchmark) bool {
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

// Active returns the indexes of the benchmarks still timed, in schedule order.
func (s *Stager) Active() []int { return s.active }

// Rounds returns the rounds run so far, as the looks counted them.
func (s *Stager) Rounds() int { return s.rounds }

// Looked returns the looks taken so far.
func (s *Stager) Looked() int { return s.looked }

// Planned returns the cumulative rounds the next look is planned at; valid while Next returns more
// rounds.
func (s *Stager) Planned() int { return s.looks[s.looked] }

// Sequential returns the plan of the looks, which Analyze of the finished run reads
// (StatsOptions.Sequential).
func (s *Stager) Sequential() *SequentialPlan { return s.opt.Sequential }
