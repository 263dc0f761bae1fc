package pipeline

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestConstantTimeBesideTiming, with a neighbour measured harmless, runs a comparison under metric
// auto whose timing outlasts its count (100 fixed rounds of 25 ms runs against the count's one
// round): the constant-time trace then runs on the count's CPU beside the timing, is recorded as a
// phase beside it, and finds what a trace before the tests finds (both sides traced, the toy
// cipher's key-indexed nothing: a clean check).
func TestConstantTimeBesideTiming(t *testing.T) {
	needLaneE2E(t)
	if cpus, err := abba.AllowedCPUs(); err != nil || len(cpus) < 2 {
		t.Skipf("the count runs beside the timing only with a second CPU; this process may use %v (%v)", cpus, err)
	}
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", merge(xorCipher, map[string]string{"go.mod": testmod.GoMod("example.com/root", "1.21")}))
	head := repo.Commit("head", map[string]string{"README": "a readme\n"})
	cfg := fastConfig(t, repo.Dir, "./crypto/xtea", base, head)
	cfg.Metric = record.MetricAuto
	cfg.ConstantTime = string(record.CTReport)
	cfg.Rounds, cfg.BenchTime = 100, config.For(25*time.Millisecond)
	forceNeighbour(t, neighbourEffect{Measured: true, Pct: 0.1})
	log := &syncBuffer{}
	res, err := runLogged(t, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	text := log.String()
	if !strings.Contains(text, "beside the timing, now that the count is in") {
		// The count's one round took longer than 100 rounds of timing: a very slow valgrind. The
		// trace then ran after the benchmarks, which the phases must say.
		countDone := regexp.MustCompile(`counting: \d+ samples, \d+ failures in (\S+)`).FindStringSubmatch(text)
		timed := regexp.MustCompile(`\n\S+ \d+ samples, \d+ failures in (\S+)`).FindStringSubmatch(text)
		for _, ph := range res.Method.Phases {
			if ph.Name == "constant time" && ph.Alongside != "" {
				t.Errorf("phase %+v beside the timing, but the log says no trace began beside it", ph)
			}
		}
		t.Skipf("the count (%v) did not finish before the timing (%v) on this machine", countDone, timed)
	}
	var beside *record.Phase
	for i, ph := range res.Method.Phases {
		if ph.Name == "constant time" {
			if beside != nil {
				t.Errorf("two constant-time phases: %+v", res.Method.Phases)
			}
			beside = &res.Method.Phases[i]
		}
	}
	if beside == nil || beside.Alongside != "timing and counting" || beside.Wall <= 0 {
		t.Fatalf("constant-time phase %+v, want one beside timing and counting (phases %+v)", beside, res.Method.Phases)
	}
	ct := res.ConstantTime
	if ct == nil || ct.Status != record.CTChecked || len(ct.Operations) == 0 {
		t.Fatalf("constant time %+v, want checked", ct)
	}
	for _, op := range ct.Operations {
		if op.Base == nil || op.Head == nil || op.Base.Runs == 0 || op.Head.Runs == 0 {
			t.Errorf("operation %s %s: base %+v, head %+v; want both sides traced", op.Constructor, op.Operation,
				op.Base, op.Head)
		}
	}
	if !strings.Contains(text, "phase constant time: ") || !strings.Contains(text, " beside timing and counting") {
		t.Error("the log does not say the phase ran beside the timing")
	}
	if s := res.Method.Schedule; !strings.Contains(s, "beside the timing") || !strings.Contains(s, "+0.1%") {
		t.Errorf("method's schedule %q, want the count and trace beside the timing, and the probe's +0.1%%", s)
	}
}

// forceNeighbour makes the scheduler's probe answer e for the rest of the test.
func forceNeighbour(t *testing.T, e neighbourEffect) {
	t.Helper()
	old := neighbourHook
	neighbourHook = func() neighbourEffect { return e }
	t.Cleanup(func() { neighbourHook = old })
}

// TestPlanSchedule holds the plan to its policy on every kind of host: the count and the trace run
// beside the timing only on a spare CPU whose neighbour was measured within a quarter of the
// threshold; otherwise before it (or, on one CPU, the trace after it); profiles always after.
func TestPlanSchedule(t *testing.T) {
	harmless := neighbourEffect{Measured: true, Pct: 0.3}
	harmful := neighbourEffect{Measured: true, Pct: 2.8}
	host := func(metric string, cpus []int, pinned, vg bool, n neighbourEffect) planInput {
		in := planInput{Times: metric != record.MetricInstructions, Auto: metric == record.MetricAuto,
			Counts: metric != record.MetricTime, Valgrind: vg, Trace: true, Pinned: pinned, TimedCPU: -1,
			CPUs: cpus, Threshold: 2, Neighbour: n}
		if pinned {
			in.TimedCPU = cpus[len(cpus)-1]
		}
		return in
	}
	noTrace := host(record.MetricAuto, []int{0, 1}, true, true, harmless)
	noTrace.Trace = false
	edge := host(record.MetricAuto, []int{0, 1}, true, true, neighbourEffect{Measured: true, Pct: 0.5})
	for _, tc := range []struct {
		name                   string
		in                     planInput
		timing, count, trace   place
		spare                  int
		harmful, wantNeighbour bool
		method                 []string // what the method line says; nil for no line
	}{
		{"two CPUs, harmless", host(record.MetricAuto, []int{0, 1}, true, true, harmless),
			place{whenTiming, []int{1}}, place{whenBeside, []int{0}}, place{whenBeside, []int{0}}, 0, false, true,
			[]string{"timed on CPU 1", "then the constant-time trace, on CPU 0 beside the timing", "+0.3%"}},
		{"two CPUs, a quarter of the threshold exactly", edge,
			place{whenTiming, []int{1}}, place{whenBeside, []int{0}}, place{whenBeside, []int{0}}, 0, false, true,
			[]string{"+0.5%", "within a quarter"}},
		{"two CPUs, harmful", host(record.MetricAuto, []int{0, 1}, true, true, harmful),
			place{whenTiming, []int{1}}, place{whenBefore, []int{1}}, place{whenBefore, nil}, -1, true, true,
			[]string{"nothing beside it", "+2.8%", "not within a quarter of the ±2% threshold",
				"instruction count ran before the timing and the constant-time trace before the tests"}},
		{"two CPUs, too noisy to vouch", host(record.MetricAuto, []int{0, 1}, true, true,
			neighbourEffect{Measured: true, Pct: 0.3, UncertaintyPct: 0.4}),
			place{whenTiming, []int{1}}, place{whenBefore, []int{1}}, place{whenBefore, nil}, -1, true, true,
			[]string{"+0.3% ±0.4%", "not within a quarter"}},
		{"two CPUs, the probe failed", host(record.MetricAuto, []int{0, 1}, true, true,
			neighbourEffect{Err: "valgrind exited"}),
			place{whenTiming, []int{1}}, place{whenBefore, []int{1}}, place{whenBefore, nil}, -1, true, true,
			[]string{"could not be measured (valgrind exited)", "ran before the timing"}},
		{"two CPUs, not measured", host(record.MetricAuto, []int{0, 1}, true, true, neighbourEffect{}),
			place{whenTiming, []int{1}}, place{whenBefore, []int{1}}, place{whenBefore, nil}, -1, true, true,
			[]string{"could not be measured"}},
		{"two CPUs, harmless, nothing traced", noTrace,
			place{whenTiming, []int{1}}, place{whenBeside, []int{0}}, place{}, 0, false, true,
			[]string{"the instruction count on CPU 0 beside the timing"}},
		{"four CPUs, the timed one chosen", func() planInput {
			in := host(record.MetricAuto, []int{0, 1, 2, 3}, true, true, harmless)
			in.TimedCPU = 2
			return in
		}(), place{whenTiming, []int{2}}, place{whenBeside, []int{0}}, place{whenBeside, []int{0}}, 0, false, true,
			[]string{"timed on CPU 2"}},
		{"one CPU", host(record.MetricAuto, []int{0}, true, true, neighbourEffect{}),
			place{whenTiming, []int{0}}, place{whenBefore, []int{0}}, place{whenAfter, nil}, -1, false, false, nil},
		{"unpinned", host(record.MetricAuto, []int{0, 1}, false, true, harmless),
			place{whenTiming, nil}, place{whenBefore, nil}, place{whenBefore, nil}, -1, false, false, nil},
		{"metric both", host(record.MetricBoth, []int{0, 1}, true, true, harmless),
			place{whenTiming, []int{1}}, place{whenAfter, []int{1}}, place{whenBefore, nil}, -1, false, false, nil},
		{"metric time", host(record.MetricTime, []int{0, 1}, true, true, harmless),
			place{whenTiming, []int{1}}, place{}, place{whenBefore, nil}, -1, false, false, nil},
		{"metric instructions", host(record.MetricInstructions, []int{0, 1}, true, true, harmless),
			place{}, place{whenBefore, []int{1}}, place{whenBefore, nil}, -1, false, false, nil},
		{"auto without valgrind", host(record.MetricAuto, []int{0, 1}, true, false, harmless),
			place{whenTiming, []int{1}}, place{}, place{whenBefore, nil}, -1, false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := planSchedule(tc.in)
			if !reflect.DeepEqual(pl.Timing, tc.timing) || !reflect.DeepEqual(pl.Counting, tc.count) ||
				!reflect.DeepEqual(pl.Tracing, tc.trace) {
				t.Errorf("timing %+v, counting %+v, tracing %+v; want %+v, %+v, %+v", pl.Timing, pl.Counting,
					pl.Tracing, tc.timing, tc.count, tc.trace)
			}
			if pl.Profiling.When != whenAfter {
				t.Errorf("profiling %+v, want after the timing", pl.Profiling)
			}
			if pl.Spare != tc.spare || pl.Harmful != tc.harmful || tc.in.wantsNeighbour() != tc.wantNeighbour {
				t.Errorf("spare %d, harmful %v, wants the probe %v; want %d, %v, %v", pl.Spare, pl.Harmful,
					tc.in.wantsNeighbour(), tc.spare, tc.harmful, tc.wantNeighbour)
			}
			m := pl.method(false)
			if (m == "") != (tc.method == nil) {
				t.Errorf("method %q, want one that says %q", m, tc.method)
			}
			for _, want := range tc.method {
				if !strings.Contains(m, want) {
					t.Errorf("method %q does not say %q", m, want)
				}
			}
			if strings.Contains(m, "store") {
				t.Errorf("method %q names the store, which is off", m)
			}
		})
	}
	in := host(record.MetricAuto, []int{0, 1}, true, true, harmful)
	if m := planSchedule(in).method(true); !strings.Contains(m, "the store keeps the trace's analyses across re-runs") {
		t.Errorf("method %q with a store, want it to say the trace's cost is paid once", m)
	}
}

