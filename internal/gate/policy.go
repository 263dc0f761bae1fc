package gate

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// DefaultUnits are the units that gate unless Policy.GateUnits says otherwise: time, and
// allocations, which are exact, so that one more allocation per op fails the gate. B/op and B/s are
// reported only.
var DefaultUnits = []string{record.UnitTime, "allocs/op"}

// LaneUnits returns the units that the lanes which ran under metric (Method.Metric; "" is time)
// measure: sec/op for time, instructions/op for instructions, and both for both, where a slower in
// either fails the gate and the acknowledgements (label, thresholds) apply to each alike.
func LaneUnits(metric string) []string {
	switch metric {
	case record.MetricInstructions:
		return []string{record.UnitInstructions}
	case record.MetricBoth:
		return []string{record.UnitTime, record.UnitInstructions}
	}
	return []string{record.UnitTime}
}

// IsLaneUnit reports whether unit is one of LaneUnits(metric).
func IsLaneUnit(metric, unit string) bool { return slices.Contains(LaneUnits(metric), unit) }

// Policy is what the gate needs of a Config: when a slower benchmark or a grown package fails the
// merge.
type Policy struct {
	// Thresholds acknowledges slower benchmarks per name: a benchmark whose name matches the
	// regular expression and whose estimated slowdown in percent stays within the value passes.
	Thresholds map[string]float64
	// AcknowledgeLabel is the pull-request label that acknowledges every slower benchmark, and
	// Acknowledged says the pull request carries it.
	AcknowledgeLabel string
	Acknowledged     bool
	// MaxSizeGrowth fails the gate when the package's sections grow by more than this many bytes; 0
	// for no limit.
	MaxSizeGrowth int64
	// Differential says the differential check was asked for.
	Differential bool
	// ConstantTime is the constant-time mode: under record.CTFailNew, an operation that base traced
	// clean and in which head shows secret-dependent branches or memory accesses fails the gate.
	ConstantTime record.ConstantTimeMode
	// GateUnits are the units whose slower class fails the gate; nil means DefaultUnits. Each unit
	// is classed by its own rule (package bench: a threshold for measured units, any change for
	// exact ones), so a new unit gates by being listed here.
	GateUnits []string
	// OnInconclusive is what a comparison whose gating benchmarks stay inconclusive does to the
	// merge: "fail" (the default, also for "") exits ExitInconclusive, "pass" exits 0; the status
	// is inconclusive either way.
	OnInconclusive string
	// Limits fail the gate when head's figure of a benchmark exceeds them, whatever base's was:
	// benchmark-name regular expression → unit → the largest value head may have. The acknowledge
	// label does not lift them.
	Limits map[string]map[string]float64
}

// The values of Policy.OnInconclusive.
const (
	OnInconclusiveFail = "fail"
	OnInconclusivePass = "pass"
)

// Fails reports whether a slower benchmark in unit fails the gate under metric: a lane's unit when
// that lane ran (and, for time, p lists it), any other unit when p lists it (GateUnits, else
// DefaultUnits).
func (p *Policy) Fails(metric, unit string) bool {
	if (unit == record.UnitTime || unit == record.UnitInstructions) && !IsLaneUnit(metric, unit) {
		return false
	}
	if unit == record.UnitInstructions {
		return true
	}
	units := p.GateUnits
	if units == nil {
		units = DefaultUnits
	}
	return slices.Contains(units, unit)
}

// AckName is how Verdict.AcknowledgedBenchmarks names a slower benchmark: its name for sec/op, its
// name and unit ("Encrypt/des/single allocs/op") for another unit. Benchmark names hold no spaces.
func AckName(b record.Benchmark) string {
	name := record.Qualified(b.Package, b.Name)
	if b.Unit == record.UnitTime {
		return name
	}
	return name + " " + b.Unit
}

