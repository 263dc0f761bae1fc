package pipeline

import (
	"bytes"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/record"
)

// End-to-end helpers: real git repositories (testmod.Repo), real go builds, real benchmark runs,
// with settings that keep one comparison to a few seconds. Tests that use them are skipped under
// -short.

// mixPkg is a tiny package name with one function worth benchmarking; salt changes its code, so
// base and head can differ.
func mixPkg(name, salt string) string {
	return "package " + name + "\n\n// Mix scrambles x.\nfunc Mix(x uint32) uint32 { return (x ^ " + salt + ") * 2654435761 }\n"
}

// mixTest is a test file of package name with a test and a benchmark of Mix.
func mixTest(name string) string {
	return "package " + name + "\n\nimport \"testing\"\n\n" +
		"func TestMix(t *testing.T) {\n\tif Mix(1) == Mix(2) {\n\t\tt.Fatal(\"Mix(1) == Mix(2)\")\n\t}\n}\n\n" +
		"var sink uint32\n\nfunc BenchmarkMix(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Mix(uint32(i))\n\t}\n}\n"
}

// syncBuffer collects the log of a comparison, shown when the test fails.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fastConfig is a comparison of base and head in dir (the -C directory) of pkg with two rounds of 1
// ms runs, the differential off, and benchmarks of the same machine code timed too; edit may change
// it.
func fastConfig(t *testing.T, dir, pkg, base, head string) config.Config {
	cfg := config.Default()
	cfg.Dir, cfg.Package, cfg.Base, cfg.Head = dir, pkg, base, head
	cfg.Rounds, cfg.BenchTime, cfg.Timeout = 2, config.For(time.Millisecond), 2*time.Minute
	// exactly the two rounds: a budget would time unsettled benchmarks for up to 200 rounds
	cfg.Budget = 0
	cfg.Differential = false
	cfg.ConstantTime = string(record.CTOff)
	// the instruction-count lane and metric auto have tests of their own
	cfg.Metric = record.MetricTime
	// These comparisons exist to time code; samecodephase_test.go tests leaving same code untimed.
	cfg.TimeSameCode = true
	cfg.Out = filepath.Join(t.TempDir(), "results")
	cfg.Store = filepath.Join(t.TempDir(), "store") // hermetic: never the user's cache directory
	return cfg
}

// runE2E runs the comparison cfg and returns its result and error; the log is printed when the test
// fails.
func runE2E(t *testing.T, cfg config.Config) (*record.Result, error) {
	t.Helper()
	return runLogged(t, cfg, &syncBuffer{})
}

// runLogged runs the comparison cfg with its log written to log and returns its result and error;
// the log is printed when the test fails.
func runLogged(t *testing.T, cfg config.Config, log *syncBuffer) (*record.Result, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a whole comparison")
	}
	cfg.Log = log
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log of the comparison:\n%s", log)
		}
	})
	res, err := Run(t.Context(), cfg)
	if res == nil {
		t.Fatalf("Run returned no result: %v", err)
	}
	return res, err
}

// benchNames returns the names of res's benchmarks in the gated unit, sorted.
func benchNames(res *record.Result) []string {
	var names []string
	for _, b := range res.Benchmarks {
		if b.Unit == record.UnitTime {
			names = append(names, b.Name)
		}
	}
	slices.Sort(names)
	return names
}

// wantCompared fails the test unless the comparison ran to the end with exactly the benchmarks want
// (in the gated unit) timed on both sides, none failed, and head's tests passing. It does not look
// at whether a benchmark came out slower or faster: that is a timing, and timings never decide a
// test.
func wantCompared(t *testing.T, res *record.Result, err error, want ...string) {
	t.Helper()
	if err != nil || res.Verdict.Status == record.StatusError || res.HeadBuildFailed {
		t.Fatalf("verdict %s (%v), error %v, head build failed %v; want a comparison that ran", res.Verdict.Status, res.Verdict.Reasons, err, res.HeadBuildFailed)
	}
	if got := benchNames(res); !slices.Equal(got, want) {
		t.Errorf("benchmarks %q, want %q", got, want)
	}
	if !res.Functional.Head.Ran || !res.Functional.Head.Passed || !res.Functional.Base.Passed {
		t.Errorf("tests: %+v, want run and passed on both sides", res.Functional)
	}
	for _, b := range res.Benchmarks {
		if b.Class == record.ClassFailed || b.Base.N == 0 || b.Head.N == 0 {
			t.Errorf("benchmark %s: class %s, %d base and %d head samples; want both sides timed", b.Name, b.Class, b.Base.N, b.Head.N)
		}
	}
	if len(res.Failures) > 0 {
		t.Errorf("failures: %+v", res.Failures)
	}
}
