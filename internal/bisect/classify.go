package bisect

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/record"
)

// Classify reads one comparison's Result (the commit as head, the base as base) as a bisection
// step: only typed fields decide, never a message.
//
// For CheckTime every compared benchmark gets one class:
//   - a time row (sec/op) with a conclusive class decides: under metric auto its class already is
//     the lanes' combined one (bench.CombineLanes), where the exact count settles what time leaves
//     open and agrees with it;
//   - under metric both, an inconclusive time row is settled by the count the same way
//     (bench.CountClass);
//   - without a time row (metric instructions) the count row decides.
//
// The step is Slower when some benchmark is slower; Inconclusive when none is and some interval
// still reaches past +threshold (a slowdown not ruled out, as the gate asks it); NoRun when nothing
// could be compared or a benchmark failed on the commit with nothing slower found; NotSlower
// otherwise. A head that does not build is NoBuild. Byte-identical test binaries are NotSlower
// whatever the timing says.
func Classify(res *record.Result, check string) Probe {
	if res.HeadBuildFailed {
		return Probe{Outcome: NoBuild, Reason: buildError(headNote(res))}
	}
	if check == CheckDifferential {
		return classifyDifferential(res.Differential)
	}
	changes := changesOf(res)
	p := Probe{Changes: changes}
	if len(changes) == 0 {
		p.Outcome, p.Reason = NoRun, "no benchmark could be compared"
		if f := headFailure(res); f != "" {
			p.Reason = f
		}
		return p
	}
	if res.Method.BinariesSame {
		p.Outcome, p.Reason = NotSlower, "the test binaries are byte-identical"
		p.Change = largest(changes, func(c Change) float64 { return c.Pct })
		return p
	}
	thr := res.Method.Threshold
	var slower, open []Change
	for _, c := range changes {
		switch {
		case c.Class == string(record.ClassSlower):
			slower = append(slower, c)
		case c.Class == string(record.ClassInconclusive) && c.Hi > thr:
			open = append(open, c)
		}
	}
	switch {
	case len(slower) > 0:
		p.Outcome, p.Change = Slower, largest(slower, func(c Change) float64 { return c.Pct })
	case headFailure(res) != "":
		p.Outcome, p.Reason = NoRun, headFailure(res)
	case len(open) > 0:
		p.Outcome, p.Change = Inconclusive, largest(open, func(c Change) float64 { return c.Hi })
		p.Reason = fmt.Sprintf("%d benchmark(s) could not be told within ±%g%%, widest %s", len(open), thr,
			p.Change)
	default:
		p.Outcome, p.Change = NotSlower, largest(changes, func(c Change) float64 { return c.Pct })
	}
	return p
}

// changesOf gives every compared benchmark of res its Change, in the result's order.
func changesOf(res *record.Result) []Change {
	type key struct{ pkg, name string }
	rows := map[key]map[string]record.Benchmark{}
	var order []key
	for _, b := range res.Benchmarks {
		k := key{b.Package, b.Name}
		if rows[k] == nil {
			rows[k] = map[string]record.Benchmark{}
			order = append(order, k)
		}
		rows[k][b.Unit] = b
	}
	var out []Change
	for _, k := range order {
		if c, ok := decide(rows[k], res.Method); ok {
			c.Benchmark = record.Qualified(k.pkg, k.name)
			out = append(out, c)
		}
	}
	return out
}

