package bench

import (
	"testing"

	"github.com/perfgate/perfgate/record"
)

func TestCombineLanes(t *testing.T) {
	timeRow := func(class record.Class, ratio, lo, hi float64) record.Benchmark {
		return record.Benchmark{Name: "X", Unit: record.UnitTime, Class: class,
			Paired: &record.Paired{Ratio: ratio, Lo: lo, Hi: hi}}
	}
	instrRow := func(class record.Class, base, head float64) record.Benchmark {
		return record.Benchmark{Name: "X", Unit: record.UnitInstructions, Class: class,
			Base: record.Summary{Center: base}, Head: record.Summary{Center: head}}
	}
	allocs := func(class record.Class) record.Benchmark {
		return record.Benchmark{Name: "X", Unit: "B/op", Class: class}
	}
	for _, tt := range []struct {
		name      string
		rows      []record.Benchmark
		hidden    []string
		wantClass record.Class
		wantNote  string
	}{
		{"the inversion: a conclusive time class stands",
			[]record.Benchmark{timeRow(record.ClassSlower, 1.095, 1.06, 1.13),
				instrRow(record.ClassFaster, 850473, 798430)}, nil,
			record.ClassSlower, "instructions -6.1%, time +9.5%: fewer instructions at a lower IPC; time gates: a settled time class stands, whatever the count"},
		{"a speedup that counts more instructions",
			[]record.Benchmark{timeRow(record.ClassFaster, 0.55, 0.53, 0.57), instrRow(record.ClassSlower, 1000, 1007.7)}, nil,
			record.ClassFaster, "instructions +0.8%, time -45.0%: more instructions at a higher IPC; time gates: a settled time class stands, whatever the count"},
		{"layout: equal counts settle an inconclusive benchmark",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 1.022, 1.009, 1.036), instrRow(record.ClassUnchanged, 608, 608),
				allocs(record.ClassUnchanged)}, nil,
			record.ClassUnchanged, "time inconclusive (+0.9% to +3.6%), instructions/op and allocations equal: " +
				"unchanged by the instruction count"},
		{"a size-class change: equal counts, more bytes",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 1.032, 0.99, 1.07), instrRow(record.ClassUnchanged, 608, 608),
				allocs(record.ClassSlower)}, nil,
			record.ClassInconclusive, "time is inconclusive (+3.2%) and instructions/op are unchanged (+0.00%); time gates: the count alone never settles which way the time went"},
		{"counts that moved settle no direction",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 1.02, 0.92, 1.29),
				instrRow(record.ClassFaster, 850473, 755206)}, nil,
			record.ClassInconclusive,
			"instructions -11.2%, time inconclusive (-8.0% to +29.0%): the work changed, which way the time went is not known; time gates: the count alone never settles which way the time went"},
		{"both lanes point the same way: the direction is settled",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 0.736, 0.579, 0.935),
				instrRow(record.ClassFaster, 215868, 147852)}, nil,
			record.ClassFaster, "time -42.1% to -6.5%, beyond half the threshold, but not significant after the " +
				"corrections for looks and benchmarks; instructions -31.5% the same way: faster by both lanes"},
		{"the same way, but the time interval reaches half the threshold",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 0.97, 0.94, 0.995),
				instrRow(record.ClassFaster, 1000, 900)}, nil,
			record.ClassInconclusive,
			"instructions -10.0%, time inconclusive (-6.0% to -0.5%): the work changed, which way the time went is not known; time gates: the count alone never settles which way the time went"},
		{"the lanes point opposite ways: nothing is settled",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 1.1, 1.03, 1.2),
				instrRow(record.ClassFaster, 850473, 798430)}, nil,
			record.ClassInconclusive,
			"instructions -6.1%, time inconclusive (+3.0% to +20.0%): the work changed, which way the time went is not known; time gates: the count alone never settles which way the time went"},
		{"a time interval beyond the band is not overruled",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 1.1, 1.03, 1.2),
				instrRow(record.ClassUnchanged, 608, 608)}, nil,
			record.ClassInconclusive, "time is inconclusive (+10.0%) and instructions/op are unchanged (+0.00%); time gates: the count alone never settles which way the time went"},
		{"hidden CPU features: the count settles nothing",
			[]record.Benchmark{timeRow(record.ClassInconclusive, 1.0, 0.99, 1.03), instrRow(record.ClassUnchanged, 608, 608)},
			[]string{"avx512f", "sha"}, record.ClassInconclusive,
			"valgrind hides CPU features this machine has (avx512f, sha): the code may take another path under " +
				"callgrind, so instructions/op settle nothing; time gates alone"},
		{"a time change with equal counts is said",
			[]record.Benchmark{timeRow(record.ClassSlower, 1.032, 1.025, 1.04), instrRow(record.ClassUnchanged, 608, 608)}, nil,
			record.ClassSlower,
			"instructions equal, time +3.2%: the same instructions run slower (layout, caches, or work the count leaves out); time gates: a settled time class stands, whatever the count"},
	} {
		CombineLanes(tt.rows, AutoOptions{ThresholdPct: 2, Hidden: tt.hidden})
		got := tt.rows[0]
		if got.Class != tt.wantClass || got.MetricNote != tt.wantNote {
			t.Errorf("%s: class %s, note %q; want %s, %q", tt.name, got.Class, got.MetricNote, tt.wantClass, tt.wantNote)
		}
		if tt.rows[1].MetricNote != got.MetricNote {
			t.Errorf("%s: the instructions/op row's note %q differs", tt.name, tt.rows[1].MetricNote)
		}
	}
}
