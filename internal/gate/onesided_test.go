package gate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// inconclusiveRow is an inconclusive row in unit whose paired interval is [lo, hi] and one-sided
// bound bound (ratios head/base; bound 0: none recorded, as in results of earlier versions).
func inconclusiveRow(name, unit string, lo, hi, bound float64) record.Benchmark {
	return record.Benchmark{Name: name, Unit: unit, Class: record.ClassInconclusive,
		Paired: &record.Paired{Ratio: (lo + hi) / 2, Lo: lo, Hi: hi, Bound: bound, Rounds: 20}}
}

// TestDecideOneSided: the gate asks "slower by more than the threshold?". An inconclusive benchmark
// blocks only while its one-sided bound reaches past +threshold; one that rules such a slowdown out
// passes, is named in a note and in RuledOutBenchmarks, and Apply marks its row.
func TestDecideOneSided(t *testing.T) {
	for _, tt := range []struct {
		name     string
		row      record.Benchmark
		metric   string
		policy   func(*config.Config)
		status   record.Status
		exit     int
		ruledOut bool
		text     string // part of the reason (blocking) or the note (ruled out)
	}{
		{name: "faster by an unclear amount passes",
			row:    inconclusiveRow("Sum/64", record.UnitTime, 0.959, 0.992, 0.989),
			status: record.StatusPass, exit: record.ExitPass, ruledOut: true,
			text: "1 benchmark inconclusive, but a slowdown beyond the threshold is ruled out, so not blocking: " +
				"Sum/64 (-4.1% to -0.8%; one-sided bound -1.1%, within +2%)"},
		{name: "the two-sided end past +2% but the one-sided bound within passes",
			row:    inconclusiveRow("Sum/64", record.UnitTime, 0.97, 1.024, 1.019),
			status: record.StatusPass, exit: record.ExitPass, ruledOut: true, text: "one-sided bound +1.9%, within +2%"},
		{name: "an interval of ±4.5% blocks",
			row:    inconclusiveRow("KeySetup/des", record.UnitTime, 0.955, 1.045, 1.037),
			status: record.StatusInconclusive, exit: record.ExitInconclusive,
			text: "a slowdown beyond +2% is not ruled out: KeySetup/des (-4.5% to +4.5%)"},
		{name: "no bound recorded rules out nothing",
			row:    inconclusiveRow("Sum/64", record.UnitTime, 0.959, 0.992, 0),
			status: record.StatusInconclusive, exit: record.ExitInconclusive, text: "Sum/64 (-4.1% to -0.8%)"},
		{name: "a larger threshold of the policy rules it out",
			row:    inconclusiveRow("KeySetup/des", record.UnitTime, 0.955, 1.045, 1.037),
			policy: func(c *config.Config) { c.Thresholds = map[string]float64{"^KeySetup/": 5} },
			status: record.StatusPass, exit: record.ExitPass, ruledOut: true, text: "one-sided bound +3.7%, within +5%"},
		{name: "a smaller threshold of the policy does not narrow the run's",
			row:    inconclusiveRow("Sum/64", record.UnitTime, 0.959, 0.992, 0.989),
			policy: func(c *config.Config) { c.Thresholds = map[string]float64{"^Sum/": 0.5} },
			status: record.StatusPass, exit: record.ExitPass, ruledOut: true, text: "within +2%"},
		{name: "a rate's bound is its lower one",
			row: inconclusiveRow("Sum/64", "B/s", 1.005, 1.05, 1.01),
			policy: func(c *config.Config) {
				c.GateUnits = []string{"sec/op", "B/s"}
			},
			status: record.StatusPass, exit: record.ExitPass, ruledOut: true, text: "one-sided bound +1.0%, within -2%"},
		{name: "a rate whose bound reaches past -2% blocks",
			row: inconclusiveRow("Sum/64", "B/s", 0.95, 1.01, 0.96),
			policy: func(c *config.Config) {
				c.GateUnits = []string{"sec/op", "B/s"}
			},
			status: record.StatusInconclusive, exit: record.ExitInconclusive, text: "Sum/64 B/s (-5.0% to +1.0%)"},
		{name: "an inconclusive count without an interval blocks under metric instructions",
			row:    record.Benchmark{Name: "Sum/64", Unit: record.UnitInstructions, Class: record.ClassInconclusive},
			metric: record.MetricInstructions,
			status: record.StatusInconclusive, exit: record.ExitInconclusive, text: "Sum/64 instructions/op"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := config.Default()
			c.OnInconclusive = gate.OnInconclusiveFail
			if tt.policy != nil {
				tt.policy(&c)
			}
			r := passing()
			r.Method.Threshold, r.Method.InstrThreshold, r.Method.Metric = 2, 0.5, tt.metric
			if tt.metric == record.MetricInstructions {
				r.Benchmarks = []record.Benchmark{tt.row}
			} else {
				r.Benchmarks = append(r.Benchmarks, tt.row)
			}
			v := gate.Decide(*r, c.Policy())
			if v.Status != tt.status || v.ExitCode != tt.exit {
				t.Fatalf("verdict %s exit %d, want %s exit %d (reasons %q, notes %q)", v.Status, v.ExitCode, tt.status,
					tt.exit, v.Reasons, v.Notes)
			}
			where := v.Reasons
			if tt.ruledOut {
				where = v.Notes
			}
			if !containsPart(where, tt.text) {
				t.Errorf("reasons %q, notes %q: want %q in the %s", v.Reasons, v.Notes, tt.text,
					map[bool]string{true: "notes", false: "reasons"}[tt.ruledOut])
			}
			name := gate.AckName(tt.row)
			if got := slices.Contains(v.RuledOutBenchmarks, name); got != tt.ruledOut {
				t.Errorf("RuledOutBenchmarks %q: %s listed %v, want %v", v.RuledOutBenchmarks, name, got, tt.ruledOut)
			}
			applied := gate.Apply(*r, v)
			for _, b := range applied.Benchmarks {
				if b.Name == tt.row.Name && b.Unit == tt.row.Unit && b.RuledOut != tt.ruledOut {
					t.Errorf("Apply: %s RuledOut %v, want %v", name, b.RuledOut, tt.ruledOut)
				}
				if b.Name != tt.row.Name && b.RuledOut {
					t.Errorf("Apply marked %s %s ruled out", b.Name, b.Unit)
				}
			}
			if tt.ruledOut && strings.Contains(strings.Join(v.Reasons, " "), "not ruled out") {
				t.Errorf("a ruled-out benchmark is a reason: %q", v.Reasons)
			}
		})
	}
}