// Decide is the gate: it returns the Verdict on r under p and changes nothing. The gate fails on a
// head that did not build (r.HeadBuildFailed) or whose tests fail, a differential mismatch, a
// benchmark that crashed or hung on head, a benchmark slower in a unit of p.GateUnits (more time,
// more allocations) that p does not acknowledge, a limit exceeded, and size growth beyond
// p.MaxSizeGrowth. It never passes what it did not check: a differential check that perfgate could
// not run (status error), counts of the instruction lane that did not repeat, a comparison in which
// no check ran (Verdict.Checks), and an incomplete result are errors (exit code 3).
//
// What was found stands above what could not run: a failure is a failure (exit 1) whatever else
// could not run, and the errors are listed beside it in the reasons; the verdict is an error only
// when nothing definite was found. A gating benchmark that stays inconclusive blocks only while a
// slowdown beyond its threshold is not ruled out (see inconclusive). A differential check that base
// failed (not comparable) is a note. What the gate noticed without failing is in Verdict.Notes, and
// the slower benchmarks it let pass are in Verdict.Acknowledged (why) and
// Verdict.AcknowledgedBenchmarks (which).
func Decide(r record.Result, p Policy) record.Verdict {
	d := &decision{v: record.Verdict{Status: record.StatusPass, ExitCode: record.ExitPass, Reasons: []string{}}}
	if r.HeadBuildFailed {
		d.fail("head does not build")
	}
	if r.Functional.Head.Ran && !r.Functional.Head.Passed {
		d.fail("head's tests fail")
	}
	d.differential(r.Differential)
	d.constantTime(r.ConstantTime, p.ConstantTime)
	unrepeatable := d.failures(r)
	d.slower(r, p)
	for _, over := range p.overLimits(r.Benchmarks) {
		d.fail("%s", over)
	}
	if p.MaxSizeGrowth > 0 {
		var delta int64
		for _, s := range r.Sizes.Sections {
			delta += s.Head - s.Base
		}
		if delta > p.MaxSizeGrowth {
			d.fail("the package grew by %d bytes, more than max-size-growth %d", delta, p.MaxSizeGrowth)
		}
	}
	d.inconclusive(r, p)
	if len(unrepeatable) > 0 {
		// An error, not a failure of head: the instruction-count lane that cannot count exactly
		// checked nothing.
		d.cannot(fmt.Sprintf("the instruction-count lane could not count exactly: two runs of one binary disagree "+
			"for %s; this is a failure of the lane, not of head", strings.Join(unrepeatable, ", ")))
	}
	d.v.Checks = checks(r, p)
	if r.Differential.Status == record.DiffError {
		d.cannot("perfgate could not run the differential check: " + r.Differential.Reason +
			"; to run without it, set differential: false in .perfgate.yml (flag -differential=false)")
	}
	ran := slices.ContainsFunc(d.v.Checks, func(c record.Check) bool { return c.Ran && c.Name != record.CheckSandbox })
	if d.v.Status == record.StatusPass && !r.Incomplete && !ran {
		var why []string
		for _, c := range d.v.Checks {
			why = append(why, c.Name+": "+c.Detail)
		}
		d.cannot(reasonNothingChecked + " (" + strings.Join(why, "; ") + ")")
	}
	if r.Incomplete {
		d.cannot(reasonUnfinished)
	}
	return d.v
}

// decision is a verdict on its way through Decide.
type decision struct{ v record.Verdict }

// fail adds a reason and fails the verdict: something definite was found, which stands above
// anything that could not run.
func (d *decision) fail(format string, args ...any) {
	d.v.Reasons = append(d.v.Reasons, fmt.Sprintf(format, args...))
	d.v.Status, d.v.ExitCode = record.StatusFail, record.ExitFail
}

// cannot adds a reason and makes the verdict an error, unless it already fails: perfgate could not
// check something, and nothing definite was found.
func (d *decision) cannot(reason string) {
	d.v.Reasons = append(d.v.Reasons, reason)
	if d.v.Status != record.StatusFail {
		d.v.Status, d.v.ExitCode = record.StatusError, record.ExitCannotRun
	}
}

// differential fails on a mismatch or a head that failed the check, and notes a check base failed.
func (d *decision) differential(diff record.Differential) {
	switch {
	case diff.Status == record.DiffMismatch && diff.Reason != "":
		d.fail("differential check: %s", diff.Reason)
	case diff.Status == record.DiffMismatch:
		d.fail("differential check: head computes different bytes (%d mismatches)", totalMismatches(diff))
	case diff.HeadFailed && diff.Status != record.DiffError:
		d.fail("differential check: head failed: %s", diff.Reason)
	case diff.Status == record.DiffNotComparable:
		d.v.Notes = append(d.v.Notes, "differential check not comparable, which does not block the gate: "+diff.Reason)
	}
}

