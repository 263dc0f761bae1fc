package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/record"
)

func TestPhasesText(t *testing.T) {
	got := phasesText([]record.Phase{{Name: "export", Wall: 20 * time.Millisecond},
		{Name: "build", Wall: 4200 * time.Millisecond}, {Name: "tests", Wall: 90 * time.Millisecond, FromStore: 2},
		{Name: "sizes", Wall: 300 * time.Millisecond}, {Name: "timing", Wall: 61 * time.Second}})
	want := "build 4.2s, tests 100ms with 2 artifacts from the store, timing 1m1s, the rest 300ms"
	if got != want {
		t.Errorf("phasesText:\n got %q\nwant %q", got, want)
	}
	// A phase beside another is named with it, and its time is not the rest's.
	got = phasesText([]record.Phase{{Name: "tests", Wall: 200 * time.Millisecond},
		{Name: "timing and counting", Wall: 95 * time.Second},
		{Name: "constant time", Wall: 40 * time.Second, FromStore: 3, Alongside: "timing and counting"},
		{Name: "sizes", Wall: 100 * time.Millisecond, Alongside: "timing and counting"}})
	want = "timing and counting 1m35s, constant time 40s beside timing and counting with 3 artifacts from the " +
		"store, the rest 200ms"
	if got != want {
		t.Errorf("phasesText beside:\n got %q\nwant %q", got, want)
	}
	if got := phasesText(nil); got != "" {
		t.Errorf("no phases: %q", got)
	}
}

// The method line says how long a run was: the calibration target, or the fixed count of -benchtime
// Nx, which no calibration chose.
func TestTimedMethodBenchTime(t *testing.T) {
	plain := func(s string) string { return s }
	m := record.Method{Rounds: 5, BenchTime: 100 * time.Millisecond, Threshold: 2, Alpha: 0.05}
	if got := timedMethod(m, plain); !strings.Contains(got, "benchtime 100ms per run") {
		t.Errorf("calibrated: %q", got)
	}
	m.BenchTime, m.BenchIters = 0, 1500
	got := timedMethod(m, plain)
	if !strings.Contains(got, "benchtime 1500x (1,500 iterations a run, not calibrated)") || strings.Contains(got, "per run") {
		t.Errorf("fixed count: %q", got)
	}
}

// The method says where the scheduler ran the lanes and why, when it had a CPU to spare; a run
// without one has no Schedule line.
func TestMethodSchedule(t *testing.T) {
	plain := func(s string) string { return s }
	r := &record.Result{Method: record.Method{Metric: record.MetricAuto, Rounds: 5, Threshold: 2, InstrThreshold: 1,
		Schedule: "timed on CPU 1 with nothing beside it: a valgrind on CPU 0 moved a timed probe on CPU 1 by " +
			"+2.8% ±0.2%, not within a quarter of the ±2% threshold, so the instruction count ran before the timing"}}
	var got string
	for _, l := range MethodLines(r, plain) {
		if l[0] == "Schedule" {
			got = l[1]
		}
	}
	if got != r.Method.Schedule {
		t.Errorf("Schedule line %q, want %q", got, r.Method.Schedule)
	}
	r.Method.Schedule = ""
	for _, l := range MethodLines(r, plain) {
		if l[0] == "Schedule" {
			t.Errorf("a Schedule line without a schedule: %q", l[1])
		}
	}
}

// The method line says how the processes were warmed up and what they paid for memory per op, the
// evidence a user reads a level off go test's by; results from before the evidence say nothing.
func TestTimedMethodSteady(t *testing.T) {
	plain := func(s string) string { return s }
	m := record.Method{Rounds: 5, BenchTime: 10 * time.Millisecond, Threshold: 2, Alpha: 0.05,
		Steady: &record.Steady{WarmUp: 1, FaultsLo: 0.00123, FaultsHi: 0.4567, GCsLo: 0, GCsHi: 0.000213}}
	got := timedMethod(m, plain)
	want := "; each process ran 1 sub-run at the run's iteration count first, discarded (warm-up); per op, medians " +
		"across benchmarks: 0.00123–0.457 page faults, 0–0.000213 collections (bench.txt: faults/op, gcs/op)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("method:\n got %q\nwant it to end %q", got, want)
	}
	m.Steady = &record.Steady{WarmUp: 1, FaultsLo: 0.02, FaultsHi: 0.02, GCsLo: -1, GCsHi: -1}
	if got := timedMethod(m, plain); !strings.HasSuffix(got, "per op, medians across benchmarks: 0.02 page faults "+
		"(bench.txt: faults/op, gcs/op)") {
		t.Errorf("one benchmark, collections not counted: %q", got)
	}
	m.Steady = nil
	if got := timedMethod(m, plain); strings.Contains(got, "warm") || strings.Contains(got, "faults") {
		t.Errorf("no evidence kept: %q", got)
	}
}

func TestSteadyEvidenceJSON(t *testing.T) {
	// result.json's names for the evidence, which scripts may read (not among the fields whose
	// change bumps the schema)
	r := record.Result{Method: record.Method{Steady: &record.Steady{WarmUp: 1, FaultsLo: 0.5, FaultsHi: 2, GCsLo: 0,
		GCsHi: 0.001}}}
	b, err := json.Marshal(r.Method.Steady)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"warm_up_sub_runs":1,"faults_per_op_lo":0.5,"faults_per_op_hi":2,"gcs_per_op_lo":0,"gcs_per_op_hi":0.001}`
	if string(b) != want {
		t.Errorf("json %s, want %s", b, want)
	}
}
