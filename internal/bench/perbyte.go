package bench

import (
	"math"
	"slices"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// PerByte adds instructions/B, and est-cycles/B where the sample has est-cycles/op, to every
// instruction-count sample in counts of a benchmark that sets bytes (b.SetBytes), dividing by the
// bytes per op its side processes. Those come from the timing lane's samples in timed, B/s × sec/op
// (the testing package prints only the throughput): the median over the side's samples, rounded to
// a whole byte where that is within print precision. The quotient is then as exact as the count, to
// about 10⁻⁵ of it, a hundredth of RepeatTolerance. A benchmark without bytes, or without timed
// samples on a side, gets no per-byte values. counts changes in place.
func PerByte(counts, timed []benchtxt.Sample) {
	type key struct {
		name string
		side record.Side
	}
	perOp := map[key][]float64{}
	for _, s := range timed {
		bps, ok1 := s.Get("B/s")
		sec, ok2 := s.Get(record.UnitTime)
		if ok1 && ok2 && bps > 0 && sec > 0 {
			k := key{s.Name, s.Side}
			perOp[k] = append(perOp[k], bps*sec)
		}
	}
	bytes := map[key]float64{}
	for k, xs := range perOp {
		b := Median(slices.Sorted(slices.Values(xs)))
		if r := math.Round(b); r >= 1 && math.Abs(b-r) <= 1e-4*b {
			b = r
		}
		bytes[k] = b
	}
	for i := range counts {
		s := &counts[i]
		b := bytes[key{s.Name, s.Side}]
		if !(b > 0) {
			continue
		}
		for _, u := range [][2]string{{record.UnitInstructions, record.UnitInstructionsPerByte},
			{record.UnitEstCycles, record.UnitEstCyclesPerByte}} {
			_, done := s.Get(u[1])
			if v, ok := s.Get(u[0]); ok && !done {
				s.Values = append(slices.Clip(s.Values), benchtxt.Value{Value: v / b, Unit: u[1]})
			}
		}
	}
}
