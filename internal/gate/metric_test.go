package gate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// instrOp is an instructions/op benchmark of class class, head/base = ratio, as
// bench.CompareInstructions makes it.
func instrOp(name string, class record.Class, ratio float64) record.Benchmark {
	return record.Benchmark{Name: name, Unit: record.UnitInstructions, Class: class, Exact: true, DeltaPct: (ratio - 1) * 100,
		Base: record.Summary{Center: 1e4, Lo: 1e4, Hi: 1e4, N: 2}, Head: record.Summary{Center: 1e4 * ratio, Lo: 1e4 * ratio, Hi: 1e4 * ratio, N: 2}}
}

// TestDecideByMetric: the metric says which unit gates. time: sec/op only; instructions:
// instructions/op only; both: either. The label acknowledges a slower in either unit alike.
func TestDecideByMetric(t *testing.T) {
	// A benchmark slower in time but not in instructions, and another slower in instructions but
	// not in time.
	bs := []record.Benchmark{
		secOp("Encrypt/des", record.ClassSlower, 1.05), instrOp("Encrypt/des", record.ClassUnchanged, 1.0001),
		secOp("KeySetup/des", record.ClassUnchanged, 1.001), instrOp("KeySetup/des", record.ClassSlower, 1.03),
	}
	tests := []struct {
		metric  string
		ack     bool
		status  record.Status
		reasons []string
	}{
		{"", false, record.StatusFail, []string{"Encrypt/des is slower (+5.0%)"}},
		{record.MetricTime, false, record.StatusFail, []string{"Encrypt/des is slower (+5.0%)"}},
		{record.MetricInstructions, false, record.StatusFail, []string{"KeySetup/des runs more instructions/op (+3.00%)"}},
		{record.MetricBoth, false, record.StatusFail, []string{"Encrypt/des is slower (+5.0%)", "KeySetup/des runs more instructions/op (+3.00%)"}},
		{record.MetricBoth, true, record.StatusPass, []string{}},
	}
	for _, tt := range tests {
		r := passing()
		r.Benchmarks = slices.Clone(bs)
		r.Method.Metric = tt.metric
		p := gate.Policy{Acknowledged: tt.ack, AcknowledgeLabel: "perf-regression-ok"}
		v := gate.Decide(*r, p)
		if v.Status != tt.status || !slices.Equal(v.Reasons, tt.reasons) {
			t.Errorf("metric %q, acknowledged %v: %s %q, want %s %q", tt.metric, tt.ack, v.Status, v.Reasons, tt.status, tt.reasons)
		}
		if tt.ack {
			got := gate.Apply(*r, v)
			for _, b := range got.Benchmarks {
				if want := b.Class == record.ClassSlower; b.Acknowledged != want {
					t.Errorf("metric both, label: %s %s acknowledged = %v, want %v", b.Name, b.Unit, b.Acknowledged, want)
				}
			}
		}
	}
}

// TestDecideUnrepeatable: two counts of one binary that disagree are a failure of the lane, on
// either side: the verdict is error (exit 3), never pass and never a failure blamed on head.
func TestDecideUnrepeatable(t *testing.T) {
	for _, side := range []record.Side{record.Base, record.Head} {
		r := passing()
		r.Method.Metric = record.MetricInstructions
		r.Benchmarks = []record.Benchmark{instrOp("Encrypt/des", record.ClassFailed, 1)}
		r.Failures = []record.Failure{{Name: "Encrypt/des", Side: side, Round: 1, Slot: 3, Kind: record.FailureUnrepeatable,
			Message: "two runs of the same binary counted 1 and 2 instructions/op"}}
		v := gate.Decide(*r, gate.Policy{})
		if v.Status != record.StatusError || v.ExitCode != record.ExitCannotRun {
			t.Errorf("unrepeatable on %s: %s exit %d, want error exit %d", side, v.Status, v.ExitCode, record.ExitCannotRun)
		}
		if len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "Encrypt/des ("+string(side)+")") ||
			!strings.Contains(v.Reasons[0], "not of head") {
			t.Errorf("unrepeatable on %s: reasons %q", side, v.Reasons)
		}
	}
}
