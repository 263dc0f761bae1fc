package perfgate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/record"
)

// instrOp is an instructions/op benchmark of class class, head/base = ratio, as bench.CompareInstructions makes it.
func instrOp(name string, class Class, ratio float64) Benchmark {
	return Benchmark{Name: name, Unit: UnitInstructions, Class: class, Exact: true, DeltaPct: (ratio - 1) * 100,
		Base: Summary{Center: 1e4, Lo: 1e4, Hi: 1e4, N: 2}, Head: Summary{Center: 1e4 * ratio, Lo: 1e4 * ratio, Hi: 1e4 * ratio, N: 2}}
}

// TestDecideByMetric: the metric says which unit gates. time: sec/op only; instructions: instructions/op only;
// both: either. The label acknowledges a slower in either unit alike.
func TestDecideByMetric(t *testing.T) {
	// A benchmark slower in time but not in instructions, and another slower in instructions but not in time.
	bs := []Benchmark{
		secOp("Encrypt/des", ClassSlower, 1.05), instrOp("Encrypt/des", ClassUnchanged, 1.0001),
		secOp("KeySetup/des", ClassUnchanged, 1.001), instrOp("KeySetup/des", ClassSlower, 1.03),
	}
	tests := []struct {
		metric  string
		ack     bool
		status  Status
		reasons []string
	}{
		{"", false, StatusFail, []string{"Encrypt/des is slower (+5.0%)"}},
		{MetricTime, false, StatusFail, []string{"Encrypt/des is slower (+5.0%)"}},
		{MetricInstructions, false, StatusFail, []string{"KeySetup/des runs more instructions/op (+3.00%)"}},
		{MetricBoth, false, StatusFail, []string{"Encrypt/des is slower (+5.0%)", "KeySetup/des runs more instructions/op (+3.00%)"}},
		{MetricBoth, true, StatusPass, []string{}},
	}
	for _, tt := range tests {
		r := passing()
		r.Benchmarks = slices.Clone(bs)
		r.Method.Metric = tt.metric
		p := Policy{Acknowledged: tt.ack, AcknowledgeLabel: "perf-regression-ok"}
		v := Decide(*r, p)
		if v.Status != tt.status || !slices.Equal(v.Reasons, tt.reasons) {
			t.Errorf("metric %q, acknowledged %v: %s %q, want %s %q", tt.metric, tt.ack, v.Status, v.Reasons, tt.status, tt.reasons)
		}
		if tt.ack {
			got := Apply(*r, v)
			for _, b := range got.Benchmarks {
				if want := b.Class == ClassSlower; b.Acknowledged != want {
					t.Errorf("metric both, label: %s %s acknowledged = %v, want %v", b.Name, b.Unit, b.Acknowledged, want)
				}
			}
		}
	}
}

// TestDecideUnrepeatable: two counts of one binary that disagree are a failure of the lane, on either side: the
// verdict is error (exit 3), never pass and never a failure blamed on head.
func TestDecideUnrepeatable(t *testing.T) {
	for _, side := range []Side{record.Base, record.Head} {
		r := passing()
		r.Method.Metric = MetricInstructions
		r.Benchmarks = []Benchmark{instrOp("Encrypt/des", ClassFailed, 1)}
		r.Failures = []Failure{{Name: "Encrypt/des", Side: side, Round: 1, Slot: 3, Kind: record.FailureUnrepeatable,
			Message: "two runs of the same binary counted 1 and 2 instructions/op"}}
		v := Decide(*r, Policy{})
		if v.Status != StatusError || v.ExitCode != ExitCannotRun {
			t.Errorf("unrepeatable on %s: %s exit %d, want error exit %d", side, v.Status, v.ExitCode, ExitCannotRun)
		}
		if len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "Encrypt/des ("+string(side)+")") ||
			!strings.Contains(v.Reasons[0], "not of head") {
			t.Errorf("unrepeatable on %s: reasons %q", side, v.Reasons)
		}
	}
}

// instrSamples is one round of the instruction-count lane for name: base counts base, head counts head per op.
func instrSamples(name string, base, head float64) []bench.Sample {
	var out []bench.Sample
	for slot, side := range []record.Side{record.Base, record.Head, record.Head, record.Base} {
		v := base
		if side == record.Head {
			v = head
		}
		out = append(out, bench.Sample{Name: name, Side: side, Slot: slot, Iters: 500,
			Values: []bench.Value{{Value: v, Unit: bench.UnitInstructions}}})
	}
	return out
}

// TestFromRunBothLanes: the time and instruction samples of one run are classified apart (counts never enter the
// time statistics: the sec/op rows have the samples of the timing lane only), and a benchmark whose lanes
// disagree carries the MetricNote on both rows.
func TestFromRunBothLanes(t *testing.T) {
	run := &bench.Run{Samples: slices.Concat(
		abbaRun("Encrypt/des", 6, 100, 100), abbaRun("KeySetup/des", 6, 100, 100),
		instrSamples("Encrypt/des", 20000, 16000), instrSamples("KeySetup/des", 5000, 5000))}
	rec := fromRun(run, nil, bench.DefaultStatsOptions, 0.5)
	got := map[string]Benchmark{}
	for _, b := range rec.benchmarks {
		got[b.Name+" "+b.Unit] = b
	}
	check := func(key string, class Class, n int, noted bool) {
		t.Helper()
		b, ok := got[key]
		if !ok {
			t.Fatalf("no row %q in %v", key, rec.benchmarks)
		}
		if b.Class != class || b.Base.N != n || b.Head.N != n || (b.MetricNote != "") != noted {
			t.Errorf("%s: %s, n %d/%d, metric note %q; want %s, n %d, noted %v", key, b.Class, b.Base.N, b.Head.N,
				b.MetricNote, class, n, noted)
		}
	}
	check("Encrypt/des sec/op", ClassUnchanged, 12, true)
	check("Encrypt/des instructions/op", ClassFaster, 2, true)
	check("KeySetup/des sec/op", ClassUnchanged, 12, false)
	check("KeySetup/des instructions/op", ClassUnchanged, 2, false)
	if note := got["Encrypt/des instructions/op"].MetricNote; !strings.Contains(note, "instructions/op are faster (-20.00%) but time is unchanged") ||
		!strings.Contains(note, "both gate") {
		t.Errorf("metric note %q", note)
	}
	if g := got["Encrypt/des instructions/op"]; math.Abs(g.DeltaPct+20) > 1e-9 || !g.Exact {
		t.Errorf("Encrypt/des instructions/op: delta %v exact %v, want -20, exact", g.DeltaPct, g.Exact)
	}
	// The instruction-only run: no time rows at all.
	rec = fromRun(&bench.Run{Samples: instrSamples("Encrypt/des", 20000, 20000)}, nil, bench.DefaultStatsOptions, 0.5)
	if len(rec.benchmarks) != 1 || rec.benchmarks[0].Unit != UnitInstructions || rec.benchmarks[0].DeltaPct != 0 {
		t.Errorf("instructions only: %+v, want one instructions/op row with delta exactly 0", rec.benchmarks)
	}
}
