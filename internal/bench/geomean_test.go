package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/record"
)

func TestGeomeans(t *testing.T) {
	b := func(name, unit string, base, head float64) record.Benchmark {
		return record.Benchmark{Name: name, Unit: unit, Base: record.Summary{Center: base},
			Head: record.Summary{Center: head}}
	}
	bs := []record.Benchmark{
		// sec/op: base 2 and 8 (geomean 4), head 4 and 4 (geomean 4): one twice as slow, one twice
		// as fast, no change.
		b("A", "sec/op", 2e-9, 4e-9), b("B", "sec/op", 8e-9, 4e-9),
		b("Same", "sec/op", 0, 0), // not timed: left out
		// B/s: 100 → 125 and 400 → 500, +25% each: the row says +25%, base √(100·400) = 200, head
		// 250.
		b("A", "B/s", 100, 125), b("B", "B/s", 400, 500),
		b("A", "allocs/op", 3, 4), // one benchmark only: no row
		b("A", "instructions/op", 1000, 1100), b("B", "instructions/op", 10, 11), b("C", "instructions/op", 5, 0),
	}
	want := []record.Geomean{
		{Unit: "sec/op", Base: 4e-9, Head: 4e-9, Ratio: 1, N: 2},
		{Unit: "instructions/op", Base: 100, Head: 110, Ratio: 1.1, N: 2},
		{Unit: "B/s", Base: 200, Head: 250, Ratio: 1.25, N: 2},
	}
	if diff := cmp.Diff(want, Geomeans(bs), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("Geomeans (-want +got):\n%s", diff)
	}
	if got := Geomeans(nil); got != nil {
		t.Errorf("Geomeans(nil) = %v, want none", got)
	}
}