// failures fails on benchmarks that crashed or hung on head (or with head's benchmark code on base)
// in a native run, and on a head that kept none of base's benchmarks; a failure under a measuring
// tool (Failure.Under) is a note. It returns the benchmarks whose counts did not repeat, which are
// a failure of the instruction-count lane on either side, not of head.
func (d *decision) failures(r record.Result) (unrepeatable []string) {
	headFailures := map[string]bool{}
	removed := 0
	for _, f := range r.Failures {
		name := record.Qualified(f.Package, f.Name)
		if f.Under != "" {
			// A measuring tool's failure is that lane's, never the code's: only a native run's is a
			// finding.
			d.v.Notes = append(d.v.Notes, fmt.Sprintf("benchmark %s failed under %s on %s, which is the tool's "+
				"failure, not the code's: %s", name, f.Under, f.Side, firstLine(f.Message)))
			continue
		}
		if f.Kind == record.FailureUnrepeatable {
			unrepeatable = append(unrepeatable, fmt.Sprintf("%s (%s)", name, f.Side))
			continue
		}
		if headCodeOnBase(r.Method, f) && !headFailures[name] {
			// Base ran head's benchmark code (like-for-like) and it crashed or hung: head's code is
			// at fault.
			headFailures[name] = true
			d.fail("benchmark %s fails with head's benchmark code (%s, on base built with head's test files)", name, f.Kind)
			continue
		}
		if f.Side != record.Head || headFailures[name] {
			continue
		}
		headFailures[name] = true
		switch f.Kind {
		case record.FailureRemoved:
			removed++ // the pipeline notes which ones
		case record.FailureNoResult:
			// Removed or skipped on head: nothing crashed, and there is nothing to compare.
			d.v.Notes = append(d.v.Notes, fmt.Sprintf("benchmark %s printed no result on head (removed or skipped?)", name))
		default:
			d.fail("benchmark %s fails on head (%s)", name, f.Kind)
		}
	}
	if removed > 0 && !anyCompared(r.Benchmarks, r.Method.Metric) {
		d.fail("head has none of base's benchmarks (%d removed or renamed): nothing could be compared", removed)
	}
	return unrepeatable
}

// slower fails on each slower benchmark in a unit that gates, unless p acknowledges it or the
// binaries are the same.
func (d *decision) slower(r record.Result, p Policy) {
	patterns := p.compiledThresholds()
	for _, b := range r.Benchmarks {
		if b.Class != record.ClassSlower || !p.Fails(r.Method.Metric, b.Unit) {
			continue
		}
		why, ok := "", false
		if r.Method.BinariesSame {
			// Byte-identical test binaries run the same instructions: a difference can only be
			// noise (a false positive of the test, which an A/A run exists to show), never a
			// regression to block.
			why, ok = fmt.Sprintf("base and head test binaries are byte-identical, so %+.1f%% is noise", pctOf(b)), true
		} else {
			why, ok = p.acknowledges(patterns, b)
		}
		if !ok {
			d.fail("%s", worse(b, r.Method))
			continue
		}
		d.v.Acknowledged = append(d.v.Acknowledged, AckName(b)+": "+why)
		d.v.AcknowledgedBenchmarks = append(d.v.AcknowledgedBenchmarks, AckName(b))
	}
}