// TestLanesBeforeTimingWhenNeighbourHarmful forces a neighbour measured harmful (+2.8% on a 2%
// threshold) on a host with a CPU to spare: the count lane runs before the timing on the timed CPU,
// the constant-time trace before the tests, neither beside the timing, and the method says so.
func TestLanesBeforeTimingWhenNeighbourHarmful(t *testing.T) {
	needLaneE2E(t)
	if cpus, err := abba.AllowedCPUs(); err != nil || len(cpus) < 2 {
		t.Skipf("a neighbour matters only with a second CPU; this process may use %v (%v)", cpus, err)
	}
	forceNeighbour(t, neighbourEffect{Measured: true, Pct: 2.8})
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", merge(xorCipher, map[string]string{"go.mod": testmod.GoMod("example.com/root", "1.21")}))
	head := repo.Commit("head", map[string]string{"README": "a readme\n"})
	cfg := fastConfig(t, repo.Dir, "./crypto/xtea", base, head)
	cfg.Metric = record.MetricAuto
	cfg.ConstantTime = string(record.CTReport)
	log := &syncBuffer{}
	res, err := runLogged(t, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ph := range res.Method.Phases {
		names = append(names, ph.Name)
		if ph.Alongside != "" {
			t.Errorf("phase %+v ran beside %s; want nothing beside the timing", ph, ph.Alongside)
		}
	}
	order := strings.Join(names, ", ")
	if !strings.Contains(order, "constant time, tests") || !strings.Contains(order, "timing and counting") {
		t.Errorf("phases %s; want the constant-time trace right before the tests, and the lanes' phase", order)
	}
	text := log.String()
	if !strings.Contains(text, "before the timing, not beside it") || strings.Contains(text, "alongside the timing") {
		t.Error("the log does not say the count ran before the timing, or says it ran alongside")
	}
	if ct := res.ConstantTime; ct == nil || ct.Status != record.CTChecked {
		t.Errorf("constant time %+v, want checked", ct)
	}
	s := res.Method.Schedule
	for _, want := range []string{"nothing beside it", "+2.8%", "instruction count ran before the timing",
		"constant-time trace before the tests"} {
		if !strings.Contains(s, want) {
			t.Errorf("method's schedule %q does not say %q", s, want)
		}
	}
	var counted bool
	for _, b := range res.Benchmarks {
		counted = counted || b.Unit == record.UnitInstructions
	}
	if !counted {
		t.Error("no instructions/op row: the count lane did not run")
	}
}
