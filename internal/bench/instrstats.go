package bench

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// DefaultInstrThresholdPct is the relative change of instructions/op, in percent, that is slower or
// faster.
const DefaultInstrThresholdPct = 0.5

// RepeatTolerance is how far, as a fraction, two instruction counts of the same binary may differ.
// Code that does not allocate repeats to a few instructions per million (at most 1.4×10⁻⁵ over this
// repository's gate); code that allocates repeats less well, because when the collector runs moves
// what the benchmark's own code does around it (write barriers on, a span swept): an HTTP router's
// path lookup, 895 instructions an op, counted 894.52 to 894.78 on one binary and 894.90 to 895.23
// on another built from the same code with other comments, 0.03% and 0.04% apart, and up to 0.08%
// in another run. It was 10⁻⁴ before: those benchmarks fell to wall time and its 9–20% noise a
// sample, and stayed inconclusive after a hundred rounds. At 10⁻³, a fifth of the default
// instruction threshold, such counts settle "the same work" (to 0.2%, a tenth of the default time
// threshold), and work seeded by the time (0.3% to 1.1% apart in a B-tree's seeks) is still left to
// wall time.
const RepeatTolerance = 1e-3

// CompareInstructions compares the instructions/op samples of base and head per benchmark and
// classifies them by the rules above, with thresholdPct a percentage from 0 up to 100. Samples in
// other units are ignored. The result is sorted by name. Each Comparison has Unit
// record.UnitInstructions, Exact set, Center the median count of a side, Lo and Hi its smallest and
// largest count, DeltaPct the change of the centers, P and PHolm 0 for slower and faster and 1
// otherwise, NoisePct the larger relative spread of a side's counts (×100), and no Paired estimate.
//
// # Classifying instruction counts
//
// A count of the instructions one operation executes is not a measurement with noise to be tested:
// the lane runs a fixed program for a fixed iteration count, and the count it gets is the count:
// identical code counts the same number, unless the benchmark itself branches on something that
// changes from run to run, such as heap addresses (see benchrun.RunInstructions). So
// CompareInstructions uses no statistical test. It checks that assumption instead, and then
// compares the two numbers:
//
//   - failed: a side has no samples, or two counts of one side (runs of the same binary) differ by
//     more than RepeatTolerance. The count is then not a property of the code, and nothing is
//     concluded from it;
//   - slower: head's count exceeds base's by more than the threshold (default 0.5%);
//   - faster: head's count is below base's by more than the threshold;
//   - unchanged: otherwise. Identical counts give a delta of exactly 0.
//
// Why this is valid: every count that enters a comparison is repeatable to within RepeatTolerance
// (0.1%), which the repeat check has just verified on this run's own A–A and B–B pairs, so the
// delta is known to within about twice that, 0.2%. The classification of a delta farther than that
// from ±threshold (default 0.5%) cannot change from one run to the next: it is deterministic. A
// delta within 0.2% of the threshold is classed the same way and its Note says that it lies within
// the lane's resolution of the threshold. No multiple-comparison correction applies, since no test
// is run.
func CompareInstructions(samples []benchtxt.Sample, thresholdPct float64) ([]record.Benchmark, error) {
	if !(thresholdPct >= 0 && thresholdPct < 100) {
		return nil, fmt.Errorf("instructions threshold %v%%: want a percentage from 0 up to 100, e.g. 0.5", thresholdPct)
	}
	threshold := thresholdPct / 100
	var out []record.Benchmark
	for _, g := range groupSamples(samples, false) {
		if record.CountUnit(g.unit) {
			out = append(out, compareCounts(g, threshold))
		}
	}
	return out, nil
}