// inconclusive makes a passing verdict inconclusive when gating benchmarks of r (a unit the gate
// counts, timed, not acknowledged by the label) are inconclusive and a slowdown beyond their
// threshold is not ruled out: a run that could not tell does not say PASS. The gate's question is
// one-sided: an inconclusive benchmark whose one-sided bound (RulesOutWorse) lies
// within its threshold (the run's, or a larger one of p.Thresholds that matches it) answers it no,
// and does not block; the verdict names it in a note and in RuledOutBenchmarks. The reason says
// what could not be told, how wide the intervals were, and what would settle it; the exit code
// follows p.OnInconclusive. A verdict that already fails stays a failure, with the inconclusive
// benchmarks in a note.
//
// Why block by default: a gate that passes what it could not measure passes every regression on a
// noisy runner, which is when regressions slip through (at load 2–2.5 a +9.5% change came out
// inconclusive in every benchmark, and passed). The status and exit code differ from a failure, so
// a maintainer sees that nothing was found slower, and the acknowledge label lets the pull request
// through. With the instruction-count lane (metric auto), equal counts settle most inconclusive
// benchmarks, so this is rare where valgrind exists.
func (d *decision) inconclusive(r record.Result, p Policy) {
	v := &d.v
	if r.Method.BinariesSame {
		return // byte-identical test binaries run the same instructions: there was nothing to tell
	}
	patterns := p.compiledThresholds()
	var names, ruledOut []string
	var open []record.Benchmark
	for _, b := range r.Benchmarks {
		if b.Class != record.ClassInconclusive || !p.Fails(r.Method.Metric, b.Unit) {
			continue
		}
		if th, ok := rulesOut(patterns, r.Method, b); ok {
			ruledOut = append(ruledOut, fmt.Sprintf("%s (%s)", AckName(b), boundOf(b, th)))
			v.RuledOutBenchmarks = append(v.RuledOutBenchmarks, AckName(b))
			continue
		}
		names = append(names, AckName(b)+intervalOf(b))
		open = append(open, b)
	}
	if len(ruledOut) > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%s inconclusive, but a slowdown beyond the threshold is ruled out, so "+
			"not blocking: %s", text.Plural(len(ruledOut), "benchmark"), strings.Join(ruledOut, ", ")))
	}
	if len(names) == 0 {
		return
	}
	what := fmt.Sprintf("%s could not be told changed or unchanged within ±%g%%, and a slowdown beyond +%g%% is not "+
		"ruled out: %s", text.Plural(len(names), "benchmark"), r.Method.Threshold, r.Method.Threshold, strings.Join(names, ", "))
	settle := "a longer budget, a quieter runner, or metric auto (valgrind) would settle them"
	if r.Method.Metric == record.MetricAuto {
		settle = "a longer budget or a quieter runner would settle them (where the instruction counts moved, they " +
			"say the work changed, not which way the time went)"
	}
	if noisy := hostNoise(r.Method, open); noisy != "" {
		settle = noisy
	}
	switch {
	case v.Status != record.StatusPass:
		v.Notes = append(v.Notes, what)
	default:
		// Inconclusive is a status of its own whatever the policy: a run that could not tell never
		// says PASS. The policy decides only the exit code, that is, whether the merge is blocked.
		v.Status, v.ExitCode = record.StatusInconclusive, record.ExitInconclusive
		how := "on-inconclusive: fail, so the merge is blocked until they settle"
		switch {
		case p.Acknowledged:
			v.ExitCode = record.ExitPass
			how = "the pull request's " + p.AcknowledgeLabel + " label lets them through"
		case p.OnInconclusive == OnInconclusivePass:
			v.ExitCode = record.ExitPass
			how = "on-inconclusive: pass, so the merge is not blocked"
		}
		v.Reasons = append(v.Reasons, what+"; "+settle+"; "+how)
	}
}

// RulesOut reports whether the inconclusive row b is ruled out as the gate rules it out (under m's
// thresholds, or a larger one of p.Thresholds that matches it): its one-sided bound lies within the
// threshold, so it does not block the merge. The pipeline asks before the gate decides (which
// benchmarks to explain); afterwards, Benchmark.RuledOut says the same.
func (p *Policy) RulesOut(m record.Method, b record.Benchmark) bool {
	_, ok := rulesOut(p.compiledThresholds(), m, b)
	return ok
}

// rulesOut reports whether the inconclusive benchmark b rules out a change for the worse beyond its
// threshold, and which threshold in percent: the run's (m.Threshold; m.InstrThreshold for
// instructions/op), or a larger one of patterns that matches its name.
func rulesOut(patterns []thresholdPattern, m record.Method, b record.Benchmark) (float64, bool) {
	th := m.Threshold
	if b.Unit == record.UnitInstructions {
		th = m.InstrThreshold
	}
	if RulesOutWorse(b, th) {
		return th, true
	}
	for _, t := range patterns {
		if t.pct > th && t.re.MatchString(b.Name) && RulesOutWorse(b, t.pct) {
			return t.pct, true
		}
	}
	return 0, false
}

