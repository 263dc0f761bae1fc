package benchrun

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/progress"
	"github.com/perfgate/perfgate/internal/testing/testmod"
)

func TestTimedSubRuns(t *testing.T) {
	res := func(name string, ns float64) benchout.Result {
		return benchout.Result{Name: name, Iters: 10, Values: []benchtxt.Value{{Value: ns * 1e-9, Unit: "sec/op"}}}
	}
	in := []benchout.Result{res("Other", 1), res("A", 900), res("A", 60), res("A", 62)}
	got := timedSubRuns(in, "A")
	want := []benchout.Result{res("Other", 1), res("A", 60), res("A", 62)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timedSubRuns (-want +got):\n%s", diff)
	}
	if len(in) != 4 {
		t.Errorf("timedSubRuns changed its argument: %v", in)
	}
	// the warm-up's 900 ns/op never becomes the sample, even when it is the only fast one elsewhere
	if f := benchout.Fastest(got, "A", nil); f == nil || math.Abs(f.Values[0].Value-60e-9) > 1e-15 {
		t.Errorf("fastest timed sub-run = %+v, want 60 ns/op", f)
	}
}

func TestGCTrace(t *testing.T) {
	// lines as Go 1.26's runtime writes them under GODEBUG=gctrace=1
	stderr := "gc 1 @0.002s 3%: 0.011+0.31+0.002 ms clock, 0.011+0/0.052/0.20+0.002 ms cpu, 3->3->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P\n" +
		"gc 2 @0.004s 4%: 0.009+0.21+0.002 ms clock, 0.009+0/0.04/0.1+0.002 ms cpu, 1->1->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P (forced)\n" +
		"a line of the benchmark's own\n" +
		"gc 3 @0.010s 4%: 0.009+0.21+0.002 ms clock, 0.009+0/0.04/0.1+0.002 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 1 P\n" +
		"gc is not a trace line\n"
	rest, auto := gcTrace([]byte(stderr))
	if auto != 2 {
		t.Errorf("%d collections started by the runtime, want 2 (one forced left out)", auto)
	}
	if want := "a line of the benchmark's own\ngc is not a trace line\n"; string(rest) != want {
		t.Errorf("stderr without the trace = %q, want %q", rest, want)
	}
}

