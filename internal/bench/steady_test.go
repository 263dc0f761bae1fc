package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

func TestSteadyEvidence(t *testing.T) {
	s := func(name string, faults, gcs float64) benchtxt.Sample {
		return benchtxt.Sample{Name: name, Process: &benchtxt.Process{Faults: faults, GCs: gcs}}
	}
	samples := []benchtxt.Sample{
		// median 0.7, 0.002
		s("KeySetup", 0.5, 0.001), s("KeySetup", 0.7, 0.002), s("KeySetup", 9, 0.002),
		s("Encrypt", 0.001, 0), s("Encrypt", 0.003, 0), // median 0.002, 0
		{Name: "Old"}, // a sample without evidence counts for nothing
	}
	want := &record.Steady{WarmUp: 1, FaultsLo: 0.002, FaultsHi: 0.7, GCsLo: 0, GCsHi: 0.002}
	if diff := cmp.Diff(want, SteadyEvidence(samples, 1)); diff != "" {
		t.Errorf("SteadyEvidence (-want +got):\n%s", diff)
	}
	if got := SteadyEvidence([]benchtxt.Sample{s("A", 0.1, -1)}, 1); got == nil || got.GCsLo != -1 || got.GCsHi != -1 {
		t.Errorf("collections not counted: %+v", got)
	}
	if got := SteadyEvidence([]benchtxt.Sample{{Name: "Old"}}, 1); got != nil {
		t.Errorf("no evidence: %+v", got)
	}
}
