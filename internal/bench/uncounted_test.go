package bench

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestMarkUncounted marks a counted row, adds a row for a leaf without samples, drops the count
// units derived from the same counts, and leaves the rest alone.
func TestMarkUncounted(t *testing.T) {
	cs := []record.Benchmark{
		{Name: "Rand", Unit: record.UnitTime, Class: record.ClassUnchanged},
		{Name: "Rand", Unit: record.UnitInstructions, Class: record.ClassSlower, P: 0, PHolm: 0},
		{Name: "Rand", Unit: record.UnitEstCycles, Class: record.ClassSlower},
		{Name: "Plain", Unit: record.UnitInstructions, Class: record.ClassUnchanged, P: 1, PHolm: 1},
	}
	got := MarkUncounted(cs, map[string]NotCounted{
		"Rand":   {Why: record.UncountedUnrepeatable, Detail: "counts 1.5% apart"},
		"Paused": {Why: record.UncountedTimerInLoop, Detail: "timer stopped inside its loop"},
	})
	type row struct {
		name, unit string
		class      record.Class
		why        record.Uncounted
	}
	var rows []row
	for _, c := range got {
		rows = append(rows, row{c.Name, c.Unit, c.Class, c.Uncounted})
		if c.Uncounted != "" && (!strings.HasPrefix(c.Note, "not counted: ") || c.PHolm != 1) {
			t.Errorf("%s %s: note %q, PHolm %v; want a note that says why, and no test", c.Name, c.Unit, c.Note, c.PHolm)
		}
	}
	want := []row{
		{"Rand", record.UnitTime, record.ClassUnchanged, ""},
		{"Rand", record.UnitInstructions, record.ClassInconclusive, record.UncountedUnrepeatable},
		{"Plain", record.UnitInstructions, record.ClassUnchanged, ""},
		{"Paused", record.UnitInstructions, record.ClassInconclusive, record.UncountedTimerInLoop},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
}

// TestCombineLanesUncounted: a benchmark whose count settles nothing keeps its time class under
// metric auto, an inconclusive one included, even where equal or moved counts would have settled
// it; both rows say why.
func TestCombineLanesUncounted(t *testing.T) {
	for _, tc := range []struct {
		name string
		time record.Class
		lo   float64
	}{
		{"inconclusive, equal counts would settle it", record.ClassInconclusive, 0.99},
		{"unchanged stands", record.ClassUnchanged, 0.995},
		{"slower stands", record.ClassSlower, 1.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := record.Benchmark{Name: "Rand", Unit: record.UnitTime, Class: tc.time,
				Paired: &record.Paired{Ratio: tc.lo + 0.01, Lo: tc.lo, Hi: tc.lo + 0.03, Rounds: 10}}
			in := record.Benchmark{Name: "Rand", Unit: record.UnitInstructions, Class: record.ClassUnchanged,
				Base: record.Summary{Center: 1000}, Head: record.Summary{Center: 1000}}
			cs := MarkUncounted([]record.Benchmark{tm, in}, map[string]NotCounted{
				"Rand": {Why: record.UncountedUnrepeatable, Detail: "counts 1.5% apart"}})
			if EqualCounts(cs[1]) {
				t.Error("EqualCounts of an uncounted row: want false")
			}
			CombineLanes(cs, AutoOptions{ThresholdPct: 2})
			if cs[0].Class != tc.time {
				t.Errorf("time class %s, want %s: an uncounted benchmark is judged by wall time alone", cs[0].Class, tc.time)
			}
			if cs[0].Uncounted != record.UncountedUnrepeatable || !strings.Contains(cs[0].MetricNote,
				"judged by wall time alone") || !strings.Contains(cs[0].MetricNote, "1.5% apart") ||
				cs[1].MetricNote != "judged by wall time alone" || !strings.Contains(cs[1].Note, "1.5% apart") {
				t.Errorf("time row uncounted %q, notes %q / %q", cs[0].Uncounted, cs[0].MetricNote, cs[1].MetricNote)
			}
		})
	}
}