func TestGCTraceEnv(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{nil, []string{"GODEBUG=gctrace=1"}},
		{[]string{"A=1", "GODEBUG=cpu.rdtscp=off"}, []string{"A=1", "GODEBUG=cpu.rdtscp=off,gctrace=1"}},
		{[]string{"GODEBUG="}, []string{"GODEBUG=gctrace=1"}},
	} {
		if diff := cmp.Diff(c.want, gctraceEnv(c.in)); diff != "" {
			t.Errorf("gctraceEnv(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

// TestUnsteady: a leaf whose first timed sub-run is the slower in nearly every run, by more than
// the threshold, is named; noise (the first slower in half the runs) and a small steady slope are
// not.
func TestUnsteady(t *testing.T) {
	r := &runner{run: &Run{}, progress: progress.New(nil), trends: map[string][]float64{
		"Falling": {1.4, 1.3, 1.5, 1.2, 1.35, 0.98, 1.6, 1.3},
		"Noise":   {1.05, 0.95, 1.04, 0.97, 1.06, 0.94, 1.03, 0.96},
		"Slope":   {1.01, 1.01, 1.02, 1.01, 1.01, 1.01, 1.01, 1.01},
		"Few":     {1.5, 1.5},
	}}
	var leaves []leaf
	for _, n := range []string{"Falling", "Noise", "Slope", "Few"} {
		leaves = append(leaves, leaf{name: n, iters: 1000})
	}
	r.unsteady(leaves, 0.02)
	if len(r.run.Warnings) != 1 || !strings.HasPrefix(r.run.Warnings[0], "Falling is not in a steady state") ||
		!strings.Contains(r.run.Warnings[0], "in 7 of 8 runs, by 33%") ||
		!strings.HasSuffix(r.run.Warnings[0], "(the fastest of 5 sub-runs) may sit above go test's; runs of a larger -benchtime may reach it") {
		t.Errorf("warnings %q, want one naming Falling", r.run.Warnings)
	}

	// Several unsteady leaves share one warning, each with its own figures.
	r = &runner{run: &Run{}, progress: progress.New(nil), trends: map[string][]float64{
		"Falling": {1.4, 1.3, 1.5, 1.2, 1.35, 0.98, 1.6, 1.3},
		"Noise":   {1.05, 0.95, 1.04, 0.97, 1.06, 0.94, 1.03, 0.96},
		"Batch":   {1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2},
		"Batch64": {1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 0.9, 1.1},
	}}
	leaves = nil
	for _, n := range []string{"Falling", "Noise", "Batch", "Batch64"} {
		leaves = append(leaves, leaf{name: n, iters: 1000})
	}
	r.unsteady(leaves, 0.02)
	want := "Falling is not in a steady state within its runs even after a warm-up sub-run: its first timed sub-run " +
		"was slower than its last in 7 of 8 runs, by 33% (median), at 200 iterations a sub-run; so are Batch (8 of 8 " +
		"runs, by 20%, at 200 iterations a sub-run), Batch64 (7 of 8 runs, by 10%, at 200 iterations a sub-run); " +
		"their samples (the fastest of their sub-runs) may sit above go test's; runs of a larger -benchtime may " +
		"reach them"
	if len(r.run.Warnings) != 1 || r.run.Warnings[0] != want {
		t.Errorf("warnings %q,\nwant one: %q", r.run.Warnings, want)
	}
}

func TestLeaking(t *testing.T) {
	const short, long = 10 * time.Millisecond, 160 * time.Millisecond
	for _, c := range []struct {
		name   string
		faults map[time.Duration]float64
		want   bool
	}{
		// start-up and the heap's growth spread over 16× the iterations
		{"warms up", map[time.Duration]float64{short: 0.8, long: 0.06}, false},
		{"grows its state", map[time.Duration]float64{short: 0.9, long: 0.7}, true},
		{"faults little", map[time.Duration]float64{short: 0.004, long: 0.004}, false},
		{"one length", map[time.Duration]float64{short: 0.9}, false},
	} {
		if _, _, got := leaking(c.faults, short, long); got != c.want {
			t.Errorf("%s: leaking = %v, want %v", c.name, got, c.want)
		}
	}
}

// steadyTest allocates 288 bytes an op (the next size class after 256), and grows a slice it keeps
// by 64 bytes an op, as a benchmark whose state grows with b.N does.
const steadyTest = `package steady

import "testing"

type cipher struct{ k [72]uint32 }

var sink *cipher

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = new(cipher)
	}
}

var kept [][]byte

func BenchmarkGrow(b *testing.B) {
	for i := 0; i < b.N; i++ {
		kept = append(kept, make([]byte, 64))
	}
}
`

// TestWarmUpEvidence runs real processes: every sample carries its process's page faults and
// collections per op, in bench.txt too, and the allocating benchmarks collect.
func TestWarmUpEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real test binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("page faults through the launcher: Linux")
	}
	dir := testmod.Temp(t, map[string]string{"go.mod": testmod.GoMod("example.com/steady", "1.26"),
		"steady_test.go": steadyTest})
	bin := filepath.Join(dir, "steady.test")
	cmd := proc.Command(context.Background(), dir, []string{"GOWORK=off"}, "go", "test", "-c", "-trimpath", "-o", bin, ".")
	if _, _, err := proc.Run(cmd); err != nil {
		t.Fatalf("building fixture: %v", err)
	}
	b := Binary{Path: bin, Dir: dir}
	var txt, log bytes.Buffer
	run, err := RunABBA(context.Background(), RunConfig{Base: b, Head: b, Rounds: 1, BenchTime: 20 * time.Millisecond,
		CPU: -1, Timeout: 20 * time.Second, Progress: &log, BenchTxt: &txt, Env: []string{"GODEBUG=madvdontneed=1"}})
	if err != nil {
		t.Fatalf("RunABBA: %v\n%s", err, log.String())
	}
	if len(run.Samples) != 8 {
		t.Fatalf("%d samples, want 8\n%s", len(run.Samples), log.String())
	}
	for _, s := range run.Samples {
		p := s.Process
		if p == nil {
			t.Fatalf("%s %s: no process evidence", s.Name, s.Side)
		}
		t.Logf("%s %s: %d iterations, %.4g faults/op, %.4g gcs/op", s.Name, s.Side, s.Iters, p.Faults, p.GCs)
		// Alloc allocates about 14 MB a run: the runtime collects on its own
		if !(p.Faults > 0) || p.GCs < 0 || s.Name == "Alloc" && !(p.GCs > 0) {
			t.Errorf("%s %s: %+v, want page faults above 0 and collections counted", s.Name, s.Side, p)
		}
	}
	for _, unit := range []string{" faults/op", " gcs/op"} {
		if !strings.Contains(txt.String(), unit) {
			t.Errorf("bench.txt lacks%s:\n%s", unit, txt.String())
		}
	}
}