func compareCounts(g *group, threshold float64) record.Benchmark {
	c := record.Benchmark{Name: g.name, Unit: g.unit, P: 1, PHolm: 1, Exact: true,
		Base: countSummary(g.base), Head: countSummary(g.head)}
	switch {
	case len(g.base) == 0 && len(g.head) == 0:
		c.Class, c.Note = record.ClassFailed, "no samples"
		return c
	case len(g.base) == 0:
		c.Class, c.Note = record.ClassFailed, "no base samples"
		return c
	case len(g.head) == 0:
		c.Class, c.Note = record.ClassFailed, "no head samples"
		return c
	}
	bs, hs := spread(g.base), spread(g.head)
	c.NoisePct = 100 * math.Max(bs, hs)
	if c.Base.Center > 0 {
		c.DeltaPct = (c.Head.Center/c.Base.Center - 1) * 100
	}
	for _, s := range []struct {
		side   record.Side
		spread float64
		sum    record.Summary
	}{{record.Base, bs, c.Base}, {record.Head, hs, c.Head}} {
		if s.spread > RepeatTolerance && (g.unit == record.UnitEstCycles || g.unit == record.UnitEstCyclesPerByte) {
			// The estimate depends on where data falls in the simulated caches, which allocation
			// and the runtime's own work move between runs: it settles only what repeats.
			c.Class = record.ClassInconclusive
			c.Note = fmt.Sprintf("%s's estimates of one binary range from %.1f to %.1f, %.2f%% apart: the cache "+
				"simulation did not repeat (data placed differently from run to run)", s.side, s.sum.Lo, s.sum.Hi,
				100*s.spread)
			return c
		}
		if s.spread > RepeatTolerance {
			// Not a failure of either side: the benchmark's own work varies between runs of one
			// binary (randomness seeded by the time, I/O). Its count settles nothing (Uncounted);
			// wall time judges it.
			c.Class, c.Uncounted = record.ClassInconclusive, record.UncountedUnrepeatable
			c.Note = fmt.Sprintf("not counted: %s's counts of one binary range from %s to %s, %.4f%% apart (tolerance "+
				"%g%%): the instruction count is not repeatable", s.side, fmtCount(s.sum.Lo), fmtCount(s.sum.Hi),
				100*s.spread, 100*RepeatTolerance)
			return c
		}
	}
	if !(c.Base.Center > 0) {
		c.Class, c.Note = record.ClassFailed, "base counts no instructions per op"
		return c
	}
	delta := c.Head.Center/c.Base.Center - 1
	switch {
	case delta > threshold:
		c.Class = record.ClassSlower
	case delta < -threshold:
		c.Class = record.ClassFaster
	default:
		c.Class = record.ClassUnchanged
	}
	if c.Class != record.ClassUnchanged {
		c.P, c.PHolm = 0, 0
	}
	if res := 2 * RepeatTolerance; math.Abs(math.Abs(delta)-threshold) <= res {
		c.Note = fmt.Sprintf("%+.3f%% is within the lane's resolution (%g%%) of the %g%% threshold",
			100*delta, 100*res, 100*threshold)
	}
	return c
}

// NotCounted says why the instruction-count lane has no usable count of one leaf benchmark
// (Run.Uncounted).
type NotCounted struct {
	Why    record.Uncounted
	Detail string // what the lane saw, e.g. "base's counts of one binary differ by 0.35%"
}

// MarkUncounted marks the instructions/op comparisons of the leaves in why as not counted:
// inconclusive, with Uncounted set and a Note that says why, and without a class of their own to
// give (CombineLanes then judges the benchmark by wall time alone). A leaf without an
// instructions/op row gets one, with no samples. Other count units of such a leaf (est-cycles/op,
// instructions/B) are dropped: they come from the same counts. cs keeps its order; the new rows go
// at the end.
func MarkUncounted(cs []record.Benchmark, why map[string]NotCounted) []record.Benchmark {
	if len(why) == 0 {
		return cs
	}
	seen := map[string]bool{}
	cs = slices.DeleteFunc(cs, func(c record.Benchmark) bool {
		_, ok := why[c.Name]
		return ok && record.CountUnit(c.Unit) && c.Unit != record.UnitInstructions
	})
	for i := range cs {
		c := &cs[i]
		if nc, ok := why[c.Name]; ok && c.Unit == record.UnitInstructions {
			seen[c.Name] = true
			c.Class, c.Uncounted, c.P, c.PHolm = record.ClassInconclusive, nc.Why, 1, 1
			c.Note = "not counted: " + nc.Detail
		}
	}
	for _, name := range slices.Sorted(maps.Keys(why)) {
		if !seen[name] {
			nc := why[name]
			cs = append(cs, record.Benchmark{Name: name, Unit: record.UnitInstructions, Exact: true, P: 1, PHolm: 1,
				Class: record.ClassInconclusive, Uncounted: nc.Why, Note: "not counted: " + nc.Detail})
		}
	}
	return cs
}

