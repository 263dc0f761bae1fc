package corpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

func TestScore(t *testing.T) {
	// Truth: A +10% [+9, +11] (a change), B −0.2% [−0.9, +0.5] (neutral), C +1.5% [+0.5, +2.6]
	// (below the threshold but not surely), D −20% [−21, −19] (a change).
	p := &Pair{Name: "p", Truth: &Truth{Benches: []TruthBench{
		{Name: "A", Pct: 10, Lo: 9, Hi: 11},
		{Name: "B", Pct: -0.2, Lo: -0.9, Hi: 0.5},
		{Name: "C", Pct: 1.5, Lo: 0.5, Hi: 2.6},
		{Name: "D", Pct: -20, Lo: -21, Hi: -19},
	}}}
	row := func(name, unit string, c record.Class) record.Benchmark {
		return record.Benchmark{Name: name, Unit: unit, Class: c}
	}
	check := func(name string, rows []record.Benchmark, exit int, units []string, want []BenchScore, ff, unsure bool) {
		t.Helper()
		o := &Outcome{ExitCode: exit, Result: &record.Result{Benchmarks: rows,
			Method: record.Method{Threshold: 2, InstrThreshold: 0.5}}}
		got := Score(p, o, Rule{Threshold: 2, Units: units})
		for i := range got.Benches {
			got.Benches[i].Truth, got.Benches[i].Claims = TruthBench{}, nil
		}
		for i := range want {
			// a settled class answers the gate
			want[i].GateSettled = want[i].GateSettled || want[i].Settled
		}
		if diff := cmp.Diff(want, got.Benches); diff != "" {
			t.Errorf("%s: benches (-want +got):\n%s", name, diff)
		}
		if got.FalseFail != ff || got.Unsure != unsure {
			t.Errorf("%s: false failure %v, unsure %v; want %v, %v", name, got.FalseFail, got.Unsure, ff, unsure)
		}
	}
	sec := []string{"sec/op"}
	check("right", []record.Benchmark{
		row("A", "sec/op", record.ClassSlower), row("B", "sec/op", record.ClassUnchanged),
		row("C", "sec/op", record.ClassInconclusive), row("D", "sec/op", record.ClassFaster),
		row("A", "instructions/op", record.ClassFaster), // not a claim under sec/op
	}, 1, sec, []BenchScore{
		{Name: "A", Settled: true, Change: true, Found: true},
		{Name: "B", Settled: true},
		{Name: "C"},
		{Name: "D", Settled: true, Change: true, Found: true},
	}, false, false)
	check("wrong", []record.Benchmark{
		row("A", "instructions/op", record.ClassFaster), row("B", "instructions/op", record.ClassSlower),
		row("C", "instructions/op", record.ClassSlower), row("D", "instructions/op", record.ClassUnchanged),
	}, 1, []string{"instructions/op"}, []BenchScore{
		{Name: "A", Settled: true, Change: true, DirErr: true},
		{Name: "B", Settled: true, DirErr: true},
		{Name: "C", Settled: true}, // C may be beyond +2%: calling it slower is not an error
		{Name: "D", Settled: true, Change: true, Missed: true},
	}, false, false)
	// A same-code row of the top-level benchmark speaks for its sub-benchmarks.
	p.Truth.Benches[1].Name = "B/sub"
	check("same code", []record.Benchmark{{Name: "B", Unit: "sec/op", Class: record.ClassUnchanged, SameCode: true}},
		0, sec, []BenchScore{{Name: "A", Change: true}, {Name: "B/sub", Settled: true}, {Name: "C"},
			{Name: "D", Change: true}}, false, false)
	p.Truth.Benches[1].Name = "B"
	// Without A, no truth is surely slower beyond 2%: a FAIL is unsure (because of C), and a false
	// failure when C is gone too.
	p.Truth.Benches = p.Truth.Benches[1:]
	check("unsure", []record.Benchmark{row("C", "sec/op", record.ClassSlower)}, 1, sec, []BenchScore{
		{Name: "B"}, {Name: "C", Settled: true}, {Name: "D", Change: true},
	}, false, true)
	p.Truth.Benches = p.Truth.Benches[:1]
	check("false failure", []record.Benchmark{row("B", "sec/op", record.ClassSlower)}, 1, sec, []BenchScore{
		{Name: "B", Settled: true, DirErr: true},
	}, true, false)
	// An inconclusive claim whose one-sided bound rules out a slowdown beyond the threshold answers
	// the gate's question; one whose bound reaches past it does not.
	ruled := row("B", "sec/op", record.ClassInconclusive)
	ruled.Paired = &record.Paired{Ratio: 0.97, Lo: 0.93, Hi: 1.01, Bound: 1.005}
	check("ruled out", []record.Benchmark{ruled}, record.ExitPass, sec,
		[]BenchScore{{Name: "B", GateSettled: true}}, false, false)
	ruled.Paired = &record.Paired{Ratio: 0.99, Lo: 0.95, Hi: 1.04, Bound: 1.03}
	check("not ruled out", []record.Benchmark{ruled}, record.ExitInconclusive, sec,
		[]BenchScore{{Name: "B"}}, true, false)
	// An INCONCLUSIVE verdict blocks the merge too: where the truth is neutral, that is a false
	// failure.
	check("blocked", []record.Benchmark{row("B", "sec/op", record.ClassInconclusive)}, record.ExitInconclusive, sec,
		[]BenchScore{{Name: "B"}}, true, false)
	check("error", []record.Benchmark{row("B", "sec/op", record.ClassInconclusive)}, record.ExitCannotRun, sec,
		[]BenchScore{{Name: "B"}}, false, false)
}

