package bench

import (
	"math"
	"testing"
	"time"
)

// TestSteadyLength drives the run-length decision with synthetic per-op times: a fresh process's first
// milliseconds of allocation run 7% fast (the size-class fixture at 10 ms runs) and settle by 40 ms; one that
// never settles runs at the long length; one that is steady from the start keeps the short runs; a failed probe at
// the long length changes nothing.
func TestSteadyLength(t *testing.T) {
	const ms = time.Millisecond
	curve := func(points map[time.Duration]float64) func(time.Duration) (float64, bool) {
		return func(d time.Duration) (float64, bool) { x, ok := points[d]; return x, ok }
	}
	for _, tc := range []struct {
		name  string
		perOp func(time.Duration) (float64, bool)
		want  time.Duration
		off   float64
	}{
		{"settles at 40 ms", curve(map[time.Duration]float64{10 * ms: 0.93, 40 * ms: 0.995, 100 * ms: 1}), 40 * ms, -0.07},
		{"never settles", curve(map[time.Duration]float64{10 * ms: 0.93, 40 * ms: 0.96, 100 * ms: 1}), 100 * ms, -0.07},
		{"steady", curve(map[time.Duration]float64{10 * ms: 1.004, 100 * ms: 1}), 10 * ms, 0.004},
		{"long probe fails", curve(map[time.Duration]float64{10 * ms: 0.5}), 10 * ms, 0},
		{"short probe fails", curve(map[time.Duration]float64{100 * ms: 1}), 100 * ms, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, off := steadyLength(tc.perOp, 10*ms, 100*ms, 0.01)
			if got != tc.want || math.Abs(off-tc.off) > 1e-9 {
				t.Errorf("steadyLength = %s, %+.3f; want %s, %+.3f", got, off, tc.want, tc.off)
			}
		})
	}
}
