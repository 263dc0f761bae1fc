package gate

import (
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestWorseAtEdge: a slower row whose interval reaches back over the threshold says so, with the
// interval (issue 54, item 6); one clear of it reads as before.
func TestWorseAtEdge(t *testing.T) {
	m := record.Method{Threshold: 2, InstrThreshold: 1}
	check := func(b record.Benchmark, want string) {
		t.Helper()
		if got := worse(b, m); got != want {
			t.Errorf("worse(%s %+v) = %q, want %q", b.Unit, *b.Paired, got, want)
		}
	}
	check(record.Benchmark{Name: "Encrypt/des", Unit: record.UnitTime, Paired: &record.Paired{Ratio: 1.024, Lo: 1.014, Hi: 1.033}},
		"Encrypt/des is slower (+2.4% [+1.4%, +3.3%]: the threshold 2% lies inside the interval)")
	check(record.Benchmark{Name: "Encrypt/des", Unit: record.UnitTime, Paired: &record.Paired{Ratio: 1.05, Lo: 1.03, Hi: 1.07}},
		"Encrypt/des is slower (+5.0%)")
	check(record.Benchmark{Name: "Encrypt/des", Unit: "B/s", Paired: &record.Paired{Ratio: 0.976, Lo: 0.967, Hi: 0.986}},
		"Encrypt/des is worse in B/s (-2.4% [-3.3%, -1.4%]: the threshold 2% lies inside the interval)")
	check(record.Benchmark{Name: "KeySetup/des", Unit: record.UnitInstructions, Paired: &record.Paired{Ratio: 1.012, Lo: 1.008, Hi: 1.016}},
		"KeySetup/des runs more instructions/op (+1.20% [+0.8%, +1.6%]: the threshold 1% lies inside the interval)")
}