func TestSum(t *testing.T) {
	got := Sum([]PairScore{
		{ExitCode: record.ExitPass, Status: "pass"},
		{ExitCode: record.ExitFail, Status: "fail", FalseFail: true},
		{ExitCode: record.ExitInconclusive, Status: "inconclusive", Unsure: true},
		{ExitCode: record.ExitCannotRun, Status: "error"},
		{ExitCode: record.ExitCannotRun, Status: "no result"},
	})
	want := Totals{Pairs: 5, Fails: 1, Inconclusive: 1, Errors: 2, FalseFails: 1, Unsure: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sum (-want +got):\n%s", diff)
	}
}

func TestParseTruth(t *testing.T) {
	tr := &Truth{Command: "perfgate compare -pkg ./mix base head", Measured: "2026-12-01T20:00:00Z",
		Machine: "AMD EPYC", Load: "1 2 3", Notes: []string{"noisy"}, Benches: []TruthBench{
			{Name: "Mix", Pct: 9.88, Lo: 9.23, Hi: 10.53, NoisePct: 2.38, Rounds: 40},
			{Name: "Sum/64", Pct: -0.09, Lo: -0.8, Hi: 0.63, NoisePct: 3.28, Rounds: 40},
		}}
	got, err := ParseTruth(tr.Format())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tr, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, bad := range []struct{ text, want string }{
		{"command: c\nmeasured: m\nbench A slower +1 -1 +2 0 3\n", `direction "slower", but the interval`},
		{"command: c\nmeasured: m\nbench A faster +5 -1 +2 0 3\n", "outside its interval"},
		{"command: c\nmeasured: m\nbench A slower +1\n", "want 7 fields"},
		{"command: c\nmeasured: m\n", `no "bench" lines`},
		{"measured: m\nbench A unchanged 0 -1 1 0 3\n", `want "command:"`},
		{"command: c\nmeasured: m\nwho: me\n", `unknown key "who"`},
	} {
		if _, err := ParseTruth([]byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseTruth(%q) = %v, want an error containing %q", bad.text, err, bad.want)
		}
	}
}
