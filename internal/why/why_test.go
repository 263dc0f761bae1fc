package why

import (
	"slices"
	"testing"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// TestWhyTargets: a benchmark is explained when a row in a unit that gates is slower or faster,
// when a row in a unit that gates is inconclusive and not ruled out (a gate reason names it), when
// its instruction count moved, or when its time is inconclusive and not counted; the gate's reasons
// come first. It is profiled when the count lane has no count of it, did not count it, or disagrees
// with the wall time, or when it blocks and its count did not move. A benchmark unchanged on every
// lane, settled unchanged by the unit that gates whatever its count did, or inconclusive where an
// unchanged count settles its work, is not explained.
func TestWhyTargets(t *testing.T) {
	row := func(name, unit string, class record.Class) record.Benchmark {
		return record.Benchmark{Name: name, Unit: unit, Class: class, Base: record.Summary{Center: 2e-6}}
	}
	inconclusive := func(name, unit string, bound float64) record.Benchmark {
		b := row(name, unit, record.ClassInconclusive)
		b.Paired = &record.Paired{Lo: 0.9, Hi: bound + 0.01, Bound: bound}
		return b
	}
	bs := []record.Benchmark{
		row("Slow", record.UnitTime, record.ClassSlower), row("Slow", record.UnitInstructions, record.ClassSlower),
		row("Fast", record.UnitTime, record.ClassFaster),
		row("Same", record.UnitTime, record.ClassUnchanged), row("Same", "B/op", record.ClassSlower),
		row("Allocs", "allocs/op", record.ClassSlower),
		row("Odd", record.UnitTime, record.ClassUnchanged), row("Odd", record.UnitInstructions, record.ClassSlower),
		row("Noted", record.UnitTime, record.ClassSlower), row("Noted", record.UnitInstructions, record.ClassUnchanged),
		// Inconclusive, its count moved (inline-mul in the corpus), ruled out: the counts say
		// where.
		inconclusive("Moved", record.UnitTime, 1.01), row("Moved", record.UnitInstructions, record.ClassFaster),
		// Inconclusive and blocking, its count unchanged: only a profile can say.
		inconclusive("Blocks", record.UnitTime, 1.05), row("Blocks", record.UnitInstructions, record.ClassUnchanged),
		// Inconclusive and ruled out, its count not repeatable (btree-seek): only a profile can
		// say.
		inconclusive("Unrepeatable", record.UnitTime, 0.9),
		inconclusive("Unrepeatable", record.UnitInstructions, 0.9),
		// Inconclusive and ruled out, its count unchanged: the work did not change.
		inconclusive("Settled", record.UnitTime, 1.01), row("Settled", record.UnitInstructions, record.ClassUnchanged),
	}
	bs[9].MetricNote = "time is slower but instructions/op are unchanged"
	bs[len(bs)-4].Uncounted, bs[len(bs)-3].Uncounted = "unrepeatable", "unrepeatable"
	counted := map[string]bool{"Slow": true, "Allocs": true, "Noted": true, "Odd": true, "Moved": true,
		"Blocks": true, "Settled": true, "Unrepeatable": true}
	m := record.Method{Metric: record.MetricAuto, Threshold: 2, InstrThreshold: 0.5}
	got := whyTargets(bs, gate.Policy{}, m, counted)
	var names []string
	for _, w := range got {
		names = append(names, w.name)
		want := map[string]bool{"Fast": true, "Noted": true, "Blocks": true, "Unrepeatable": true}[w.name]
		if w.profile != want {
			t.Errorf("%s: profile %v, want %v", w.name, w.profile, want)
		}
		wantClass := map[string]record.Class{"Slow": record.ClassSlower, "Fast": record.ClassFaster,
			"Allocs": record.ClassUnchanged, "Noted": record.ClassSlower, "Odd": record.ClassUnchanged,
			"Moved": record.ClassInconclusive, "Blocks": record.ClassInconclusive,
			"Unrepeatable": record.ClassInconclusive}[w.name]
		if w.name == "Allocs" {
			wantClass = record.ClassSlower // allocs/op gates by default
		}
		if w.class != wantClass {
			t.Errorf("%s: class %q, want %q", w.name, w.class, wantClass)
		}
	}
	// B/op does not gate by default; instructions/op gates only where the lane gates (metric both
	// or instructions): under auto the time row carries the combined class, and a moved count alone
	// is explained after what the gate names.
	if want := []string{"Slow", "Fast", "Allocs", "Noted", "Blocks", "Moved", "Unrepeatable"}; !slices.Equal(names, want) {
		t.Errorf("explained %v, want %v", names, want)
	}
	names = nil
	m.Metric = record.MetricInstructions
	for _, w := range whyTargets(bs, gate.Policy{}, m, counted) {
		names = append(names, w.name)
	}
	if want := []string{"Slow", "Allocs", "Odd", "Moved", "Unrepeatable"}; !slices.Equal(names, want) {
		t.Errorf("under metric instructions: explained %v, want %v", names, want)
	}
}
