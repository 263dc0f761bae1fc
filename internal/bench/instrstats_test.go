package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// counts returns instructions/op samples of one round of A–B–B–A: base gets b0 (slot 0) and b3
// (slot 3), head h1 and h2.
func counts(name string, b0, h1, h2, b3 float64) []benchtxt.Sample {
	s := func(side record.Side, slot int, v float64) benchtxt.Sample {
		return benchtxt.Sample{Name: name, Side: side, Slot: slot, Iters: 100, Values: []benchtxt.Value{{Value: v, Unit: record.UnitInstructions}}}
	}
	return []benchtxt.Sample{s(record.Base, 0, b0), s(record.Head, 1, h1), s(record.Head, 2, h2), s(record.Base, 3, b3)}
}

func TestCompareInstructions(t *testing.T) {
	var samples []benchtxt.Sample
	samples = append(samples, counts("same", 1000, 1000, 1000, 1000)...)
	// +0.4%: inside 0.5%
	samples = append(samples, counts("near", 1e6, 1.004e6, 1.004e6, 1e6)...)
	samples = append(samples, counts("slower", 1e6, 1.008e6, 1.008e6, 1e6)...) // +0.8%
	samples = append(samples, counts("faster", 1e6, 0.9e6, 0.9e6, 1e6)...)     // −10%
	// base repeats to 0.2% only
	samples = append(samples, counts("wobbly", 1e6, 1e6, 1e6, 1.002e6)...)
	// 0.005% beyond the threshold
	samples = append(samples, counts("edge", 1e6, 1.00505e6, 1.00505e6, 1e6)...)
	// repeats within 0.1%
	samples = append(samples, counts("tiny", 1e6, 1e6+50, 1e6+30, 1e6+10)...)
	// Another unit and a side without samples.
	samples = append(samples, benchtxt.Sample{Name: "same", Side: record.Base, Values: []benchtxt.Value{{Value: 1e-6, Unit: "sec/op"}}})
	samples = append(samples, counts("headless", 1, 1, 1, 1)[0])

	cs, err := CompareInstructions(samples, DefaultInstrThresholdPct)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name  string
		Class record.Class
		Delta float64 // DeltaPct rounded to 4 decimals
		P     float64
	}
	var got []row
	notes := map[string]string{}
	for _, c := range cs {
		if c.Unit != record.UnitInstructions || !c.Exact {
			t.Errorf("%s: unit %q exact %v", c.Name, c.Unit, c.Exact)
		}
		got = append(got, row{c.Name, c.Class, math.Round(c.DeltaPct*1e4) / 1e4, c.P})
		notes[c.Name] = c.Note
		if want := map[bool]record.Uncounted{true: record.UncountedUnrepeatable}[c.Name == "wobbly"]; c.Uncounted != want {
			t.Errorf("%s: uncounted %q, want %q", c.Name, c.Uncounted, want)
		}
	}
	// Known answers: the deltas are (head median / base median − 1) × 100 of the counts above.
	want := []row{
		{"edge", record.ClassSlower, 0.505, 0},
		{"faster", record.ClassFaster, -10, 0},
		{"headless", record.ClassFailed, 0, 1},
		{"near", record.ClassUnchanged, 0.4, 1},
		{"same", record.ClassUnchanged, 0, 1},
		{"slower", record.ClassSlower, 0.8, 0},
		{"tiny", record.ClassUnchanged, 0.0035, 1},
		{"wobbly", record.ClassInconclusive, -0.0999, 1}, // not counted: judged by wall time alone
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CompareInstructions (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"wobbly":   "base's counts of one binary range from 1000000 to 1002000, 0.2000% apart",
		"edge":     "within the lane's resolution",
		"headless": "no head samples",
	} {
		if !strings.Contains(notes[name], want) {
			t.Errorf("%s: note %q, want it to contain %q", name, notes[name], want)
		}
	}
	if notes["slower"] != "" || notes["same"] != "" {
		t.Errorf("notes of clear cases: %q, %q; want none", notes["slower"], notes["same"])
	}
	// Identical counts give exactly 0.
	for _, c := range cs {
		if c.Name == "same" && (c.DeltaPct != 0 || c.NoisePct != 0 || c.Base.Center != 1000 || c.Base.N != 2) {
			t.Errorf("same: %+v", c)
		}
	}

	if _, err := CompareInstructions(samples, 100); err == nil || !strings.Contains(err.Error(), "threshold") {
		t.Errorf("threshold 1: error %v, want one naming the threshold", err)
	}
	// A threshold of 0 makes every difference a change.
	cs, _ = CompareInstructions(counts("x", 1e6, 1e6+10, 1e6+10, 1e6), 0)
	if cs[0].Class != record.ClassSlower {
		t.Errorf("threshold 0: %s, want slower", cs[0].Class)
	}
}

func TestMetricNote(t *testing.T) {
	cmpOf := func(class record.Class, delta float64) record.Benchmark {
		return record.Benchmark{Class: class, DeltaPct: delta}
	}
	timed := func(class record.Class, ratio float64) record.Benchmark {
		return record.Benchmark{Class: class, DeltaPct: 99, Paired: &record.Paired{Ratio: ratio}}
	}
	for _, tc := range []struct {
		name          string
		time, instr   record.Benchmark
		gates         string
		want, without string // want: a substring ("" for no note); without: must not appear
	}{
		{"agree", timed(record.ClassSlower, 1.05), cmpOf(record.ClassSlower, 3), "", "", ""},
		{"layout", timed(record.ClassSlower, 1.05), cmpOf(record.ClassUnchanged, 0.01), "sec/op",
			"time is slower (+5.0%) but instructions/op are unchanged (+0.01%): the same instructions run slower, which points at code layout, alignment, caches or the machine rather than at the code's work; sec/op gates", "+99"},
		{"latency", timed(record.ClassUnchanged, 1.001), cmpOf(record.ClassFaster, -10), "instructions/op",
			"instructions/op are faster (-10.00%) but time is unchanged (+0.1%): the instructions saved are off the critical path", ""},
		{"opposite", timed(record.ClassFaster, 0.97), cmpOf(record.ClassSlower, 2), "",
			"time says faster (-3.0%) but instructions/op say slower (+2.00%)", "gates"},
		{"noisy time", timed(record.ClassInconclusive, 1.02), cmpOf(record.ClassFaster, -8), "",
			"time is inconclusive but instructions/op are faster (-8.00%)", ""},
		{"unpaired time", cmpOf(record.ClassSlower, 4), cmpOf(record.ClassUnchanged, 0), "",
			"time is slower (+4.0%)", ""},
		{"failed", timed(record.ClassFailed, 1), cmpOf(record.ClassFaster, -8), "", "", ""},
		{"failed count", timed(record.ClassSlower, 1.1), cmpOf(record.ClassFailed, 0), "", "", ""},
	} {
		got := MetricNote(tc.time, tc.instr, tc.gates)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || tc.without != "" && strings.Contains(got, tc.without) {
			t.Errorf("%s: MetricNote = %q, want %q", tc.name, got, tc.want)
		}
	}
}
