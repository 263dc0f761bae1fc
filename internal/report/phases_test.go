package report

import (
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
