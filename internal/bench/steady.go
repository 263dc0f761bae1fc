package bench

import (
	"slices"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// SteadyEvidence sums up the samples' process evidence (benchtxt.Process) for the method: per
// benchmark the median page faults and collections per op, and the lowest and highest of those
// medians. warmUp is the sub-runs each process ran first and discarded. It returns nil when no
// sample carries evidence.
func SteadyEvidence(samples []benchtxt.Sample, warmUp int) *record.Steady {
	faults, gcs := map[string][]float64{}, map[string][]float64{}
	var names []string
	for _, s := range samples {
		p := s.Process
		if p == nil {
			continue
		}
		if _, ok := faults[s.Name]; !ok {
			names = append(names, s.Name)
		}
		faults[s.Name] = append(faults[s.Name], p.Faults)
		if p.GCs >= 0 {
			gcs[s.Name] = append(gcs[s.Name], p.GCs)
		}
	}
	if len(names) == 0 {
		return nil
	}
	var fm, gm []float64
	for _, n := range names {
		fm = append(fm, Median(faults[n]))
		if len(gcs[n]) > 0 {
			gm = append(gm, Median(gcs[n]))
		}
	}
	st := &record.Steady{WarmUp: warmUp, FaultsLo: slices.Min(fm), FaultsHi: slices.Max(fm), GCsLo: -1, GCsHi: -1}
	if len(gm) > 0 {
		st.GCsLo, st.GCsHi = slices.Min(gm), slices.Max(gm)
	}
	return st
}
