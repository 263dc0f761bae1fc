package bisect

import (
	"testing"

	"github.com/perfgate/perfgate/record"
)

// timeRow is a sec/op row with a paired interval lo..hi (ratios) and a class.
func timeRow(name string, class record.Class, ratio, lo, hi float64) record.Benchmark {
	return record.Benchmark{Name: name, Unit: record.UnitTime, Class: class, Rounds: 5,
		Base: record.Summary{Center: 100}, Head: record.Summary{Center: 100 * ratio},
		Paired: &record.Paired{Ratio: ratio, Lo: lo, Hi: hi}}
}

// countRow is an instructions/op row from base to head.
func countRow(name string, class record.Class, base, head float64) record.Benchmark {
	return record.Benchmark{Name: name, Unit: record.UnitInstructions, Class: class, Exact: true,
		Base: record.Summary{Center: base}, Head: record.Summary{Center: head}}
}

func result(metric string, rows ...record.Benchmark) *record.Result {
	return &record.Result{Benchmarks: rows, Method: record.Method{Threshold: 2, Metric: metric}}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name    string
		res     *record.Result
		check   string
		want    Outcome
		bench   string  // the deciding benchmark
		lane    string  // its lane
		pct     float64 // its estimate
		wantErr bool
	}{
		{name: "slower by time", res: result(record.MetricTime,
			timeRow("A", record.ClassUnchanged, 1.001, 0.99, 1.01),
			timeRow("B", record.ClassSlower, 1.3, 1.28, 1.32),
			timeRow("C", record.ClassSlower, 1.1, 1.08, 1.12)),
			want: Slower, bench: "B", lane: "time", pct: 30},
		{name: "unchanged", res: result(record.MetricTime,
			timeRow("A", record.ClassUnchanged, 1.001, 0.99, 1.01),
			timeRow("B", record.ClassFaster, 0.7, 0.69, 0.71)),
			want: NotSlower, bench: "A", lane: "time", pct: 0.1},
		// Faster, amount unclear: the interval rules a slowdown beyond +2% out, so it is not
		// slower.
		{name: "inconclusive below the threshold", res: result(record.MetricTime,
			timeRow("A", record.ClassInconclusive, 0.97, 0.93, 1.01)),
			want: NotSlower, bench: "A"},
		{name: "inconclusive past the threshold", res: result(record.MetricTime,
			timeRow("A", record.ClassUnchanged, 1, 0.99, 1.01),
			timeRow("B", record.ClassInconclusive, 1.01, 0.97, 1.05)),
			want: Inconclusive, bench: "B", lane: "time", pct: 1},
		// metric both: time cannot tell, the count moved and time lies beyond half the threshold
		// the same way.
		{name: "count settles under both", res: result(record.MetricBoth,
			timeRow("A", record.ClassInconclusive, 1.04, 1.015, 1.07),
			countRow("A", record.ClassSlower, 1000, 1100)),
			want: Slower, bench: "A", lane: "time+count", pct: 4},
		// The count never overturns a conclusive time class.
		{name: "count never overturns time", res: result(record.MetricBoth,
			timeRow("A", record.ClassUnchanged, 1.0, 0.99, 1.01),
			countRow("A", record.ClassSlower, 1000, 1100)),
			want: NotSlower, bench: "A", lane: "time"},
		{name: "count alone", res: result(record.MetricInstructions,
			countRow("A", record.ClassSlower, 1000, 1500)),
			want: Slower, bench: "A", lane: "count", pct: 50},
		{name: "count that does not repeat is left out", res: result(record.MetricBoth,
			timeRow("A", record.ClassSlower, 1.1, 1.08, 1.12),
			countRow("A", record.ClassFailed, 1000, 1000)),
			want: Slower, bench: "A", lane: "time", pct: 10},
		{name: "does not build", res: &record.Result{HeadBuildFailed: true,
			Notes: []string{"head does not build: ./x.go:3: undefined: y\nmore"}},
			want: NoBuild},
		{name: "nothing compared", res: result(record.MetricTime,
			record.Benchmark{Name: "A", Unit: record.UnitTime, Class: record.ClassFailed}),
			want: NoRun},
		{name: "benchmark panics on the commit", res: &record.Result{
			Benchmarks: []record.Benchmark{timeRow("A", record.ClassUnchanged, 1, 0.99, 1.01)},
			Failures:   []record.Failure{{Name: "B", Side: record.Head, Kind: record.FailurePanic, Message: "boom"}},
			Method:     record.Method{Threshold: 2}},
			want: NoRun},
		{name: "a slowdown outranks a failure", res: &record.Result{
			Benchmarks: []record.Benchmark{timeRow("A", record.ClassSlower, 1.2, 1.1, 1.3)},
			Failures:   []record.Failure{{Name: "B", Side: record.Head, Kind: record.FailurePanic}},
			Method:     record.Method{Threshold: 2}},
			want: Slower, bench: "A", lane: "time", pct: 20},
		{name: "identical binaries", res: func() *record.Result {
			r := result(record.MetricTime, timeRow("A", record.ClassSlower, 1.03, 1.025, 1.035))
			r.Method.BinariesSame = true
			return r
		}(), want: NotSlower, bench: "A"},
		{name: "differential mismatch", check: CheckDifferential, res: &record.Result{
			Differential: record.Differential{Status: record.DiffMismatch, Ciphers: []record.Cipher{
				{Name: "NewCipher", Mismatches: 3}, {Name: "NewTripleEDE3"}}}},
			want: Slower, bench: "3 mismatches in NewCipher", lane: "differential"},
		{name: "differential identical", check: CheckDifferential, res: &record.Result{
			Differential: record.Differential{Status: record.DiffIdentical}},
			want: NotSlower},
		{name: "differential not comparable", check: CheckDifferential, res: &record.Result{
			Differential: record.Differential{Status: record.DiffNotComparable, Reason: "base harness"}},
			want: NoRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := tc.check
			if check == "" {
				check = CheckTime
			}
			p := Classify(tc.res, check)
			if p.Outcome != tc.want {
				t.Fatalf("outcome %s (%s), want %s", p.Outcome, p.Reason, tc.want)
			}
			if p.Outcome.skipped() && p.Reason == "" {
				t.Errorf("a skipped commit without a reason")
			}
			if tc.bench == "" {
				return
			}
			if p.Change == nil || p.Change.Benchmark != tc.bench {
				t.Fatalf("deciding change %v, want benchmark %s", p.Change, tc.bench)
			}
			if tc.lane != "" && p.Change.Lane != tc.lane {
				t.Errorf("lane %s, want %s", p.Change.Lane, tc.lane)
			}
			if tc.pct != 0 && (p.Change.Pct < tc.pct-1e-6 || p.Change.Pct > tc.pct+1e-6) {
				t.Errorf("pct %g, want %g", p.Change.Pct, tc.pct)
			}
		})
	}
}

func TestClassifyNoBuildReason(t *testing.T) {
	p := Classify(&record.Result{HeadBuildFailed: true,
		Notes: []string{"base and head differ", "head does not build: go test -c: exit status 1\n  ./x.go:3: undefined: y\n./x.go:4: more"}}, CheckTime)
	if p.Reason != "./x.go:3: undefined: y" {
		t.Errorf("reason %q, want the first compiler error of head's build note", p.Reason)
	}
	p = Classify(&record.Result{HeadBuildFailed: true, Notes: []string{"head: no Go files\nmore"}}, CheckTime)
	if p.Reason != "head: no Go files" {
		t.Errorf("reason %q, want the first line of head's note", p.Reason)
	}
}
