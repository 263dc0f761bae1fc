package bench

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// TestPerByte: instruction-count samples of a benchmark that sets bytes get instructions/B (and
// est-cycles/B with the cache simulation) from the bytes per op its timed samples give, B/s ×
// sec/op, rounded to the whole byte that go test's print precision blurs; each side with its own
// bytes. A benchmark without B/s gets none, and the comparison of the per-byte counts is as exact
// as the count's.
func TestPerByte(t *testing.T) {
	var timed []benchtxt.Sample
	for i, sec := range []float64{1.2345e-6, 1.3311e-6, 1.2899e-6, 1.30001e-6} {
		side := []record.Side{record.Base, record.Head, record.Head, record.Base}[i]
		bytes := 4096.0
		if side == record.Head {
			bytes = 8192
		}
		// go test prints MB/s with two decimals: the throughput carries a rounding error of up to
		// 0.005 MB/s.
		bps := math.Round(bytes/sec/1e6*100) / 100 * 1e6
		timed = append(timed, benchtxt.Sample{Name: "Seal/4K", Side: side, Slot: i, Values: []benchtxt.Value{{Value: sec, Unit: "sec/op"},
			{Value: bps, Unit: "B/s"}}}, benchtxt.Sample{Name: "KeySetup", Side: side, Slot: i,
			Values: []benchtxt.Value{{Value: sec, Unit: "sec/op"}}})
	}
	var counts []benchtxt.Sample
	for i, side := range []record.Side{record.Base, record.Head, record.Head, record.Base} {
		n := 40960.0
		if side == record.Head {
			n = 2 * 40960
		}
		counts = append(counts, benchtxt.Sample{Name: "Seal/4K", Side: side, Slot: i, Values: []benchtxt.Value{
			{Value: n, Unit: record.UnitInstructions}, {Value: 1.5 * n, Unit: record.UnitEstCycles}}},
			benchtxt.Sample{Name: "KeySetup", Side: side, Slot: i, Values: []benchtxt.Value{{Value: 500, Unit: record.UnitInstructions}}})
	}
	PerByte(counts, timed)
	for _, s := range counts {
		ipb, ok1 := s.Get(record.UnitInstructionsPerByte)
		cpb, ok2 := s.Get(record.UnitEstCyclesPerByte)
		switch s.Name {
		case "Seal/4K":
			if !ok1 || !ok2 || ipb != 10 || cpb != 15 {
				t.Errorf("Seal/4K on %s: instructions/B %v (%v), est-cycles/B %v (%v); want exactly 10 and 15", s.Side,
					ipb, ok1, cpb, ok2)
			}
		case "KeySetup":
			if ok1 || ok2 {
				t.Errorf("KeySetup sets no bytes, but got instructions/B %v, est-cycles/B %v", ipb, cpb)
			}
		}
	}
	cs, err := CompareInstructions(counts, DefaultInstrThresholdPct)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		perByte := c.Name == "Seal/4K" && c.Unit == record.UnitInstructionsPerByte
		if perByte && (c.Class != record.ClassUnchanged || c.DeltaPct != 0) {
			t.Errorf("Seal/4K instructions/B: %s %+g%%; want unchanged, exactly 0 (twice the work on twice the bytes)",
				c.Class, c.DeltaPct)
		}
	}
}