// decide is one benchmark's class from its rows (by unit), by the rule of Classify; false when no
// lane compared it.
func decide(rows map[string]record.Benchmark, m record.Method) (Change, bool) {
	t, hasTime := rows[record.UnitTime]
	in, hasCount := rows[record.UnitInstructions]
	hasTime = hasTime && t.Class != record.ClassFailed
	hasCount = hasCount && in.Class != record.ClassFailed
	switch {
	case hasTime:
		c := timeChange(t)
		if hasCount && m.Metric == record.MetricBoth && t.Class == record.ClassInconclusive {
			if cl := bench.CountClass(t, in, sameAllocs(rows), m.Threshold); cl != "" {
				c.Class = string(cl)
			}
		}
		if hasCount && c.Class == string(in.Class) && !t.SameCode {
			c.Lane = "time+count" // the exact count repeated and agrees
		}
		return c, true
	case hasCount:
		pct := 0.0
		if in.Base.Center > 0 {
			pct = 100 * (in.Head.Center/in.Base.Center - 1)
		}
		return Change{Unit: in.Unit, Class: string(in.Class), Lane: "count", Pct: pct, Lo: pct, Hi: pct}, true
	}
	return Change{}, false
}

// timeChange is a time row's change: the paired estimate and its interval, or benchstat's delta
// without one.
func timeChange(t record.Benchmark) Change {
	c := Change{Unit: t.Unit, Class: string(t.Class), Lane: "time", Pct: t.DeltaPct, Lo: t.DeltaPct, Hi: t.DeltaPct}
	if t.SameCode && t.Rounds == 0 {
		c.Lane = "same-code"
	}
	if p := t.Paired; p != nil {
		c.Pct, c.Lo, c.Hi = 100*(p.Ratio-1), 100*(p.Lo-1), 100*(p.Hi-1)
	}
	return c
}

// sameAllocs reports whether the benchmark's allocations (B/op, allocs/op) are unchanged or not
// measured.
func sameAllocs(rows map[string]record.Benchmark) bool {
	for _, u := range []string{"B/op", "allocs/op"} {
		if b, ok := rows[u]; ok && b.Class != record.ClassUnchanged {
			return false
		}
	}
	return true
}

// classifyDifferential reads the differential check: a mismatch is the change searched for.
func classifyDifferential(d record.Differential) Probe {
	switch d.Status {
	case record.DiffMismatch:
		var names []string
		total := 0
		for _, c := range d.Ciphers {
			if c.Mismatches > 0 {
				names = append(names, c.Name)
				total += c.Mismatches
			}
		}
		c := Change{Benchmark: fmt.Sprintf("%d mismatches in %s", total, strings.Join(names, ", ")),
			Class: string(record.ClassSlower), Lane: "differential"}
		return Probe{Outcome: Slower, Change: &c, Changes: []Change{c}}
	case record.DiffIdentical:
		return Probe{Outcome: NotSlower}
	}
	return Probe{Outcome: NoRun, Reason: firstLine(fmt.Sprintf("differential check %s: %s", d.Status, d.Reason), "")}
}

// largest returns a copy of the change of cs with the largest by.
func largest(cs []Change, by func(Change) float64) *Change {
	best := cs[0]
	for _, c := range cs[1:] {
		if by(c) > by(best) {
			best = c
		}
	}
	return &best
}

// headFailure describes the first benchmark run that failed on head, "" when none did. A base
// benchmark head no longer has is not a failure of the commit.
func headFailure(res *record.Result) string {
	for _, f := range res.Failures {
		if f.Side == record.Head && f.Kind != record.FailureRemoved {
			return firstLine(fmt.Sprintf("%s %s on the commit: %s", record.Qualified(f.Package, f.Name), f.Kind,
				f.Message), "")
		}
	}
	return ""
}

// headNote is the Result's note about head's build, for the step's reason (shown, never decided
// on).
func headNote(res *record.Result) string {
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "head") {
			return n
		}
	}
	return ""
}

// buildError is the line of a build failure a reader wants: the first compiler error
// ("./mix.go:5:9: undefined: h"), else the first line.
func buildError(note string) string {
	for _, line := range strings.Split(note, "\n") {
		if strings.Contains(line, ".go:") {
			return firstLine(line, "")
		}
	}
	return firstLine(note, "the package does not build")
}

// firstLine returns s's first non-empty line, at most 200 bytes, or def when s has none.
func firstLine(s, def string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "…"
			}
			return line
		}
	}
	return def
}
