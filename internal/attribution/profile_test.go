package attribution

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/pprof/profile"
)

// synthProfile builds a CPU profile whose samples are stacks (leaf first) with the nanoseconds each
// took.
func synthProfile(t *testing.T, stacks map[string][]string, ns map[string]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
	}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l := locs[name]; l != nil {
			return l
		}
		f := &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name, Filename: "x.go"}
		funcs[name] = f
		p.Function = append(p.Function, f)
		l := &profile.Location{ID: uint64(len(locs) + 1), Line: []profile.Line{{Function: f, Line: 1}}}
		locs[name] = l
		p.Location = append(p.Location, l)
		return l
	}
	for key, stack := range stacks {
		s := &profile.Sample{Value: []int64{ns[key] / 10_000_000, ns[key]}}
		for _, fn := range stack {
			s.Location = append(s.Location, loc(fn))
		}
		p.Sample = append(p.Sample, s)
	}
	// Round trip through the encoding, as the pipeline reads files written by go test.
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := ReadProfile(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestDiffProfiles(t *testing.T) {
	stacks := map[string][]string{
		"round": {"x.round", "x.Encrypt", "testing.(*B).run1"},
		"enc":   {"x.Encrypt", "testing.(*B).run1"},
		"gc":    {"runtime.mallocgc", "x.Encrypt", "testing.(*B).run1"},
	}
	// base: 1,000 ops; round 400 ms, Encrypt's own 100 ms, allocation 0.
	base := synthProfile(t, stacks, map[string]int64{"round": 400e6, "enc": 100e6})
	// head: 2,000 ops; round 800 ms (the same per op), Encrypt's own 200 ms, allocation 300 ms: 150
	// µs/op more.
	head := synthProfile(t, stacks, map[string]int64{"round": 800e6, "enc": 200e6, "gc": 300e6})
	ds, err := DiffProfiles(base, head, 1000, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) == 0 || ds[0].Func != "runtime.mallocgc" {
		t.Fatalf("top change %+v, want runtime.mallocgc", ds)
	}
	near := func(x, want float64) bool { return math.Abs(x-want) < 1e-12 }
	if d := ds[0]; !near(d.HeadFlat, 150e-6) || d.BaseFlat != 0 {
		t.Errorf("mallocgc flat %v → %v s/op, want 0 → 150e-6", d.BaseFlat, d.HeadFlat)
	}
	for _, d := range ds {
		switch d.Func {
		case "x.round":
			t.Errorf("round's time per op did not change, yet it is listed: %+v", d)
		case "x.Encrypt":
			// Encrypt's cumulative time per op grew by the allocation: 500 → 650 µs/op; its flat
			// time stayed.
			if !near(d.BaseCum, 500e-6) || !near(d.HeadCum, 650e-6) || !near(d.FlatDelta(), 0) {
				t.Errorf("Encrypt %+v, want cum 500e-6 → 650e-6 and flat unchanged", d)
			}
		}
	}
	if _, err := DiffProfiles(base, head, 0, 1); err == nil {
		t.Error("no error for zero operations")
	}
}
