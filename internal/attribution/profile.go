package attribution

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/google/pprof/profile"
)

// ProfileDelta is one function's CPU time per benchmark operation on both sides, from a CPU profile
// of each: flat (the function's own code, with what was inlined into it) and cumulative (with
// everything it called).
type ProfileDelta struct {
	Func                 string
	BaseFlat, HeadFlat   float64 // seconds per op
	BaseCum, HeadCum     float64 // seconds per op
	BaseShare, HeadShare float64 // flat share of the side's profiled time, 0–1
}

// FlatDelta is head's flat seconds per op minus base's.
func (d ProfileDelta) FlatDelta() float64 { return d.HeadFlat - d.BaseFlat }

// CumDelta is head's cumulative seconds per op minus base's.
func (d ProfileDelta) CumDelta() float64 { return d.HeadCum - d.BaseCum }

// ReadProfile parses a CPU profile as written by go test -cpuprofile.
func ReadProfile(r io.Reader) (*profile.Profile, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("reading a CPU profile: %w", err)
	}
	return p, nil
}

// cpuIndex returns the index of the profile's CPU time sample type (cpu, nanoseconds), as the Go
// runtime writes it.
func cpuIndex(p *profile.Profile) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			return i, nil
		}
	}
	return 0, fmt.Errorf("the profile has no cpu/nanoseconds samples")
}

// funcTimes returns, per function, the flat and cumulative nanoseconds of a CPU profile, and the
// total. A location's innermost line is where its time is flat; inlined frames (a location's other
// lines) count in the function they were inlined into for flat time, as in the binary, and
// cumulatively for themselves too.
func funcTimes(p *profile.Profile) (flat, cum map[string]float64, total float64, err error) {
	i, err := cpuIndex(p)
	if err != nil {
		return nil, nil, 0, err
	}
	flat, cum = map[string]float64{}, map[string]float64{}
	for _, s := range p.Sample {
		v := float64(s.Value[i])
		total += v
		seen := map[string]bool{}
		for li, loc := range s.Location {
			for k, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				name := ln.Function.Name
				// The outermost line of the leaf location is the function whose machine code ran.
				if li == 0 && k == len(loc.Line)-1 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	return flat, cum, total, nil
}

// DiffProfiles compares the CPU profiles of one benchmark on both sides, each over ops benchmark
// operations, and returns the functions whose flat or cumulative time per op changed, largest
// change of flat time first (then of cumulative time): what pprof -diff_base shows, per op, so that
// profiles of runs of different lengths compare.
func DiffProfiles(base, head *profile.Profile, baseOps, headOps int64) ([]ProfileDelta, error) {
	if baseOps <= 0 || headOps <= 0 {
		return nil, fmt.Errorf("no operations to divide by (base %d, head %d)", baseOps, headOps)
	}
	bf, bcum, btot, err := funcTimes(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	hf, hcum, htot, err := funcTimes(head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	names := map[string]bool{}
	for _, m := range []map[string]float64{bf, bcum, hf, hcum} {
		for n := range m {
			names[n] = true
		}
	}
	var out []ProfileDelta
	for n := range names {
		d := ProfileDelta{Func: n,
			BaseFlat: bf[n] / 1e9 / float64(baseOps), HeadFlat: hf[n] / 1e9 / float64(headOps),
			BaseCum: bcum[n] / 1e9 / float64(baseOps), HeadCum: hcum[n] / 1e9 / float64(headOps)}
		if btot > 0 {
			d.BaseShare = bf[n] / btot
		}
		if htot > 0 {
			d.HeadShare = hf[n] / htot
		}
		if d.FlatDelta() != 0 || d.CumDelta() != 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y ProfileDelta) int {
		return cmp.Or(cmp.Compare(math.Abs(y.FlatDelta()), math.Abs(x.FlatDelta())),
			cmp.Compare(math.Abs(y.CumDelta()), math.Abs(x.CumDelta())), cmp.Compare(x.Func, y.Func))
	})
	return out, nil
}
