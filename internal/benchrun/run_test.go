package benchrun

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// fixtureTest is the benchmark file of the fixture module. Base and head differ only in isHead
// (side_test.go).
const fixtureTest = `package fix

import (
	"os"
	"testing"
	"time"
)

var sink int

func work(n int) {
	for i := 0; i < n; i++ {
		sink += i * i
	}
}

func BenchmarkFast(b *testing.B) {
	b.SetBytes(64)
	for i := 0; i < b.N; i++ {
		work(64)
	}
}

// BenchmarkOdd has sub-benchmarks whose names need quoting, rewriting or de-duplication.
func BenchmarkOdd(b *testing.B) {
	for _, name := range []string{"a b", "x[1]+(y)|z", "size-8", "dup", "dup", "p/q", "$^.*"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				work(16)
			}
		})
	}
}

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := make([]byte, 100+i%2)
		sink += len(s)
	}
}

func BenchmarkTestdata(b *testing.B) {
	if _, err := os.ReadFile("testdata/input.txt"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		work(8)
	}
}

func BenchmarkPanic(b *testing.B) {
	if isHead {
		panic("boom on head")
	}
	for i := 0; i < b.N; i++ {
		work(8)
	}
}

func BenchmarkHang(b *testing.B) {
	if isHead {
		time.Sleep(time.Hour)
	}
	for i := 0; i < b.N; i++ {
		work(8)
	}
}

func BenchmarkBroken(b *testing.B) {
	panic("broken on base too")
}

// BenchmarkMixed crashes in its middle sub-benchmark on both sides: calibration must still find ok1 and ok2.
func BenchmarkMixed(b *testing.B) {
	b.Run("ok1", func(b *testing.B) { work(b.N) })
	b.Run("crash", func(b *testing.B) { panic("crash in the middle") })
	b.Run("ok2", func(b *testing.B) { work(b.N) })
}

func BenchmarkFatal(b *testing.B) {
	b.Run("sub", func(b *testing.B) { b.Fatal("fatal on purpose") })
	b.Run("fine", func(b *testing.B) { work(b.N) })
}
`

// fixtureLeaves are the leaves calibration finds in the fixture, in order.
var fixtureLeaves = []string{
	"Fast",
	"Odd/a_b", "Odd/x[1]+(y)|z", "Odd/size-8", "Odd/dup", "Odd/dup#01", "Odd/p/q", "Odd/$^.*",
	"Alloc", "Testdata", "Panic", "Hang", "Mixed/ok1", "Mixed/ok2", "Fatal/fine",
}

// buildFixture writes the fixture module for one side under dir and builds its test binary the way
// perfgate does (go test -c -trimpath).
func buildFixture(t *testing.T, dir string, head bool) Binary {
	t.Helper()
	pkg := filepath.Join(dir, "fix")
	files := map[string]string{
		"go.mod":                testmod.GoMod("example.com/fix", "1.26"),
		"fix.go":                "// Package fix is a benchmark fixture.\npackage fix\n",
		"fix_test.go":           fixtureTest,
		"side_test.go":          "package fix\n\nconst isHead = " + map[bool]string{false: "false", true: "true"}[head] + "\n",
		"testdata/input.txt":    "input\n",
		"testdata/unused/x.txt": "",
	}
	testmod.Write(t, pkg, files)
	bin := filepath.Join(dir, "fix.test")
	cmd := proc.Command(context.Background(), pkg, []string{"GOWORK=off", "GOFLAGS=-mod=mod"},
		"go", "test", "-c", "-trimpath", "-o", bin, ".")
	if _, _, err := proc.Run(cmd); err != nil {
		t.Fatalf("building fixture: %v", err)
	}
	return Binary{Path: bin, Dir: pkg, Commit: map[bool]string{false: "base0000", true: "head1111"}[head]}
}

func fixtures(t *testing.T) (base, head Binary) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	dir := t.TempDir()
	return buildFixture(t, filepath.Join(dir, "base"), false), buildFixture(t, filepath.Join(dir, "head"), true)
}

