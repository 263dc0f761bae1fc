package benchout

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchtxt"
)

func TestPattern(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Fast", `^BenchmarkFast$`},
		{"Encrypt/des/single", `^BenchmarkEncrypt$/^des$/^single$`},
		{"Odd/x[1]+(y)|z", `^BenchmarkOdd$/^x\[1\]\+\(y\)\|z$`},
		{"Odd/$^.*", `^BenchmarkOdd$/^\$\^\.\*$`},
		{"Odd/dup#01", `^BenchmarkOdd$/^dup#01$`},
	}
	for _, tt := range tests {
		if got := Pattern(tt.name); got != tt.want {
			t.Errorf("Pattern(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got, want := SkipPattern([]string{"A/b", "C"}), `^BenchmarkA$/^b$|^BenchmarkC$`; got != want {
		t.Errorf("SkipPattern = %q, want %q", got, want)
	}
}

// calibrationOutput is -test.v benchmark output of a run that crashed in X/a/two, shaped as go1.26
// prints it.
const calibrationOutput = `goos: linux
goarch: amd64
pkg: example.com/fix
cpu: AMD EPYC
BenchmarkX
BenchmarkX/a
BenchmarkX/a/one
BenchmarkX/a/one         	 1000000	      1050 ns/op	  15.24 MB/s	      16 B/op	       1 allocs/op
BenchmarkX/f
    fix_test.go:9: fatal on purpose
--- FAIL: BenchmarkX/f
BenchmarkX/size-8
BenchmarkX/size-8        	     300	      2.5 ns/op	       0 B/op	       0 allocs/op
BenchmarkX/a/two
`

func TestParseOutput(t *testing.T) {
	out := Parse([]byte(calibrationOutput + "--- FAIL: BenchmarkX\n"))
	want := []Result{
		{Name: "X/a/one", Iters: 1000000, Values: []benchtxt.Value{
			{Value: 1050e-9, Unit: "sec/op"}, {Value: 15.24e6, Unit: "B/s"}, {Value: 16, Unit: "B/op"}, {Value: 1, Unit: "allocs/op"}}},
		{Name: "X/size-8", Iters: 300, Values: []benchtxt.Value{{Value: 2.5e-9, Unit: "sec/op"}, {Value: 0, Unit: "B/op"}, {Value: 0, Unit: "allocs/op"}}},
	}
	if diff := cmp.Diff(want, out.Results, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	wantHeader := map[string]string{"goos": "linux", "goarch": "amd64", "pkg": "example.com/fix", "cpu": "AMD EPYC"}
	if diff := cmp.Diff(wantHeader, out.Header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if got := out.Unfinished(); got != "X/a/two" {
		t.Errorf("Unfinished = %q, want X/a/two", got)
	}
	if diff := cmp.Diff([]string{"X/f"}, out.FailedLeaves()); diff != "" {
		t.Errorf("FailedLeaves (-want +got):\n%s", diff)
	}
	if got, want := FailBlock([]byte(calibrationOutput), "X/f"), "--- FAIL: BenchmarkX/f\n    fix_test.go:9: fatal on purpose"; got != want {
		t.Errorf("FailBlock = %q, want %q", got, want)
	}
	if got := Parse([]byte("BenchmarkX\nBenchmarkX 10 5 ns/op\n")).Unfinished(); got != "" {
		t.Errorf("Unfinished of a finished run = %q, want none", got)
	}
}

func TestPanicMessage(t *testing.T) {
	stderr := "some log\npanic: boom\n\ngoroutine 7 [running]:\nexample.com/fix.BenchmarkPanic(0xc0)\n\tfix_test.go:60 +0x25\ntesting.(*B).runN(0xc0, 0x1)\n\ttesting/benchmark.go:219 +0x190\nmore\n"
	want := "panic: boom\n\ngoroutine 7 [running]:\nexample.com/fix.BenchmarkPanic(0xc0)\n\tfix_test.go:60 +0x25\ntesting.(*B).runN(0xc0, 0x1)\n\ttesting/benchmark.go:219 +0x190"
	if got := PanicMessage([]byte(stderr)); got != want {
		t.Errorf("PanicMessage =\n%s\nwant\n%s", got, want)
	}
	if got := PanicMessage([]byte("fatal error: all goroutines are asleep - deadlock!\n")); got != "fatal error: all goroutines are asleep - deadlock!" {
		t.Errorf("fatal error: got %q", got)
	}
	if got := PanicMessage([]byte("no panic here\n  panic: indented is a log line\n")); got != "" {
		t.Errorf("got %q, want none", got)
	}
}

// TestParseOutputDropsHostileUnits: b.ReportMetric lets the code under test choose a unit; one that
// could carry a mention, an image or a table cell into the comment is dropped, the ordinary units
// of the same line are kept.
func TestParseOutputDropsHostileUnits(t *testing.T) {
	line := "BenchmarkX 10 5 ns/op 1 @org/team<img/src=https://x/p.png> 2 a|b 3 `x` 4 MB/s 5 instructions/op 6 %\n"
	got := Parse([]byte(line)).Results
	want := []Result{{Name: "X", Iters: 10, Values: []benchtxt.Value{
		{Value: 5e-9, Unit: "sec/op"}, {Value: 4e6, Unit: "B/s"}, {Value: 5, Unit: "instructions/op"}, {Value: 6, Unit: "%"}}}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestValidUnit(t *testing.T) {
	for _, u := range []string{"sec/op", "ns/op", "B/op", "allocs/op", "MB/s", "B/s", "instructions/op", "peak-RSS-B", "%", "µs/op", "p99_ns"} {
		if !benchtxt.ValidUnit(u) {
			t.Errorf("ValidUnit(%q) = false, want true", u)
		}
	}
	for _, u := range []string{"", "@team", "<b>", "a|b", "`x`", "a b", "x\x1b[31m", "[l](u)", strings.Repeat("x", benchtxt.MaxUnitLen+1), "a*b", "::error::"} {
		if benchtxt.ValidUnit(u) {
			t.Errorf("ValidUnit(%q) = true, want false", u)
		}
	}
}

// TestFastestSubRun: a run's sample is its fastest sub-run of the leaf, with that sub-run's other
// units.
func TestFastestSubRun(t *testing.T) {
	out := Parse([]byte(`goos: linux
BenchmarkEncrypt/des/single 	 1000	 930 ns/op	 24 B/op	 3 allocs/op
BenchmarkEncrypt/des/single 	 1000	 870 ns/op	 8 B/op	 1 allocs/op
BenchmarkEncrypt/des/batch  	 1000	 100 ns/op	 0 B/op	 0 allocs/op
BenchmarkEncrypt/des/single 	 1000	 2100 ns/op	 8 B/op	 1 allocs/op
PASS
`))
	got := Fastest(out.Results, "Encrypt/des/single", bench.DefaultStatsOptions.ExactUnits)
	if got == nil {
		t.Fatal("no result")
	}
	if sec, _ := ValueOf(got.Values, "sec/op"); sec != 870e-9 {
		t.Errorf("fastest sub-run %v sec/op, want 870 ns/op (not another leaf's 100, not the first's 930)", sec)
	}
	// The exact units are the first sub-run's (its one-time allocations included), whichever was
	// fastest.
	if a, _ := ValueOf(got.Values, "allocs/op"); a != 3 {
		t.Errorf("allocs/op %v, want the first sub-run's 3", a)
	}
	if b, _ := ValueOf(got.Values, "B/op"); b != 24 {
		t.Errorf("B/op %v, want the first sub-run's 24", b)
	}
	if Fastest(out.Results, "Encrypt/des", nil) != nil {
		t.Error("a name that is no leaf of the output has a result")
	}
}
