package pipeline

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// instrSamples is one round of the instruction-count lane for name: base counts base, head counts
// head per op.
func instrSamples(name string, base, head float64) []benchtxt.Sample {
	var out []benchtxt.Sample
	for slot, side := range []record.Side{record.Base, record.Head, record.Head, record.Base} {
		v := base
		if side == record.Head {
			v = head
		}
		out = append(out, benchtxt.Sample{Name: name, Side: side, Slot: slot, Iters: 500,
			Values: []benchtxt.Value{{Value: v, Unit: record.UnitInstructions}}})
	}
	return out
}

// TestFromRunBothLanes: the time and instruction samples of one run are classified apart (counts
// never enter the time statistics: the sec/op rows have the samples of the timing lane only), and a
// benchmark whose lanes disagree carries the MetricNote on both rows.
func TestFromRunBothLanes(t *testing.T) {
	run := &benchrun.Run{Samples: slices.Concat(
		abbaRun("Encrypt/des", 6, 100, 100), abbaRun("KeySetup/des", 6, 100, 100),
		instrSamples("Encrypt/des", 20000, 16000), instrSamples("KeySetup/des", 5000, 5000))}
	rec := fromRun(run, nil, bench.DefaultStatsOptions, 0.5)
	got := map[string]record.Benchmark{}
	for _, b := range rec.benchmarks {
		got[b.Name+" "+b.Unit] = b
	}
	check := func(key string, class record.Class, n int, noted bool) {
		t.Helper()
		b, ok := got[key]
		if !ok {
			t.Fatalf("no row %q in %v", key, rec.benchmarks)
		}
		if b.Class != class || b.Base.N != n || b.Head.N != n || (b.MetricNote != "") != noted {
			t.Errorf("%s: %s, n %d/%d, metric note %q; want %s, n %d, noted %v", key, b.Class, b.Base.N, b.Head.N,
				b.MetricNote, class, n, noted)
		}
	}
	check("Encrypt/des sec/op", record.ClassUnchanged, 12, true)
	check("Encrypt/des instructions/op", record.ClassFaster, 2, true)
	check("KeySetup/des sec/op", record.ClassUnchanged, 12, false)
	check("KeySetup/des instructions/op", record.ClassUnchanged, 2, false)
	if note := got["Encrypt/des instructions/op"].MetricNote; !strings.Contains(note, "instructions/op are faster (-20.00%) but time is unchanged") ||
		!strings.Contains(note, "both gate") {
		t.Errorf("metric note %q", note)
	}
	if g := got["Encrypt/des instructions/op"]; math.Abs(g.DeltaPct+20) > 1e-9 || !g.Exact {
		t.Errorf("Encrypt/des instructions/op: delta %v exact %v, want -20, exact", g.DeltaPct, g.Exact)
	}
	// The instruction-only run: no time rows at all.
	rec = fromRun(&benchrun.Run{Samples: instrSamples("Encrypt/des", 20000, 20000)}, nil, bench.DefaultStatsOptions, 0.5)
	if len(rec.benchmarks) != 1 || rec.benchmarks[0].Unit != record.UnitInstructions || rec.benchmarks[0].DeltaPct != 0 {
		t.Errorf("instructions only: %+v, want one instructions/op row with delta exactly 0", rec.benchmarks)
	}
}