// boundOf says where b's interval and one-sided bound lie, against threshold th in percent: "-4.1%
// to -0.8%; one-sided bound -0.9%, within +2%" (for a rate such as B/s the bound is the lower one,
// within -th).
func boundOf(b record.Benchmark, th float64) string {
	p := b.Paired
	within := fmt.Sprintf("%+g%%", th)
	if record.HigherIsBetter(b.Unit) {
		within = fmt.Sprintf("%+g%%", -th)
	}
	return fmt.Sprintf("%+.1f%% to %+.1f%%; one-sided bound %+.1f%%, within %s", 100*(p.Lo-1), 100*(p.Hi-1),
		100*(p.Bound-1), within)
}

// overLimits says, for every benchmark of bs whose head figure exceeds a limit of p.Limits that
// matches its name and unit, how far: "Encrypt/des: instructions/op on head 160,123, above its
// limit 150,000 (limits: Encrypt/.*)". Only head is read: a limit holds whatever base did.
func (p *Policy) overLimits(bs []record.Benchmark) []string {
	var out []string
	for _, pat := range slices.Sorted(maps.Keys(p.Limits)) {
		re, err := regexp.Compile(pat)
		if err != nil {
			continue // Validate reports it
		}
		for _, b := range bs {
			limit, ok := p.Limits[pat][b.Unit]
			if !ok || b.Head.N == 0 || !re.MatchString(b.Name) || !(b.Head.Center > limit) {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s on head %s, above its limit %s (limits: %s)",
				record.Qualified(b.Package, b.Name), b.Unit, figure(b.Head.Center), figure(limit), pat))
		}
	}
	return out
}

