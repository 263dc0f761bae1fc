package bench

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// StatsOptions configures Analyze. Start from DefaultStatsOptions.
type StatsOptions struct {
	// Alpha is the family-wise significance level of the Holm-corrected paired tests, in (0, 1).
	// Default 0.05.
	Alpha float64
	// ThresholdPct is the relative change, in percent from 0 up to 100, that slower and faster must
	// exceed and that the unchanged interval must stay within. Default 2. (Percent, as everywhere
	// in perfgate's configuration.)
	ThresholdPct float64
	// Confidence is the level of every confidence interval, in (0, 1). Default 0.95.
	Confidence float64
	// ExactUnits are the units whose values are deterministic counts (benchstat's assume=exact).
	// Default allocs/op and B/op.
	ExactUnits []string
	// UnitThresholdPct overrides ThresholdPct for the units it names, e.g. a tighter threshold for
	// a counted unit such as instructions/op. Exact units need none: any change counts.
	UnitThresholdPct map[string]float64
	// Sequential, when not nil, makes Analyze the analysis of a run that stopped benchmarks as they
	// settled (benchrun.RunConfig.Budget): each benchmark is tested with the share of Alpha and of
	// 1-Confidence its last look spends, Bonferroni-corrected over the whole family, instead of
	// Holm's correction (see sequential.go).
	Sequential *SequentialPlan

	// look, set by the looks of a budgeted run, computes the paired estimate and the class of
	// sec/op only, leaving out benchstat's summaries, which no class depends on.
	look bool
}

// threshold returns the threshold of unit as a fraction.
func (o StatsOptions) threshold(unit string) float64 {
	if t, ok := o.UnitThresholdPct[unit]; ok {
		return t / 100
	}
	return o.ThresholdPct / 100
}

// DefaultStatsOptions are the options perfgate uses unless configured otherwise.
var DefaultStatsOptions = StatsOptions{
	Alpha:        0.05,
	ThresholdPct: 2,
	Confidence:   0.95,
	ExactUnits:   []string{"allocs/op", "B/op"},
}

// Validate reports the first option out of range.
func (o StatsOptions) Validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("stats alpha %v: want a probability in (0, 1), e.g. 0.05", o.Alpha)
	case !(o.ThresholdPct >= 0 && o.ThresholdPct < 100):
		return fmt.Errorf("stats threshold %v%%: want a percentage from 0 up to 100, e.g. 2", o.ThresholdPct)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("stats confidence %v: want a level in (0, 1), e.g. 0.95", o.Confidence)
	}
	for u, t := range o.UnitThresholdPct {
		if !(t >= 0 && t < 100) {
			return fmt.Errorf("stats threshold of %s %v%%: want a percentage from 0 up to 100, e.g. 2", u, t)
		}
	}
	if q := o.Sequential; q != nil && (q.Looks < 1 || q.Family < 1) {
		return fmt.Errorf("sequential plan of %d looks over %d benchmarks: want at least one of each", q.Looks, q.Family)
	}
	return nil
}