func TestRunABBA(t *testing.T) {
	base, head := fixtures(t)
	const rounds = 2
	var txt, log bytes.Buffer
	run, err := RunABBA(context.Background(), RunConfig{
		Base: base, Head: head, Rounds: rounds, BenchTime: 2 * time.Millisecond, CPU: -1,
		Timeout: 4 * time.Second, BenchTxt: &txt, Progress: &log,
	})
	if err != nil {
		t.Fatalf("RunABBA: %v\nprogress:\n%s", err, log.String())
	}
	t.Logf("progress:\n%s", log.String())

	if diff := cmp.Diff(fixtureLeaves, run.Leaves); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}

	// Failures: three on base during calibration, two on head while measuring.
	type key struct {
		name string
		side record.Side
		kind record.FailureKind
	}
	fails := map[key]record.Failure{}
	for _, f := range run.Failures {
		fails[key{f.Name, f.Side, f.Kind}] = f
	}
	checkFail := func(name string, side record.Side, kind record.FailureKind, msgPrefix string, calibration bool) {
		t.Helper()
		f, ok := fails[key{name, side, kind}]
		if !ok {
			t.Errorf("no %s failure of %s on %s; failures: %+v", kind, name, side, run.Failures)
			return
		}
		if !strings.HasPrefix(f.Message, msgPrefix) {
			t.Errorf("%s on %s: message %q, want prefix %q", name, side, f.Message, msgPrefix)
		}
		if calibration != (f.Round == 0 && f.Slot == -1) {
			t.Errorf("%s on %s: round %d slot %d, calibration=%v", name, side, f.Round, f.Slot, calibration)
		}
	}
	checkFail("Broken", record.Base, "panic", "panic: broken on base too\n", true)
	checkFail("Mixed/crash", record.Base, "panic", "panic: crash in the middle\n", true)
	checkFail("Fatal/sub", record.Base, "exit", "--- FAIL: BenchmarkFatal/sub", true)
	checkFail("Panic", record.Head, "panic", "panic: boom on head\n\ngoroutine ", false)
	// its idle limit and its wall-clock limit are both 4s, and the runtime's trace of the testing
	// package's collection before the call is its last output: either may strike first
	checkFail("Hang", record.Head, "timeout", "killed after ", false)
	if len(run.Failures) != 5 {
		t.Errorf("%d failures, want 5: %+v", len(run.Failures), run.Failures)
	}
	if f := fails[key{"Panic", record.Head, "panic"}]; strings.Count(f.Message, "\n") < 3 {
		t.Errorf("panic message keeps too few lines:\n%s", f.Message)
	}
	if f := fails[key{"Fatal/sub", record.Base, "exit"}]; !strings.Contains(f.Message, "fatal on purpose") {
		t.Errorf("b.Fatal message lost: %q", f.Message)
	}

	// Samples: 2 per round per side, in the slots A B B A, with the calibrated iteration count.
	count := map[string]map[record.Side]int{}
	for _, s := range run.Samples {
		if count[s.Name] == nil {
			count[s.Name] = map[record.Side]int{}
		}
		count[s.Name][s.Side]++
		if want := abba.Slots[s.Slot]; want != s.Side {
			t.Errorf("%s: side %s in slot %d", s.Name, s.Side, s.Slot)
		}
		if s.Round < 0 || s.Round >= rounds {
			t.Errorf("%s: round %d", s.Name, s.Round)
		}
		if s.Iters != run.Iters[s.Name] || s.Iters < 1 {
			t.Errorf("%s %s: iters %d, calibrated %d", s.Name, s.Side, s.Iters, run.Iters[s.Name])
		}
		if len(s.Values) == 0 || s.Values[0].Unit != "sec/op" || !(s.Values[0].Value > 0) {
			t.Errorf("%s: values %v, want sec/op > 0 first", s.Name, s.Values)
		}
		for _, u := range []string{"B/op", "allocs/op"} {
			if _, ok := s.Get(u); !ok {
				t.Errorf("%s: no %s (benchmem)", s.Name, u)
			}
		}
		// 0: unknown (abba.PeakRSS)
		if runtime.GOOS == "linux" && s.PeakRSS != 0 && s.PeakRSS < 1<<20 {
			t.Errorf("%s: peak RSS %d bytes, want a real figure or none", s.Name, s.PeakRSS)
		}
		// every process faults in its start-up at least, and its collections are counted
		if p := s.Process; runtime.GOOS == "linux" && (p == nil || !(p.Faults > 0) || p.GCs < 0) {
			t.Errorf("%s: process evidence %+v, want faults above 0 and collections counted", s.Name, p)
		}
	}
	for _, name := range fixtureLeaves {
		wantHead := 2 * rounds
		if name == "Panic" || name == "Hang" {
			wantHead = 0
		}
		if got := count[name][record.Base]; got != 2*rounds {
			t.Errorf("%s: %d base samples, want %d", name, got, 2*rounds)
		}
		if got := count[name][record.Head]; got != wantHead {
			t.Errorf("%s: %d head samples, want %d", name, got, wantHead)
		}
	}
	if s := sampleOfName(run.Samples, "Fast"); s != nil {
		if bps, ok := s.Get("B/s"); !ok || bps <= 0 {
			t.Errorf("Fast: B/s = %v, %v; want SetBytes throughput", bps, ok)
		}
	}
	if s := sampleOfName(run.Samples, "Alloc"); s != nil {
		if a, _ := s.Get("allocs/op"); a != 1 {
			t.Errorf("Alloc: allocs/op = %v, want 1", a)
		}
	}

	if allowed, err := abba.AllowedCPUs(); err == nil && len(allowed) > 1 {
		if !run.Pinning.Pinned || run.Pinning.CPU != allowed[len(allowed)-1] {
			t.Errorf("pinning = %+v, want the last allowed cpu %d", run.Pinning, allowed[len(allowed)-1])
		}
		if want := strconv.Itoa(run.Pinning.CPU); run.ChildCPUs != want {
			t.Errorf("children ran on cpus %q, want %q", run.ChildCPUs, want)
		}
	}
	// sub-runs of 0.4 ms may still speed up after the warm-up on a loaded host (unsteady): only
	// that warning may come
	for _, w := range run.Warnings {
		if !strings.Contains(w, " is not in a steady state within its runs") {
			t.Errorf("warning: %q", w)
		}
	}
	for _, want := range []string{"round 1/2 done", "round 2/2 done", "Panic failed on head (round 1 slot 1, panic): panic: boom on head"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("progress lacks %q", want)
		}
	}

	// bench.txt holds every sample and reads back into the same samples.
	back, err := benchtxt.ReadBenchTxt(bytes.NewReader(txt.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run.Samples, back, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("bench.txt round trip (-run +read):\n%s", diff)
	}
	for _, want := range []string{"goos: " + runtime.GOOS + "\n", "pkg: example.com/fix\n", "perfgate-commit: head1111\n"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("bench.txt lacks %q", want)
		}
	}
}