// TestRulesOutWorse: the bound decides, on the unit's worse side, at the threshold itself included.
func TestRulesOutWorse(t *testing.T) {
	for _, tt := range []struct {
		unit  string
		bound float64
		th    float64
		want  bool
	}{
		{record.UnitTime, 1.02, 2, true},
		{record.UnitTime, 1.0201, 2, false},
		{record.UnitTime, 0.9, 0, true},
		{record.UnitTime, 0, 2, false},
		{"B/s", 0.98, 2, true},
		{"B/s", 0.979, 2, false},
		{"B/s", 1.5, 0, true},
	} {
		b := record.Benchmark{Unit: tt.unit, Paired: &record.Paired{Bound: tt.bound}}
		if got := gate.RulesOutWorse(b, tt.th); got != tt.want {
			t.Errorf("%s bound %g, threshold %g%%: RulesOutWorse %v, want %v", tt.unit, tt.bound, tt.th, got, tt.want)
		}
	}
	if gate.RulesOutWorse(record.Benchmark{Unit: record.UnitTime}, 2) {
		t.Error("a row without a paired estimate rules out a slowdown")
	}
}

// TestPolicyRulesOut: RulesOut, which the pipeline asks before the gate decides, agrees with the
// gate's decision: within the run's threshold, within a larger per-benchmark threshold, and not
// past either.
func TestPolicyRulesOut(t *testing.T) {
	m := record.Method{Metric: record.MetricTime, Threshold: 2}
	p := gate.Policy{Thresholds: map[string]float64{"^Slow/": 5}}
	for _, tt := range []struct {
		row  record.Benchmark
		want bool
	}{
		{inconclusiveRow("Sum/64", record.UnitTime, 0.97, 1.024, 1.019), true},
		{inconclusiveRow("Sum/64", record.UnitTime, 0.97, 1.05, 1.04), false},
		{inconclusiveRow("Slow/64", record.UnitTime, 0.97, 1.05, 1.04), true}, // within its own 5%
		{inconclusiveRow("Slow/64", record.UnitTime, 0.97, 1.08, 1.07), false},
		{inconclusiveRow("Sum/64", record.UnitTime, 0.97, 1.01, 0), false}, // no bound recorded
	} {
		if got := p.RulesOut(m, tt.row); got != tt.want {
			t.Errorf("%s bound %v: RulesOut %v, want %v", tt.row.Name, tt.row.Paired.Bound, got, tt.want)
		}
		r := record.Result{Method: m, Benchmarks: []record.Benchmark{tt.row}}
		v := gate.Decide(r, p)
		if got := slices.Contains(v.RuledOutBenchmarks, gate.AckName(tt.row)); got != tt.want {
			t.Errorf("%s: the gate rules out %v, RulesOut %v", tt.row.Name, got, tt.want)
		}
	}
}
