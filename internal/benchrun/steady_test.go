package benchrun

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestSteadyLength drives the run-length decision with synthetic per-op times: a fresh process's
// first milliseconds of allocation run 7% fast (the size-class fixture at 10 ms runs) and settle by
// 40 ms; one that never settles runs at the long length; one that is steady from the start keeps
// the short runs; a failed probe at the long length changes nothing.
func TestSteadyLength(t *testing.T) {
	const ms = time.Millisecond
	curve := func(points map[time.Duration]float64) func(time.Duration) (float64, bool) {
		return func(d time.Duration) (float64, bool) { x, ok := points[d]; return x, ok }
	}
	for _, tc := range []struct {
		name  string
		perOp func(time.Duration) (float64, bool)
		want  time.Duration
		off   float64
	}{
		{"settles at 40 ms", curve(map[time.Duration]float64{10 * ms: 0.93, 40 * ms: 0.995, 100 * ms: 1}), 40 * ms, -0.07},
		{"never settles", curve(map[time.Duration]float64{10 * ms: 0.93, 40 * ms: 0.96, 100 * ms: 1}), 100 * ms, -0.07},
		{"steady", curve(map[time.Duration]float64{10 * ms: 1.004, 100 * ms: 1}), 10 * ms, 0.004},
		{"long probe fails", curve(map[time.Duration]float64{10 * ms: 0.5}), 10 * ms, 0},
		{"short probe fails", curve(map[time.Duration]float64{100 * ms: 1}), 100 * ms, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, off := steadyLength(tc.perOp, 10*ms, 100*ms, 0.01)
			if got != tc.want || math.Abs(off-tc.off) > 1e-9 {
				t.Errorf("steadyLength = %s, %+.3f; want %s, %+.3f", got, off, tc.want, tc.off)
			}
		})
	}
}

// TestSteadyRuns runs the probes on a real binary: a leaf that allocates is probed and keeps the
// short runs or gets runs of one of the lengths tried (noted in the warnings), one that does not
// allocate is not probed at all.
func TestSteadyRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	dir := t.TempDir()
	testmod.Write(t, dir, map[string]string{
		"go.mod": "module example.com/steady\n\ngo 1.24\n",
		"steady_test.go": `package steady

import "testing"

type state struct{ k [11]uint32 }

var sink *state
var n int

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = &state{}
		sink.k[0] = uint32(i)
	}
}

func BenchmarkPure(b *testing.B) {
	for i := 0; i < b.N; i++ {
		n += i * i
	}
}
`})
	cfg := gobuild.Config{Dir: dir, Pkg: ".", Out: filepath.Join(dir, "steady.test")}
	if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	r, _ := newRunner(RunConfig{Base: bin, Head: bin, BenchTime: 40 * time.Millisecond, Stats: bench.DefaultStatsOptions,
		Timeout: time.Minute}, abba.Pinning{})
	r.cfg.BenchTime = 40 * time.Millisecond
	leaves, err := r.discover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	leaves = r.fitRuns(leaves, time.Hour)
	before := map[string]leaf{}
	for _, l := range leaves {
		before[l.name] = l
	}
	if !before["Alloc"].allocates || before["Pure"].allocates {
		t.Fatalf("leaves %+v: want Alloc allocating and Pure not", leaves)
	}
	got, err := r.steadyRuns(t.Context(), slices.Clone(leaves))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("leaves %+v, warnings %q", got, r.run.Warnings)
	for _, l := range got {
		switch b := before[l.name]; {
		case l.name == "Pure" && l.iters != b.iters:
			t.Errorf("Pure: %d iterations, want %d: a leaf that does not allocate is not probed", l.iters, b.iters)
		case l.name == "Alloc" && l.iters != b.iters:
			if want := max(1, int(0.04/l.secPerOp)); l.iters != want || len(r.run.Warnings) != 1 ||
				!strings.Contains(r.run.Warnings[0], "Alloc allocates") {
				t.Errorf("Alloc: %d iterations (want %d for 40 ms runs), warnings %q", l.iters, want, r.run.Warnings)
			}
			// Lengthened, it runs whole: one call of the benchmark function a run, b.N all of the
			// run's iterations, not sub-runs that would each start the benchmark again.
			if runs, iters := l.split(); !l.whole || runs != 1 || iters != l.iters || r.run.Iters["Alloc"] != l.iters {
				t.Errorf("Alloc lengthened: whole %v, split %d×%d, run.Iters %d; want one call of %d", l.whole, runs,
					iters, r.run.Iters["Alloc"], l.iters)
			}
		}
	}
}

// The note of a probe left out as time-shared names the lengths and the shares they got.
func TestBusyProbeText(t *testing.T) {
	m := map[time.Duration][]float64{100 * time.Millisecond: {0.31, 0.12}, 10 * time.Millisecond: {0.4}}
	if got, want := joinDurations(m), "10ms and 100ms"; got != want {
		t.Errorf("joinDurations = %q, want %q", got, want)
	}
	if got, want := shareText(m), "12–40%"; got != want {
		t.Errorf("shareText = %q, want %q", got, want)
	}
	if got, want := shareText(map[time.Duration][]float64{time.Second: {0.5}}), "50%"; got != want {
		t.Errorf("shareText of one = %q, want %q", got, want)
	}
}