func sampleOfName(ss []benchtxt.Sample, name string) *benchtxt.Sample {
	for i := range ss {
		if ss[i].Name == name {
			return &ss[i]
		}
	}
	return nil
}

// TestPatternSelectsExactlyOne runs a real test binary with Pattern of each odd name and checks the
// binary ran that benchmark alone.
func TestPatternSelectsExactlyOne(t *testing.T) {
	base, _ := fixtures(t)
	for _, name := range []string{"Odd/a_b", "Odd/x[1]+(y)|z", "Odd/size-8", "Odd/dup", "Odd/dup#01", "Odd/p/q", "Odd/$^.*", "Fast"} {
		cmd := proc.Command(context.Background(), base.Dir, nil, base.Path,
			"-test.run=^$", "-test.bench="+benchout.Pattern(name), "-test.benchtime=1x", "-test.cpu=1")
		out, _, err := proc.Run(cmd)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, r := range benchout.Parse(out).Results {
			got = append(got, r.Name)
		}
		if !slices.Equal(got, []string{name}) {
			t.Errorf("Pattern(%q) = %q ran %q", name, benchout.Pattern(name), got)
		}
	}
}

func TestRunABBACancel(t *testing.T) {
	base, head := fixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel as soon as the first round is reported done, as Ctrl-C would.
	w := writerFunc(func(p []byte) {
		if bytes.Contains(p, []byte("round 1/3 done")) {
			cancel()
		}
	})
	run, err := RunABBA(ctx, RunConfig{Base: base, Head: head, Rounds: 3, BenchTime: time.Millisecond, CPU: -1,
		Filter: mustMatcher(t, `^Odd$/^(dup|size-8)$`), Progress: w})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if run == nil || len(run.Samples) != 2*4 {
		t.Fatalf("got %v, want the 8 samples of round 1", run)
	}
	for _, s := range run.Samples {
		if s.Round != 0 {
			t.Errorf("sample of round %d after cancelling in round 0", s.Round)
		}
	}
}

type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func TestRunABBAConfigErrors(t *testing.T) {
	cfgs := []RunConfig{
		{},
		{Base: Binary{Path: "x"}, Head: Binary{Path: "y"}, Rounds: -1},
		{Base: Binary{Path: "x"}, Head: Binary{Path: "y"}, BenchTime: -time.Second},
		{Base: Binary{Path: "x"}, Head: Binary{Path: "y"}, CPU: -1}, // no such binary
	}
	if _, err := abba.AllowedCPUs(); err == nil {
		cfgs = append(cfgs, RunConfig{Base: Binary{Path: "x"}, Head: Binary{Path: "y"}, CPU: 1 << 20})
	}
	for _, cfg := range cfgs {
		if _, err := RunABBA(context.Background(), cfg); err == nil {
			t.Errorf("RunABBA(%+v) succeeded, want an error", cfg)
		}
	}
}

// Skipped top-level benchmarks are neither calibrated nor timed: none of their leaves is scheduled
// and no run of them fails, while the others run as usual.
func TestRunABBASkip(t *testing.T) {
	base, head := fixtures(t)
	run, err := RunABBA(context.Background(), RunConfig{Base: base, Head: head, Rounds: 1, BenchTime: time.Millisecond, CPU: -1,
		Timeout: 4 * time.Second, Skip: []string{"Odd", "Alloc", "Testdata", "Panic", "Hang", "Broken", "Mixed", "Fatal"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Fast"}, run.Leaves); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
	if len(run.Failures) != 0 {
		t.Errorf("failures of skipped benchmarks: %+v", run.Failures)
	}
	for _, s := range run.Samples {
		if s.Name != "Fast" {
			t.Errorf("sample of %s, which was skipped", s.Name)
		}
	}
}

func mustMatcher(t testing.TB, pattern string) *bench.Matcher {
	t.Helper()
	m, err := bench.NewMatcher(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