// Analyze compares base and head samples per benchmark and unit. The result is sorted by name, then
// unit with sec/op first and the others in lexical order. It returns an error only for invalid
// options.
//
// # Statistics over the samples of an A–B–B–A run
//
// Analyze groups samples by benchmark name and unit and computes, for each group, two things side
// by side:
//
//   - the benchstat comparison (golang.org/x/perf/benchmath): each side's median and its confidence
//     interval (AssumeNothing; AssumeExact for exact units), and the Mann–Whitney U p-value of base
//     against head;
//   - the paired A–B–B–A estimate (see paired.go): the ratio head/base from within-round log
//     ratios, its t-interval, the paired tests' p-values, and the noise floor from the A–A and B–B
//     pairs.
//
// The class gates on the paired estimate, because it cancels drift that the unpaired Mann–Whitney
// test does not see. Its test is not of "no change" but of "a change within half the threshold"
// (Paired.PMargin): a benchmark is called slower only when the data rule out every change up to
// half the threshold, so that code that runs 1% slower from layout alone (a function moved, an
// alignment changed) is not failed at a 2% threshold however many rounds are run. These p-values
// are Holm-corrected across the benchmarks of each unit (the family is one unit), and
//
//   - slower: PHolm < Alpha and the estimate is worse than the threshold (Ratio-1 >
//     ThresholdPct/100 for costs such as sec/op, 1-Ratio > ThresholdPct/100 for rates such as B/s);
//   - faster: the mirror image;
//   - unchanged: otherwise, if the whole paired interval lies inside 1 ± ThresholdPct/100;
//   - inconclusive: otherwise; Note says how far the interval reaches;
//   - failed: a side has no samples, or fewer than two complete rounds (two base and two head
//     samples) remain.
//
// Two shortcuts come first. When every value on both sides is the same the benchmark is unchanged,
// whatever the unit. For exact units (StatsOptions.ExactUnits, by default allocs/op and B/op, which
// a fixed iteration count makes deterministic) whose values are constant within each side, any
// difference is slower or faster with P = PHolm = 0 and no threshold: one allocation more per op is
// a real change. If an exact unit's values vary within a side the assumption is wrong; the group is
// then treated as a measured unit and Note says so.
//
// A sample's peak resident set size (Sample.PeakRSS, the process's own through abba's launcher) is
// compared as one more measured unit, UnitPeakRSS, when both sides know it; it gates when
// gate-units names it.
//
// The perfgate gate uses the sec/op class; other units are classed by the same rules for the
// report.
func Analyze(samples []benchtxt.Sample, opt StatsOptions) ([]record.Benchmark, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	groups := groupSamples(samples, opt.look)
	out := make([]record.Benchmark, 0, len(groups))
	pairedOK := make([]bool, 0, len(groups))
	for _, g := range groups {
		o := opt
		if q := opt.Sequential; q != nil {
			o.Confidence = 1 - (1-opt.Confidence)*q.Share(g.name)
		}
		c, ok := g.compare(o)
		c.Rounds = len(g.rounds)
		out = append(out, c)
		pairedOK = append(pairedOK, ok)
	}
	if q := opt.Sequential; q != nil {
		q.adjust(out, pairedOK)
	} else {
		holmByUnit(out, pairedOK)
	}
	for i := range out {
		c := &out[i]
		c.Tested = pairedOK[i]
		classify(c, opt)
		if c.Note == "" {
			c.Note = strings.Join(c.Warnings, "; ")
		}
		c.DeltaPct, c.P, c.PHolm = finite(c.DeltaPct), finite(c.P), finite(c.PHolm)
		c.NoisePct, c.MDEPct = finite(c.NoisePct), finite(c.MDEPct)
		if p := c.Paired; p != nil {
			p.Ratio, p.Lo, p.Hi, p.Bound = finite(p.Ratio), finite(p.Lo), finite(p.Hi), finite(p.Bound)
		}
	}
	return out, nil
}

// group is the values of one benchmark in one unit.
type group struct {
	name, unit string
	base, head []float64
	rounds     []roundValues // ascending by round
}

// groupSamples collects the samples' values by name and tidied unit, in the order Analyze returns
// them.
func groupSamples(samples []benchtxt.Sample, secOnly bool) []*group {
	type key struct{ name, unit string }
	type roundKey struct {
		key
		round int
	}
	groups := map[key]*group{}
	rounds := map[roundKey]*roundValues{}
	for _, s := range samples {
		values := s.Values
		if s.PeakRSS > 0 && !secOnly {
			values = append(slices.Clip(values), benchtxt.Value{Value: float64(s.PeakRSS), Unit: benchtxt.UnitPeakRSS})
		}
		for _, v := range values {
			if secOnly && v.Unit != "sec/op" {
				continue
			}
			val, unit := benchunit.Tidy(v.Value, v.Unit)
			k := key{s.Name, unit}
			g := groups[k]
			if g == nil {
				g = &group{name: s.Name, unit: unit}
				groups[k] = g
			}
			rk := roundKey{k, s.Round}
			r := rounds[rk]
			if r == nil {
				r = &roundValues{round: s.Round}
				rounds[rk] = r
			}
			sv := slotValue{s.Slot, val}
			switch s.Side {
			case record.Base:
				g.base = append(g.base, val)
				r.base = append(r.base, sv)
			case record.Head:
				g.head = append(g.head, val)
				r.head = append(r.head, sv)
			}
		}
	}
	for rk, r := range rounds {
		groups[rk.key].rounds = append(groups[rk.key].rounds, *r)
	}
	out := make([]*group, 0, len(groups))
	for _, g := range groups {
		if g.unit == benchtxt.UnitPeakRSS && (len(g.base) == 0 || len(g.head) == 0) {
			continue // a peak known on one side only (see abba.Launcher) compares nothing
		}
		sort.Slice(g.rounds, func(i, j int) bool { return g.rounds[i].round < g.rounds[j].round })
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return unitLess(out[i].unit, out[j].unit)
	})
	return out
}