// figure formats a limit or a figure: whole numbers with thousands separators, others with 4
// significant digits.
func figure(v float64) string {
	if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatInt(int64(math.Abs(v)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if v < 0 {
		s = "-" + s
	}
	return s
}

// intervalOf is " (−8.0% to +29.0%)" for a benchmark with a paired interval, "" otherwise.
func intervalOf(b record.Benchmark) string {
	if b.Paired == nil {
		return ""
	}
	return fmt.Sprintf(" (%+.1f%% to %+.1f%%)", 100*(b.Paired.Lo-1), 100*(b.Paired.Hi-1))
}

// headCodeOnBase reports whether f is a crash or hang on base's side of benchmark code that head
// changed and base ran (Method.BenchSource "head"), so that head's benchmark code is what failed.
func headCodeOnBase(m record.Method, f record.Failure) bool {
	if f.Side != record.Base || m.BenchSource != record.BenchSourceHead {
		return false
	}
	switch f.Kind {
	case record.FailurePanic, record.FailureTimeout, record.FailureExit:
	default:
		return false
	}
	top, _, _ := strings.Cut(f.Name, "/")
	return slices.Contains(m.BenchChanged, top)
}

// benchmarksCheck says whether the benchmarks ran: when one of them was compared in the gated unit,
// by timing or by finding the same machine code on both sides.
func benchmarksCheck(r record.Result, p Policy) (record.Check, bool) {
	bench := record.Check{Name: record.CheckBenchmarks}
	compared, same := map[string]bool{}, 0
	for _, b := range r.Benchmarks {
		if IsLaneUnit(r.Method.Metric, b.Unit) && b.Class != record.ClassFailed {
			compared[b.Name] = true
			if b.SameCode && b.Rounds == 0 {
				same++ // answered by comparing machine code, which is a check of speed too
			}
		}
	}
	n := len(compared)
	switch {
	case n > 0 && same == n:
		bench.Ran, bench.Detail = true, text.Plural(n, "benchmark")+": "+record.NoteSameCode
	case n > 0 && same > 0:
		bench.Ran, bench.Detail = true, fmt.Sprintf("%s (%d by %s)", text.Plural(n, "benchmark"), same, record.NoteSameCode)
	case n > 0:
		bench.Ran, bench.Detail = true, text.Plural(n, "benchmark")
	case len(r.Benchmarks) == 0 && len(r.Failures) == 0:
		bench.Detail = "no benchmarks"
	default:
		bench.Detail = "no benchmark ran on both sides"
	}
	return bench, true
}

// differentialCheck says whether the differential check ran: when it compared outputs (identical or
// mismatch; a head that failed it counts too).
func differentialCheck(r record.Result, p Policy) (record.Check, bool) {
	d := r.Differential
	diff := record.Check{Name: record.CheckDifferential}
	switch {
	case d.Status == record.DiffIdentical || d.Status == record.DiffMismatch:
		diff.Ran, diff.Detail = true, text.Plural(len(d.Ciphers), "constructor")
	case d.HeadFailed && d.Status != record.DiffError:
		diff.Ran, diff.Detail = true, "head failed"
	case !p.Differential:
		diff.Detail = "disabled by configuration"
	case d.Status == record.DiffSkipped && d.NoConstructors:
		diff.Detail = "no cipher constructor"
	case d.Status == record.DiffSkipped && d.Reason != "":
		diff.Detail = d.Reason
	case d.Status == record.DiffSkipped || d.Status == "":
		diff.Detail = "not run"
	case d.Status == record.DiffNotComparable:
		diff.Detail = "base failed"
	default:
		diff.Detail = "could not run"
	}
	return diff, true
}

// sizeCheck says whether size growth was checked: when p sets a limit and the sizes were measured.
func sizeCheck(r record.Result, p Policy) (record.Check, bool) {
	size := record.Check{Name: record.CheckSize}
	switch {
	case p.MaxSizeGrowth == 0:
		size.Detail = "no max-size-growth set (sizes are reported only)"
	case r.Sizes.Error != "" || len(r.Sizes.Sections) == 0:
		size.Detail = "not measured"
	default:
		size.Ran, size.Detail = true, fmt.Sprintf("growth limit %d bytes", p.MaxSizeGrowth)
	}
	return size, true
}

// reasonUnfinished is the reason Decide gives an incomplete result.
const reasonUnfinished = "the comparison did not finish"

// reasonNothingChecked starts the reason Decide gives a result in which no check ran.
const reasonNothingChecked = "nothing was checked"

// Apply returns r with v as its verdict and the benchmarks v acknowledges (Benchmark.Acknowledged)
// or finds ruled out (Benchmark.RuledOut) marked. r itself is not changed.
func Apply(r record.Result, v record.Verdict) record.Result {
	r.Verdict = v
	r.Benchmarks = slices.Clone(r.Benchmarks)
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		b.Acknowledged = b.Class == record.ClassSlower && slices.Contains(v.AcknowledgedBenchmarks, AckName(*b))
		b.RuledOut = b.Class == record.ClassInconclusive && slices.Contains(v.RuledOutBenchmarks, AckName(*b))
	}
	return r
}

type thresholdPattern struct {
	re  *regexp.Regexp
	pct float64
	src string
}

func (p *Policy) compiledThresholds() []thresholdPattern {
	var out []thresholdPattern
	for _, k := range slices.Sorted(maps.Keys(p.Thresholds)) {
		re, err := regexp.Compile(k)
		if err != nil {
			continue // Validate reports it
		}
		out = append(out, thresholdPattern{re, p.Thresholds[k], k})
	}
	return out
}

// acknowledges reports whether a slower benchmark is allowed, and why: the label, or a
// per-benchmark threshold that the estimated slowdown stays within.
func (p *Policy) acknowledges(patterns []thresholdPattern, b record.Benchmark) (string, bool) {
	if p.Acknowledged {
		return fmt.Sprintf("acknowledged by label %s", p.AcknowledgeLabel), true
	}
	pct := pctOf(b)
	for _, t := range patterns {
		if t.re.MatchString(b.Name) && pct <= t.pct {
			return fmt.Sprintf("%+.1f%% is within its threshold %g%% (%s)", pct, t.pct, t.src), true
		}
	}
	return "", false
}

// worse says how a slower benchmark got worse: "X is slower (+3.1%)" for time, "X allocates more
// (allocs/op 2 → 3)" for an exact unit, "X is worse in unit (+4.0%)" otherwise. A measured change
// whose interval reaches back over the threshold of m (the run's; m.InstrThreshold for
// instructions/op) says so, with the interval, so that a maintainer knows it is at the edge: "X is
// slower (+2.4% [+1.4%, +3.3%]: the threshold 2% lies inside the interval)".
func worse(b record.Benchmark, m record.Method) string {
	name := record.Qualified(b.Package, b.Name)
	switch {
	case b.Unit == record.UnitTime:
		return fmt.Sprintf("%s is slower (%+.1f%%%s)", name, pctOf(b), atEdge(b, m))
	case b.Unit == record.UnitInstructions:
		return fmt.Sprintf("%s runs more instructions/op (%+.2f%%%s)", name, pctOf(b), atEdge(b, m))
	case b.Unit == "allocs/op" && b.Exact:
		return fmt.Sprintf("%s allocates more (allocs/op %g → %g)", name, b.Base.Center, b.Head.Center)
	case b.Exact:
		return fmt.Sprintf("%s is worse in %s (%g → %g)", name, b.Unit, b.Base.Center, b.Head.Center)
	}
	return fmt.Sprintf("%s is worse in %s (%+.1f%%%s)", name, b.Unit, pctOf(b), atEdge(b, m))
}

// atEdge is " [lo, hi]: the threshold N% lies inside the interval" when b's paired interval
// reaches both sides of the threshold on the worse side of its unit (the estimate beyond it, the
// lower end not), and "" otherwise.
func atEdge(b record.Benchmark, m record.Method) string {
	p := b.Paired
	th := m.Threshold
	if b.Unit == record.UnitInstructions && m.InstrThreshold > 0 {
		th = m.InstrThreshold
	}
	if p == nil || th <= 0 {
		return ""
	}
	edge := 1 + th/100
	if record.HigherIsBetter(b.Unit) {
		edge = 1 - th/100
	}
	if !(p.Lo < edge && edge < p.Hi) {
		return ""
	}
	return fmt.Sprintf(" [%+.1f%%, %+.1f%%]: the threshold %g%% lies inside the interval", 100*(p.Lo-1), 100*(p.Hi-1), th)
}

// pctOf is the slowdown of b in percent: the paired estimate when there is one, else benchstat's
// delta.
func pctOf(b record.Benchmark) float64 {
	if b.Paired == nil && b.Base.Center == 0 && b.Head.Center > 0 {
		return math.Inf(1) // from none to some: more than any threshold
	}
	if b.Paired != nil {
		return (b.Paired.Ratio - 1) * 100
	}
	return b.DeltaPct
}

// anyCompared reports whether some benchmark has samples of a gated unit on both sides.
func anyCompared(bs []record.Benchmark, metric string) bool {
	for _, b := range bs {
		if IsLaneUnit(metric, b.Unit) && b.Class != record.ClassFailed {
			return true
		}
	}
	return false
}

func totalMismatches(d record.Differential) int {
	n := 0
	for _, c := range d.Ciphers {
		n += c.Mismatches
	}
	return n
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// hostNoise says, once for all of them, when most of the open benchmarks could not have settled on
// this host at this budget: their smallest detectable effect exceeds the threshold. It names the
// budget at which they would (intervals narrow as the square root of the rounds) and perfgate
// doctor, which suggests a threshold per benchmark; "" when the host's noise is not what kept them
// open.
func hostNoise(m record.Method, open []record.Benchmark) string {
	var mdes []float64
	for _, b := range open {
		if b.MDEPct > m.Threshold {
			mdes = append(mdes, b.MDEPct)
		}
	}
	if len(mdes) == 0 || 2*len(mdes) < len(open) {
		return ""
	}
	slices.Sort(mdes)
	median := mdes[len(mdes)/2]
	pct := func(x float64) string {
		if x > 1000 {
			return "over 1000%"
		}
		return strconv.FormatFloat(x, 'f', 1, 64) + "%"
	}
	s := fmt.Sprintf("this host's noise kept %d of them open: the smallest change this run could detect in them "+
		"was %s at the median, above ±%g%%", len(mdes), pct(median), m.Threshold)
	// Intervals narrow as the square root of the rounds; past an hour the host, not the budget, is
	// the problem.
	if need := time.Duration(float64(m.TimedPhase) * math.Pow(median/m.Threshold, 2)); m.TimedPhase > 0 &&
		need <= time.Hour {
		s += fmt.Sprintf("; a budget of about %v would settle half of them", need.Round(10*time.Second))
	} else {
		s += "; a quieter runner would settle them"
	}
	return s + "; perfgate doctor -pkg measures this host's noise and suggests a threshold for each"
}
