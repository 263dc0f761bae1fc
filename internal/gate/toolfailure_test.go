package gate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// TestToolFailureNeverFails: a failure under a measuring tool (Failure.Under), of any kind, on
// either side, in calibration or in a round, with or without head's benchmark code on base, never
// fails the gate: it is a note, and the verdict is what the rest of the result says. The same
// failure in a native run on head fails it, so the test can tell.
func TestToolFailureNeverFails(t *testing.T) {
	c := config.Default()
	policy := c.Policy()
	kinds := []record.FailureKind{record.FailurePanic, record.FailureTimeout, record.FailureExit,
		record.FailureNoResult, record.FailureRemoved, record.FailureUnrepeatable}
	for _, kind := range kinds {
		for _, side := range []record.Side{record.Base, record.Head} {
			for _, round := range []int{0, 1} {
				for _, likeForLike := range []bool{false, true} {
					r := passing()
					if likeForLike {
						r.Method.BenchSource = record.BenchSourceHead
					}
					f := record.Failure{Name: "Encrypt/des", Side: side, Round: round, Slot: 1, Kind: kind,
						Message: "valgrind cannot decode RDTSCP (0F 01 F9) in runtime.cputicks; under valgrind: exit status 2",
						Under:   "valgrind"}
					r.Failures = []record.Failure{f}
					v := gate.Decide(*r, policy)
					if v.Status != record.StatusPass || v.ExitCode != record.ExitPass {
						t.Errorf("%s on %s (round %d, like-for-like %v) under valgrind: %s, exit %d, reasons %q; want pass",
							kind, side, round, likeForLike, v.Status, v.ExitCode, v.Reasons)
					}
					if !containsPart(v.Notes, "the tool's failure, not the code's: valgrind cannot decode RDTSCP") {
						t.Errorf("%s on %s under valgrind: notes %q; want the tool's diagnosis", kind, side, v.Notes)
					}
				}
			}
		}
	}
	r := passing()
	r.Failures = []record.Failure{{Name: "Encrypt/des", Side: record.Head, Round: 1, Kind: record.FailurePanic,
		Message: "panic: boom"}}
	if v := gate.Decide(*r, policy); v.Status != record.StatusFail ||
		!containsPart(v.Reasons, "fails on head") {
		t.Errorf("a native panic on head: %s, reasons %q; want a failure", v.Status, v.Reasons)
	}
}

// TestHostNoiseSaidOnce: when the host's noise kept most open benchmarks from settling (their
// smallest detectable effect above the threshold), the inconclusive reason says so once, with a
// budget and perfgate doctor; when the intervals were narrow enough, it does not.
func TestHostNoiseSaidOnce(t *testing.T) {
	c := config.Default()
	policy := c.Policy()
	decide := func(mde float64) record.Verdict {
		r := passing()
		r.Method.Threshold, r.Method.TimedPhase = 2, 100*time.Second
		r.Benchmarks = nil
		for _, name := range []string{"Encrypt/a", "Encrypt/b", "Encrypt/c"} {
			b := secOp(name, record.ClassInconclusive, 1.01)
			b.Paired.Lo, b.Paired.Hi, b.Paired.Bound = 0.98, 1.04, 1.035
			b.MDEPct = mde
			r.Benchmarks = append(r.Benchmarks, b)
		}
		return gate.Decide(*r, policy)
	}
	v := decide(3)
	all := strings.Join(append(v.Reasons, v.Notes...), "\n")
	if v.Status != record.StatusInconclusive || strings.Count(all, "this host's noise kept 3 of them open") != 1 ||
		!strings.Contains(all, "a budget of about 3m50s") || !strings.Contains(all, "perfgate doctor -pkg") {
		t.Errorf("MDE 3%% against ±2%%: %s, %q; want inconclusive, the host's noise said once with a budget", v.Status, all)
	}
	v = decide(1)
	if all := strings.Join(append(v.Reasons, v.Notes...), "\n"); strings.Contains(all, "host's noise") {
		t.Errorf("MDE 1%% against ±2%%: %q; the host's noise is not what kept them open", all)
	}
}
