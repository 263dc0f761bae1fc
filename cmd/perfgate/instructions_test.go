package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// TestCompareWithoutValgrind: with the instruction-count lane on and no valgrind in PATH, compare
// stops before it exports or builds anything, with exit 3 (could not run), the install command, and
// a hint.
func TestCompareWithoutValgrind(t *testing.T) {
	// nothing in it: no valgrind, and no go or git either, which it must not need
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "results")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"compare", "-C", t.TempDir(), "-metric", "both", "-o", out, "a", "b"}, &stdout, &stderr)
	if code != record.ExitCannotRun {
		t.Errorf("exit code %d, want %d", code, record.ExitCannotRun)
	}
	for _, want := range []string{"perfgate: error: valgrind not found", valgrind.InstallCommand, "perfgate: hint: ", "-metric time"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status != record.StatusError || res.Method.Metric != record.MetricBoth {
		t.Errorf("result.json: verdict %s, metric %q; want error, both", res.Verdict.Status, res.Method.Metric)
	}
}

// TestCompareInstructionsDemo runs the whole comparison with the instruction-count lane on the demo
// history, through the command: folded against base with -metric instructions (encryption executes
// fewer instructions, key setup the same), base against itself (A/A: unchanged, a delta of exactly
// 0), and folded against base with -metric both (both units in one bench.txt, time samples and
// counts classified apart).
func TestCompareInstructionsDemo(t *testing.T) {
	testenv.NeedTool(t, "valgrind", valgrind.InstallCommand)
	testenv.Long(t) // runs the benchmarks under valgrind
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	compare := func(t *testing.T, metric, base, head string) (*record.Result, int, []benchtxt.Sample) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "results")
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"compare", "-C", repo.Dir, "-pkg", demo.Package, "-metric", metric,
			"-bench", "^(Encrypt|KeySetup)$/^des$", "-rounds", "2", "-budget", "0", "-benchtime", "10ms", "-keys", "16",
			// KeySetup runs the same machine code on both sides: measured all the same, as the
			// lanes' unchanged case.
			"-time-same-code", "-constant-time", "off", "-o", out, base, head}, &stdout, &stderr)
		res, err := results.ReadResult(out)
		if err != nil {
			t.Fatalf("exit %d, %v\nstderr:\n%s", code, err, stderr.String())
		}
		f, err := os.Open(filepath.Join(out, results.FileBench))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		samples, err := benchtxt.ReadBenchTxt(f)
		if err != nil {
			t.Fatalf("bench.txt: %v", err)
		}
		if res.Env.Valgrind == "" || !strings.HasPrefix(res.Env.Valgrind, "valgrind-") {
			t.Errorf("env.valgrind = %q, want the valgrind version", res.Env.Valgrind)
		}
		if res.Method.Metric != metric || res.Method.InstrThreshold != 0.5 {
			t.Errorf("method: metric %q, instructions threshold %v", res.Method.Metric, res.Method.InstrThreshold)
		}
		if t.Failed() {
			t.Logf("stderr:\n%s\nstdout:\n%s", stderr.String(), stdout.String())
		}
		return res, code, samples
	}
	rows := func(res *record.Result, unit string) map[string]record.Benchmark {
		m := map[string]record.Benchmark{}
		for _, b := range res.Benchmarks {
			if b.Unit == unit {
				m[b.Name] = b
			}
		}
		return m
	}
	count := func(samples []benchtxt.Sample, unit string) int {
		n := 0
		for _, s := range samples {
			if _, ok := s.Get(unit); ok {
				n++
			}
		}
		return n
	}

	t.Run("folded", func(t *testing.T) {
		res, code, samples := compare(t, record.MetricInstructions, "base", "folded")
		if code != record.ExitPass || res.Verdict.Status != record.StatusPass {
			t.Errorf("exit %d, verdict %s %q; want pass", code, res.Verdict.Status, res.Verdict.Reasons)
		}
		ins := rows(res, record.UnitInstructions)
		if b := ins["Encrypt/des"]; b.Class != record.ClassFaster || !(b.DeltaPct < -20) {
			t.Errorf("Encrypt/des: %s %+.3f%%, want faster by more than 20%%", b.Class, b.DeltaPct)
		}
		if b := ins["KeySetup/des"]; b.Class != record.ClassUnchanged {
			t.Errorf("KeySetup/des: %s %+.4f%%, want unchanged", b.Class, b.DeltaPct)
		}
		if len(rows(res, record.UnitTime)) != 0 {
			t.Errorf("metric instructions measured sec/op too: %v", res.Benchmarks)
		}
		// One round of A–B–B–A for two benchmarks: 8 counts, and nothing else.
		if n := count(samples, record.UnitInstructions); n != 8 || len(samples) != 8 {
			t.Errorf("bench.txt: %d samples, %d in instructions/op; want 8 and 8", len(samples), n)
		}
	})

	t.Run("aa", func(t *testing.T) {
		res, code, _ := compare(t, record.MetricInstructions, "base", "base")
		if code != record.ExitPass {
			t.Errorf("exit %d, verdict %s %q; want pass", code, res.Verdict.Status, res.Verdict.Reasons)
		}
		for name, b := range rows(res, record.UnitInstructions) {
			if b.Class != record.ClassUnchanged || b.DeltaPct != 0 {
				t.Errorf("A/A %s: %s %+.5f%%, want unchanged by exactly 0%%", name, b.Class, b.DeltaPct)
			}
		}
	})

	t.Run("auto", func(t *testing.T) {
		// The count runs alongside the timing lane (two CPUs here): bench.txt must still say whose
		// each sample is.
		res, _, samples := compare(t, record.MetricAuto, "base", "folded")
		ins := rows(res, record.UnitInstructions)
		perSide := map[record.Side]int{}
		for _, s := range samples {
			if v, ok := s.Get(record.UnitInstructions); ok {
				want := ins[s.Name].Base.Center
				if s.Side == record.Head {
					want = ins[s.Name].Head.Center
				}
				if v != want {
					t.Errorf("bench.txt: %s on %s counts %v, but result.json's %s count is %v", s.Name, s.Side, v,
						s.Side, want)
				}
			} else if _, ok := s.Get(record.UnitTime); ok {
				perSide[s.Side]++
			}
		}
		if n := count(samples, record.UnitInstructions); n != 8 || perSide[record.Base] != 8 || perSide[record.Head] != 8 {
			t.Errorf("bench.txt: %d instructions/op samples, sec/op %v; want 8, and 8 a side", n, perSide)
		}
	})

	t.Run("both", func(t *testing.T) {
		res, code, samples := compare(t, record.MetricBoth, "base", "folded")
		sec, ins := rows(res, record.UnitTime), rows(res, record.UnitInstructions)
		// Two rounds may leave the time lane inconclusive (exit 4). Nothing is slower in the exact
		// lane; the time lane's two rounds on a runner busy with other packages' tests can call the
		// untouched KeySetup slower (seen once: +18.8%), and that is the only way this comparison
		// may fail.
		timeSlower := false
		for name, b := range sec {
			timeSlower = timeSlower || b.Class == record.ClassSlower && strings.HasPrefix(name, "KeySetup/")
		}
		for name, b := range ins {
			if b.Class == record.ClassSlower {
				t.Errorf("%s instructions/op: slower %+.3f%%, want not slower", name, b.DeltaPct)
			}
		}
		if code != record.ExitPass && code != record.ExitInconclusive && !(code == record.ExitFail && timeSlower) {
			t.Errorf("exit %d, verdict %s %q; want pass or inconclusive", code, res.Verdict.Status, res.Verdict.Reasons)
		}
		if b := ins["Encrypt/des"]; b.Class != record.ClassFaster {
			t.Errorf("Encrypt/des instructions/op: %s %+.3f%%, want faster", b.Class, b.DeltaPct)
		}
		// The time statistics hold the timing lane's 2 × rounds samples a side, never the counts.
		if b := sec["Encrypt/des"]; b.Base.N != 4 || b.Head.N != 4 {
			t.Errorf("Encrypt/des sec/op: n %d/%d, want 4/4", b.Base.N, b.Head.N)
		}
		if n := count(samples, record.UnitInstructions); n != 8 || count(samples, record.UnitTime) != 16 {
			t.Errorf("bench.txt: %d instructions/op and %d sec/op samples, want 8 and 16", n, count(samples, record.UnitTime))
		}
	})
}
