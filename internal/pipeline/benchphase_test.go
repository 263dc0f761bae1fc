package pipeline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// abbaRun is a synthetic A–B–B–A run of benchmark name: rounds rounds whose base runs take base
// ns/op and head runs head ns/op, with a small alternating wobble so that the statistics have
// spread.
func abbaRun(name string, rounds int, base, head float64) []benchtxt.Sample {
	var out []benchtxt.Sample
	for r := range rounds {
		wobble := 1 + 0.001*float64(r%2)
		for slot, side := range []record.Side{record.Base, record.Head, record.Head, record.Base} {
			v := base
			if side == record.Head {
				v = head
			}
			out = append(out, benchtxt.Sample{Name: name, Side: side, Round: r, Slot: slot, Iters: 1000,
				Values: []benchtxt.Value{{Value: v * wobble * 1e-9, Unit: "sec/op"}}})
		}
	}
	return out
}

// TestFromRun turns a synthetic run into the benchmark record, with no benchmark process: a
// benchmark 25% slower, one that head removed, one that printed no result on head while head still
// has it, an unpinned run.
func TestFromRun(t *testing.T) {
	run := &benchrun.Run{
		Samples: append(abbaRun("Encrypt/des", 6, 100, 125), abbaRun("Old/case", 6, 50, 50)[:12]...),
		Failures: []record.Failure{
			{Name: "Old/case", Side: record.Head, Round: 4, Slot: 1, Kind: record.FailureNoResult, Message: "no result line"},
			{Name: "Skip", Side: record.Head, Round: 1, Slot: 2, Kind: record.FailureNoResult, Message: "no result line"},
			{Name: "Crash", Side: record.Head, Round: 2, Slot: 1, Kind: record.FailurePanic, Message: "panic: x"},
		},
		Pinning:  abba.Pinning{CPU: -1, Reason: "sched_setaffinity is not available"},
		Warnings: []string{"a child ran on CPU 0, not 1"},
	}
	opt := bench.DefaultStatsOptions
	rec := fromRun(run, []string{"Encrypt", "Skip", "Crash"}, opt, bench.DefaultInstrThresholdPct)
	rec.tally(run, opt.ThresholdPct)

	if rec.pinnedCPU != -1 {
		t.Errorf("pinnedCPU = %d, want -1 (unpinned)", rec.pinnedCPU)
	}
	wantNotes := []string{
		"benchmarks ran unpinned: sched_setaffinity is not available",
		"benchmarks: a child ran on CPU 0, not 1",
		"1 of base's benchmarks are not in head (removed or renamed), so not compared: Old/case",
	}
	if diff := cmp.Diff(wantNotes, rec.notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	wantFailures := []record.Failure{
		{Name: "Old/case", Side: record.Head, Round: 4, Slot: 1, Kind: record.FailureRemoved,
			Message: "head has no BenchmarkOld (removed or renamed): not compared"},
		{Name: "Skip", Side: record.Head, Round: 1, Slot: 2, Kind: record.FailureNoResult, Message: "no result line"},
		{Name: "Crash", Side: record.Head, Round: 2, Slot: 1, Kind: record.FailurePanic, Message: "panic: x"},
	}
	if diff := cmp.Diff(wantFailures, rec.failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if len(rec.benchmarks) != 1 {
		t.Fatalf("benchmarks %+v, want only Encrypt/des (Old/case was removed)", rec.benchmarks)
	}
	b := rec.benchmarks[0]
	if b.Name != "Encrypt/des" || b.Unit != record.UnitTime || b.Class != record.ClassSlower || b.Paired == nil ||
		b.Paired.Rounds != 6 || b.Paired.Ratio < 1.249 || b.Paired.Ratio > 1.251 {
		t.Errorf("Encrypt/des = %+v (paired %+v), want slower by 25%% over 6 rounds", b, b.Paired)
	}
	if rec.noise != b.NoisePct || rec.mde != b.MDEPct {
		t.Errorf("median noise %v, MDE %v; want the only benchmark's %v, %v", rec.noise, rec.mde, b.NoisePct, b.MDEPct)
	}

	// The verdict on it: the removed benchmark does not fail the gate, the crash and the slowdown
	// do, the benchmark head skipped is a note.
	r := record.Result{Benchmarks: rec.benchmarks, Failures: rec.failures}
	cfg := config.Default()
	v := gate.Decide(r, cfg.Policy())
	wantReasons := []string{"benchmark Crash fails on head (panic)", "Encrypt/des is slower (+25.0%)"}
	if diff := cmp.Diff(wantReasons, v.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if want := []string{"benchmark Skip printed no result on head (removed or skipped?)"}; !cmp.Equal(want, v.Notes) {
		t.Errorf("verdict notes %q, want %q", v.Notes, want)
	}
}

// TestFromRunPinnedAndEmpty: a pinned run records its CPU; a run without samples or failures says
// nothing matched.
func TestFromRunPinnedAndEmpty(t *testing.T) {
	rec := fromRun(&benchrun.Run{Pinning: abba.Pinning{Pinned: true, CPU: 3}}, nil, bench.DefaultStatsOptions, bench.DefaultInstrThresholdPct)
	if rec.pinnedCPU != 3 {
		t.Errorf("pinnedCPU = %d, want 3", rec.pinnedCPU)
	}
	if want := []string{"no benchmarks matched: the package has none, or -bench selects none"}; !cmp.Equal(want, rec.notes) {
		t.Errorf("notes %q, want %q", rec.notes, want)
	}
	if rec.benchmarks == nil || len(rec.benchmarks) != 0 {
		t.Errorf("benchmarks %#v, want empty and non-nil (result.json shows [])", rec.benchmarks)
	}
}

// TestAssemble: the phases' records land in their places of the Result, notes in phase order, and
// what did not run is shown as such (differential skipped and why, empty lists rather than null,
// unpinned).
func TestAssemble(t *testing.T) {
	cfg := config.Default()
	cfg.Package, cfg.Differential = "./p", false
	p := &pipeline{cfg: cfg, importPath: "example.com/m/p"}
	p.base.rev, p.head.rev = record.Revision{Ref: "main", Commit: "b"}, record.Revision{Ref: "HEAD", Commit: "h"}
	p.build = buildRecord{headFailed: true, notes: []string{"head does not build: x"}}
	p.functional = functionalRecord{notes: []string{"base's tests fail; this does not block the gate"}}
	p.bench = benchRecord{pinnedCPU: -1, notes: []string{"benchmarks: y"}}
	r := p.assemble(record.Env{Pinned: true, PinnedCPU: 0}, false)

	if r.Schema != record.Schema || r.Package != "./p" || r.ImportPath != "example.com/m/p" || r.Base.Commit != "b" || r.Head.Commit != "h" {
		t.Errorf("identity: %+v", r)
	}
	if !r.HeadBuildFailed {
		t.Error("HeadBuildFailed not carried from the build record")
	}
	wantNotes := []string{"head does not build: x", "base's tests fail; this does not block the gate", "benchmarks: y"}
	if diff := cmp.Diff(wantNotes, r.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if r.Differential.Status != record.DiffSkipped || r.Differential.Reason != "disabled by configuration" || r.Differential.Ciphers == nil {
		t.Errorf("differential = %+v, want skipped, disabled by configuration, ciphers []", r.Differential)
	}
	if r.Benchmarks == nil || r.Sizes.Sections == nil || r.Sizes.Symbols == nil {
		t.Errorf("benchmarks %#v, sizes %#v: want empty lists, not nil", r.Benchmarks, r.Sizes)
	}
	if r.Env.Pinned || r.Env.PinnedCPU != -1 {
		t.Errorf("env pinned %v cpu %d, want unpinned -1", r.Env.Pinned, r.Env.PinnedCPU)
	}
	if v := gate.Decide(r, cfg.Policy()); v.Status != record.StatusFail || !cmp.Equal(v.Reasons, []string{"head does not build"}) {
		t.Errorf("verdict %+v, want fail: head does not build", v)
	}
}

// TestLineWriter: the count lane's progress, written alongside the timing lane's, reaches the log
// in whole lines only, each of perfgate's lines naming the lane, whatever pieces the writes come
// in.
func TestLineWriter(t *testing.T) {
	var log strings.Builder
	w := &lineWriter{w: &syncWriter{w: &log}, prefix: "counting: "}
	pieces := []string{"perfgate: calibr", "ating Encrypt\nperfgate: round 1/1 done\nvalgrind said", " no\n",
		"perfgate: half"}
	for _, piece := range pieces {
		if _, err := w.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
		if s := log.String(); s != "" && !strings.HasSuffix(s, "\n") {
			t.Fatalf("after writing %q the log ends in half a line: %q", piece, s)
		}
	}
	want := "perfgate: counting: calibrating Encrypt\nperfgate: counting: round 1/1 done\nvalgrind said no\n"
	if log.String() != want {
		t.Errorf("log:\n%q\nwant\n%q", log.String(), want)
	}
}