// countSummary summarises one side's counts: the median, and the smallest and largest count as the
// range.
func countSummary(xs []float64) record.Summary {
	if len(xs) == 0 {
		return record.Summary{}
	}
	s := slices.Sorted(slices.Values(xs))
	return record.Summary{Center: Median(s), Lo: s[0], Hi: s[len(s)-1], N: len(s)}
}

// spread returns the relative spread (max − min) / min of xs, 0 for fewer than two values.
func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return RelSpread(slices.Min(xs), slices.Max(xs))
}

// MetricNote returns the sentence a report shows when the time lane and the instruction-count lane
// classify one benchmark differently, and "" when they agree or either could not conclude anything
// (failed). byTime is the sec/op comparison, byInstr the instructions/op one; gates names what
// gates the merge ("sec/op", "instructions/op", or "" to leave it unsaid). The note explains the
// disagreement, it does not resolve it:
//
//   - time changed, instructions unchanged: the same instructions run faster or slower, which is
//     code layout, alignment, caches, branch prediction or the machine, none of which an
//     instruction count sees;
//   - instructions changed, time unchanged: the instructions saved or added are off the critical
//     path, as in latency-bound code waiting on memory or on a chain of dependent operations;
//   - the two point in opposite directions, or time is inconclusive where the count is clear: both
//     numbers are quoted.
func MetricNote(byTime, byInstr record.Benchmark, gates string) string {
	tc, ic := byTime.Class, byInstr.Class
	if tc == ic || tc == record.ClassFailed || ic == record.ClassFailed || tc == "" || ic == "" {
		return ""
	}
	moved := func(c record.Class) bool { return c == record.ClassSlower || c == record.ClassFaster }
	t := fmt.Sprintf("%+.1f%%", byTime.DeltaPct)
	if byTime.Paired != nil {
		t = fmt.Sprintf("%+.1f%%", 100*(byTime.Paired.Ratio-1))
	}
	in := fmt.Sprintf("%+.2f%%", byInstr.DeltaPct)
	var note string
	switch {
	case moved(tc) && ic == record.ClassUnchanged:
		note = fmt.Sprintf("time is %s (%s) but instructions/op are unchanged (%s): the same instructions run %s, "+
			"which points at code layout, alignment, caches or the machine rather than at the code's work",
			tc, t, in, map[record.Class]string{record.ClassSlower: "slower", record.ClassFaster: "faster"}[tc])
	case moved(ic) && tc == record.ClassUnchanged:
		verb := map[record.Class]string{record.ClassSlower: "added", record.ClassFaster: "saved"}[ic]
		note = fmt.Sprintf("instructions/op are %s (%s) but time is unchanged (%s): the instructions %s are off "+
			"the critical path, as in latency-bound code (memory, chains of dependent operations)", ic, in, t, verb)
	case moved(tc) && moved(ic):
		note = fmt.Sprintf("time says %s (%s) but instructions/op say %s (%s)", tc, t, ic, in)
	case tc == record.ClassInconclusive && moved(ic):
		note = fmt.Sprintf("time is inconclusive but instructions/op are %s (%s)", ic, in)
	case moved(tc) && ic == record.ClassInconclusive:
		note = fmt.Sprintf("time is %s (%s) but instructions/op are inconclusive", tc, t)
	default:
		note = fmt.Sprintf("time is %s (%s) and instructions/op are %s (%s)", tc, t, ic, in)
	}
	if gates != "" {
		note += "; " + gates + " gates"
	}
	return note
}

// RelSpread returns |x − y| / min(x, y), or +Inf when min(x, y) is not positive and x ≠ y.
func RelSpread(x, y float64) float64 {
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
