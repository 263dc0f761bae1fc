package benchrun

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/internal/data/benchtxt"
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
	if got, want := skipPattern([]string{"A/b", "C"}), `^BenchmarkA$/^b$|^BenchmarkC$`; got != want {
		t.Errorf("skipPattern = %q, want %q", got, want)
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
	out := parseOutput([]byte(calibrationOutput + "--- FAIL: BenchmarkX\n"))
	want := []benchResult{
		{name: "X/a/one", iters: 1000000, values: []benchtxt.Value{
			{Value: 1050e-9, Unit: "sec/op"}, {Value: 15.24e6, Unit: "B/s"}, {Value: 16, Unit: "B/op"}, {Value: 1, Unit: "allocs/op"}}},
		{name: "X/size-8", iters: 300, values: []benchtxt.Value{{Value: 2.5e-9, Unit: "sec/op"}, {Value: 0, Unit: "B/op"}, {Value: 0, Unit: "allocs/op"}}},
	}
	if diff := cmp.Diff(want, out.results, cmp.AllowUnexported(benchResult{}), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	wantHeader := map[string]string{"goos": "linux", "goarch": "amd64", "pkg": "example.com/fix", "cpu": "AMD EPYC"}
	if diff := cmp.Diff(wantHeader, out.header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if got := out.startedLeaf(); got != "X/a/two" {
		t.Errorf("startedLeaf = %q, want X/a/two", got)
	}
	if diff := cmp.Diff([]string{"X/f"}, out.failedLeaves()); diff != "" {
		t.Errorf("failedLeaves (-want +got):\n%s", diff)
	}
	if got, want := failBlock([]byte(calibrationOutput), "X/f"), "--- FAIL: BenchmarkX/f\n    fix_test.go:9: fatal on purpose"; got != want {
		t.Errorf("failBlock = %q, want %q", got, want)
	}
	if got := parseOutput([]byte("BenchmarkX\nBenchmarkX 10 5 ns/op\n")).startedLeaf(); got != "" {
		t.Errorf("startedLeaf of a finished run = %q, want none", got)
	}
}

func TestPanicMessage(t *testing.T) {
	stderr := "some log\npanic: boom\n\ngoroutine 7 [running]:\nexample.com/fix.BenchmarkPanic(0xc0)\n\tfix_test.go:60 +0x25\ntesting.(*B).runN(0xc0, 0x1)\n\ttesting/benchmark.go:219 +0x190\nmore\n"
	want := "panic: boom\n\ngoroutine 7 [running]:\nexample.com/fix.BenchmarkPanic(0xc0)\n\tfix_test.go:60 +0x25\ntesting.(*B).runN(0xc0, 0x1)\n\ttesting/benchmark.go:219 +0x190"
	if got := panicMessage([]byte(stderr)); got != want {
		t.Errorf("panicMessage =\n%s\nwant\n%s", got, want)
	}
	if got := panicMessage([]byte("fatal error: all goroutines are asleep - deadlock!\n")); got != "fatal error: all goroutines are asleep - deadlock!" {
		t.Errorf("fatal error: got %q", got)
	}
	if got := panicMessage([]byte("no panic here\n  panic: indented is a log line\n")); got != "" {
		t.Errorf("got %q, want none", got)
	}
}

func TestChildFailure(t *testing.T) {
	c := &child{stdout: []byte("BenchmarkHang\t"), timedOut: true, idle: 3e9, limit: 15e9}
	if kind, msg := c.failure(); kind != "timeout" || msg != "killed after printing nothing for 3s\nBenchmarkHang\t" {
		t.Errorf("timeout: %q %q", kind, msg)
	}
	c = &child{stdout: []byte("BenchmarkDots\t....."), overran: true, idle: 3e9, limit: 15e9}
	if kind, msg := c.failure(); kind != "timeout" || msg != "killed after its wall-clock limit of 15s\nBenchmarkDots\t....." {
		t.Errorf("wall-clock limit: %q %q", kind, msg)
	}
	c = &child{stderr: []byte("panic: x\n")}
	if kind, msg := c.failure(); kind != "panic" || msg != "panic: x" {
		t.Errorf("panic: %q %q", kind, msg)
	}
	if kind, _ := (&child{stdout: []byte("PASS\n")}).failure(); kind != "" {
		t.Errorf("success classified as %q", kind)
	}
}

// TestParseOutputDropsHostileUnits: b.ReportMetric lets the code under test choose a unit; one that
// could carry a mention, an image or a table cell into the comment is dropped, the ordinary units
// of the same line are kept.
func TestParseOutputDropsHostileUnits(t *testing.T) {
	line := "BenchmarkX 10 5 ns/op 1 @org/team<img/src=https://x/p.png> 2 a|b 3 `x` 4 MB/s 5 instructions/op 6 %\n"
	got := parseOutput([]byte(line)).results
	want := []benchResult{{name: "X", iters: 10, values: []benchtxt.Value{
		{Value: 5e-9, Unit: "sec/op"}, {Value: 4e6, Unit: "B/s"}, {Value: 5, Unit: "instructions/op"}, {Value: 6, Unit: "%"}}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(benchResult{}), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
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

// TestSplit: a measured run is SubRuns sub-runs of a share of its iterations each, fewer for a leaf
// of fewer iterations; a whole leaf (lengthened for the steady state) is one call of all of them.
func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		l           leaf
		runs, iters int
	}{
		{leaf{iters: 1000}, benchtxt.SubRuns, 1000 / benchtxt.SubRuns},
		{leaf{iters: 3}, 3, 1},
		{leaf{iters: 0}, 1, 1},
		{leaf{iters: 8, whole: true}, 1, 8},
		{leaf{iters: 0, whole: true}, 1, 1},
	} {
		if runs, iters := tt.l.split(); runs != tt.runs || iters != tt.iters {
			t.Errorf("%+v: split %d×%d, want %d×%d", tt.l, runs, iters, tt.runs, tt.iters)
		}
	}
}