// unitLess orders sec/op first, then lexically.
func unitLess(a, b string) bool {
	if (a == "sec/op") != (b == "sec/op") {
		return a == "sec/op"
	}
	return a < b
}

// compare fills everything but PHolm and, for the statistical cases, Class. It decides Class itself
// for the cases that need no test: a side without samples, identical values, an exact unit. tested
// reports whether the paired p-value takes part in the Holm correction.
func (g *group) compare(opt StatsOptions) (c record.Benchmark, tested bool) {
	c = record.Benchmark{Name: g.name, Unit: g.unit, P: 1, PHolm: 1}
	switch {
	case len(g.base) == 0 && len(g.head) == 0:
		c.Class, c.Note = record.ClassFailed, "no samples"
		return c, false
	case len(g.base) == 0:
		c.Class, c.Note = record.ClassFailed, "no base samples"
		c.Head.N = len(g.head)
		return c, false
	case len(g.head) == 0:
		c.Class, c.Note = record.ClassFailed, "no head samples"
		c.Base.N = len(g.base)
		return c, false
	}
	exactUnit := slices.Contains(opt.ExactUnits, g.unit)
	baseConst, headConst := constant(g.base), constant(g.head)
	identical := baseConst && headConst && g.base[0] == g.head[0]
	c.Exact = exactUnit && baseConst && headConst
	var assume benchmath.Assumption = benchmath.AssumeNothing
	if c.Exact {
		assume = benchmath.AssumeExact
	} else if exactUnit {
		c.Note = "exact unit varies: treated as measured"
	}
	if !opt.look {
		th := &benchmath.Thresholds{CompareAlpha: opt.Alpha}
		// benchmath sorts the slice it is given: pass copies.
		bs := benchmath.NewSample(slices.Clone(g.base), th)
		hs := benchmath.NewSample(slices.Clone(g.head), th)
		var bw, hw []error
		c.Base, bw = summarize(assume, bs, opt.Confidence)
		c.Head, hw = summarize(assume, hs, opt.Confidence)
		cmp := assume.Compare(bs, hs)
		c.P = cmp.P
		c.Warnings = plainWarnings(bw, hw, c.Base.N, c.Head.N, cmp.Warnings)
		if c.Base.Center != 0 {
			c.DeltaPct = (c.Head.Center/c.Base.Center - 1) * 100
		}
	}

	res, dropped, ok := paired(g.rounds, opt.Confidence, opt.threshold(g.unit)/2)
	if ok {
		est := res.est
		est.Bound = res.upper
		if higherIsBetter(g.unit) {
			est.Bound = res.lower
		}
		c.Paired = &est
		c.NoisePct = 100 * res.sigma
		c.MDEPct = 100 * (math.Exp(res.mde) - 1)
	}
	switch {
	case identical:
		c.Class, c.P, c.PHolm = record.ClassUnchanged, 1, 1
		return c, false
	case c.Exact:
		c.Class, c.PHolm, c.Note = record.ClassSlower, c.P, "exact change"
		if (g.head[0] < g.base[0]) != higherIsBetter(g.unit) {
			c.Class = record.ClassFaster
		}
		return c, false
	case ok:
		return c, true
	case slices.ContainsFunc(g.base, notPositive) || slices.ContainsFunc(g.head, notPositive):
		c.Class, c.Note = record.ClassInconclusive, "values not positive: no paired estimate"
	default:
		c.Class = record.ClassFailed
		c.Note = fmt.Sprintf("%d complete rounds, need 2", len(g.rounds)-dropped)
	}
	return c, false
}

func notPositive(x float64) bool { return !(x > 0) || math.IsInf(x, 0) }

// summarize is benchmath's summary of one side, and its warnings. An interval benchmath could not
// compute (too few samples: ±Inf) is 0, 0, since JSON cannot carry infinities.
func summarize(assume benchmath.Assumption, s *benchmath.Sample, confidence float64) (record.Summary, []error) {
	sum := assume.Summary(s, confidence)
	out := record.Summary{Center: finite(sum.Center), Lo: sum.Lo, Hi: sum.Hi, N: len(s.Values)}
	if !isFinite(sum.Lo) || !isFinite(sum.Hi) {
		out.Lo, out.Hi = 0, 0
	}
	return out, sum.Warnings
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// finite maps NaN and ±Inf, which JSON cannot carry, to 0.
func finite(f float64) float64 {
	if isFinite(f) {
		return f
	}
	return 0
}

func constant(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// holmByUnit sets PHolm of every comparison with a paired test to its Holm-adjusted p-value within
// its unit.
func holmByUnit(cs []record.Benchmark, tested []bool) {
	byUnit := map[string][]int{}
	for i, c := range cs {
		if tested[i] {
			byUnit[c.Unit] = append(byUnit[c.Unit], i)
		}
	}
	for _, idx := range byUnit {
		ps := make([]float64, len(idx))
		for j, i := range idx {
			ps[j] = cs[i].Paired.PMargin
		}
		for j, adj := range holm(ps) {
			cs[idx[j]].PHolm = adj
		}
	}
}

// holm returns the Holm–Bonferroni adjusted p-values of ps, in the same order: with p sorted
// ascending, adj(i) = max over j <= i of min(1, (m-j+1)·p(j)) for 1-based ranks. Rejecting where
// adj < alpha controls the family-wise error rate at alpha.
func holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*ps[i]))
		adj[i] = running
	}
	return adj
}

// higherIsBetter reports whether unit is a rate (B/s, ops/s), where a larger head value is an
// improvement.
func higherIsBetter(unit string) bool { return record.HigherIsBetter(unit) }

// classify sets Class, and Note for inconclusive, of a comparison compare left to the paired test,
// by the rules in the file comment.
func classify(c *record.Benchmark, opt StatsOptions) {
	if c.Class != "" {
		return
	}
	worse, better := record.ClassSlower, record.ClassFaster
	if higherIsBetter(c.Unit) {
		worse, better = better, worse
	}
	p := c.Paired
	est := p.Ratio - 1
	significant := c.PHolm < opt.Alpha
	th := opt.threshold(c.Unit)
	switch {
	case significant && est > th:
		c.Class = worse
	case significant && est < -th:
		c.Class = better
	case p.Lo >= 1-th && p.Hi <= 1+th:
		c.Class = record.ClassUnchanged
	default:
		c.Class = record.ClassInconclusive
		if c.Note != "" {
			c.Note += "; "
		}
		c.Note += fmt.Sprintf("interval %+.1f%% to %+.1f%% exceeds ±%g%%", 100*(p.Lo-1), 100*(p.Hi-1), 100*th)
	}
	if rounds := RoundsNote(*p); rounds != "" {
		if c.Note != "" {
			c.Note += "; "
		}
		c.Note += rounds
	}
}

// RoundsNote says which rounds a paired estimate left out and what it saw of the host changing
// state mid-run, and how the interval allowed for it (see "Steps and bursts" in paired.go): "3 of
// 20 rounds disturbed, left out (3 in a burst: the interval and the noise floor are the calm
// rounds')", "the host changed state mid-run (2 levels); the ratio differed between them, so the
// interval is as wide as 2 levels allow". "" when there is nothing to say.
func RoundsNote(p record.Paired) string {
	var parts []string
	if p.Disturbed > 0 {
		s := fmt.Sprintf("%d of %d rounds disturbed, left out", p.Disturbed, p.Disturbed+p.Rounds)
		if p.Bursts > 0 {
			s += fmt.Sprintf(" (%d in a burst: the interval and the noise floor are the calm rounds')", min(p.Bursts, p.Disturbed))
		}
		parts = append(parts, s)
	}
	if p.Regimes > 1 {
		s := fmt.Sprintf("the host changed state mid-run (%d levels)", p.Regimes)
		if p.RegimeEffect {
			s += fmt.Sprintf("; the ratio differed between them, so the interval is as wide as %d levels allow", p.Regimes)
		} else {
			s += "; the ratio did not differ between them"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
