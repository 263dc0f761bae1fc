package gate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// secOp is a sec/op benchmark of class class whose paired estimate is head/base = ratio.
func secOp(name string, class record.Class, ratio float64) record.Benchmark {
	return record.Benchmark{Name: name, Unit: record.UnitTime, Class: class, DeltaPct: (ratio - 1) * 100,
		Paired: &record.Paired{Ratio: ratio, Lo: ratio - 0.01, Hi: ratio + 0.01}}
}

// passing is a Result in which everything passed: two unchanged benchmarks, tests passed on both
// sides, the differential check identical and the package 10 bytes larger.
func passing() *record.Result {
	return &record.Result{
		Schema: record.Schema,
		Benchmarks: []record.Benchmark{
			secOp("Encrypt/des", record.ClassUnchanged, 1.001),
			{Name: "Encrypt/des", Unit: "B/s", Class: record.ClassUnchanged, DeltaPct: -0.1},
			secOp("Encrypt/3des", record.ClassFaster, 0.9),
		},
		Functional:   record.Functional{Base: record.TestRun{Ran: true, Passed: true}, Head: record.TestRun{Ran: true, Passed: true}},
		Differential: record.Differential{Status: record.DiffIdentical, Ciphers: []record.Cipher{{Name: "NewCipher"}}},
		Sizes: record.Sizes{Sections: []record.SectionSize{
			{Name: ".text", Base: 1000, Head: 1030},
			{Name: ".rodata", Base: 500, Head: 480},
		}},
	}
}

// allocs is an exact allocs/op benchmark that went from base to head allocations per op, classed as
// package bench classes it.
func allocs(name string, base, head float64) record.Benchmark {
	b := record.Benchmark{Name: name, Unit: "allocs/op", Exact: true, Class: record.ClassSlower,
		Base: record.Summary{Center: base, N: 10}, Head: record.Summary{Center: head, N: 10}}
	if head < base {
		b.Class = record.ClassFaster
	}
	if base > 0 {
		b.Paired = &record.Paired{Ratio: head / base, Lo: head / base, Hi: head / base}
		b.DeltaPct = (head/base - 1) * 100
	}
	return b
}

func TestCheckGateUnits(t *testing.T) {
	bs := []record.Benchmark{secOp("Encrypt/des", record.ClassUnchanged, 1), allocs("Encrypt/des", 1, 1),
		{Name: "Encrypt/des", Unit: "B/op", Class: record.ClassUnchanged}, {Name: "X", Unit: "instructions/op", Class: record.ClassFailed}}
	if err := config.CheckGateUnits([]string{"sec/op", "allocs/op", "B/op"}, bs); err != nil {
		t.Errorf("reported units: %v", err)
	}
	err := config.CheckGateUnits([]string{"sec/op", "instructions/op"}, bs)
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("unreported unit: got %v, want a *ConfigError", err)
	}
	want := `gate-units: invalid value "instructions/op": want units the benchmarks report: sec/op, B/op, allocs/op`
	if err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}
	if config.ExitCode(fmt.Errorf("comparing: %w", err)) != record.ExitUsage {
		t.Errorf("exit code of %v: want %d", err, record.ExitUsage)
	}
	if err := config.CheckGateUnits([]string{"instructions/op"}, nil); err != nil {
		t.Errorf("no benchmarks: %v, want nothing checked", err)
	}
	// An untimed same-code row reports no unit: with only such rows, any gated unit is accepted;
	// beside timed rows, the timed ones decide.
	same := []record.Benchmark{{Name: "KeySetup", Unit: record.UnitTime, Class: record.ClassUnchanged, SameCode: true}}
	if err := config.CheckGateUnits([]string{"sec/op", "allocs/op"}, same); err != nil {
		t.Errorf("same-code rows only: %v", err)
	}
	if err := config.CheckGateUnits([]string{"instructions/op"}, append(same, bs...)); err == nil {
		t.Error("same-code row beside timed rows: an unreported unit was accepted")
	}
}

func TestDecide(t *testing.T) {
	slower := func(r *record.Result) { r.Benchmarks[0] = secOp("Encrypt/des", record.ClassSlower, 1.08) }
	tests := []struct {
		name        string
		config      func(*config.Config)
		change      func(*record.Result)
		buildFailed bool
		runErr      error

		status       record.Status
		exit         int
		reasons      []string // each must be a part of some reason; nil: no reasons at all
		acknowledged []string // each must be a part of some acknowledgement; nil: none
		notes        []string // each must be a part of some note gate.Decide added
	}{
		{name: "all pass", status: record.StatusPass, exit: record.ExitPass},
		// Inconclusive is not PASS: a status of its own, exit 4 unless on-inconclusive is pass.
		// (Before, it passed.)
		{name: "inconclusive blocks by default", change: func(r *record.Result) {
			r.Benchmarks[0] = secOp("Encrypt/des", record.ClassInconclusive, 1.05)
		}, status: record.StatusInconclusive, exit: record.ExitInconclusive,
			reasons: []string{"1 benchmark could not be told changed or unchanged within ±0%, and a slowdown beyond +0% is " +
				"not ruled out: Encrypt/des (+4.0% to +6.0%); a longer budget, a quieter runner, or metric auto (valgrind) " +
				"would settle them; on-inconclusive: fail, so the merge is blocked"}},
		{name: "inconclusive passes under on-inconclusive pass", config: func(c *config.Config) {
			c.OnInconclusive = gate.OnInconclusivePass
		}, change: func(r *record.Result) {
			r.Benchmarks[0] = secOp("Encrypt/des", record.ClassInconclusive, 1.05)
		}, status: record.StatusInconclusive, exit: record.ExitPass,
			reasons: []string{"on-inconclusive: pass, so the merge is not blocked"}},
		{name: "inconclusive on byte-identical binaries is nothing to tell", change: func(r *record.Result) {
			r.Benchmarks[0] = secOp("Encrypt/des", record.ClassInconclusive, 1.05)
			r.Method.BinariesSame = true
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "inconclusive with the acknowledge label is let through, still inconclusive", config: func(c *config.Config) {
			c.Acknowledged = true
		}, change: func(r *record.Result) {
			r.Benchmarks[0] = secOp("Encrypt/des", record.ClassInconclusive, 1.05)
		}, status: record.StatusInconclusive, exit: record.ExitPass, reasons: []string{"label lets them through"}},
		{name: "a peak RSS that grew gates through gate-units", config: func(c *config.Config) {
			c.GateUnits = []string{"sec/op", "allocs/op", "peak-RSS-B"}
		}, change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "Encrypt/des", Unit: "peak-RSS-B",
				Class: record.ClassSlower, Paired: &record.Paired{Ratio: 1.5, Lo: 1.4, Hi: 1.6}})
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is worse in peak-RSS-B (+50.0%)"}},
		{name: "a peak RSS that grew is reported only by default", change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "Encrypt/des", Unit: "peak-RSS-B",
				Class: record.ClassSlower, Paired: &record.Paired{Ratio: 1.5, Lo: 1.4, Hi: 1.6}})
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "a limit on head fails whatever base was", config: func(c *config.Config) {
			c.Limits = map[string]map[string]float64{"Encrypt/.*": {"sec/op": 1e-6}, "Decrypt": {"sec/op": 1}}
		}, change: func(r *record.Result) {
			b := secOp("Encrypt/des", record.ClassUnchanged, 1)
			b.Base.Center, b.Head.Center, b.Head.N = 2.5e-6, 2.5e-6, 10
			r.Benchmarks[0] = b
		}, status: record.StatusFail, exit: record.ExitFail,
			reasons: []string{"Encrypt/des: sec/op on head 2.5e-06, above its limit 1e-06 (limits: Encrypt/.*)"}},
		{name: "within its limit passes", config: func(c *config.Config) {
			c.Limits = map[string]map[string]float64{"Encrypt/.*": {"instructions/op": 150000}}
		}, change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "Encrypt/des", Unit: "instructions/op",
				Class: record.ClassUnchanged, Head: record.Summary{Center: 149999, N: 2}})
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "over an instruction limit", config: func(c *config.Config) {
			c.Limits = map[string]map[string]float64{"Encrypt/.*": {"instructions/op": 150000}}
		}, change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "Encrypt/des", Unit: "instructions/op",
				Class: record.ClassUnchanged, Head: record.Summary{Center: 160123, N: 2}})
		}, status: record.StatusFail, exit: record.ExitFail,
			reasons: []string{"Encrypt/des: instructions/op on head 160,123, above its limit 150,000 (limits: Encrypt/.*)"}},
		{name: "inconclusive in a unit that does not gate passes", change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "Encrypt/des", Unit: "B/s", Class: record.ClassInconclusive})
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "one sec/op slower", change: slower,
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower (+8.0%)"}},
		{name: "slower by benchstat's delta without a paired estimate", change: func(r *record.Result) {
			r.Benchmarks[0] = record.Benchmark{Name: "Encrypt/des", Unit: record.UnitTime, Class: record.ClassSlower, DeltaPct: 12.5}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower (+12.5%)"}},
		{name: "slower in B/s only", change: func(r *record.Result) {
			r.Benchmarks[1].Class, r.Benchmarks[1].DeltaPct = record.ClassSlower, -9
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "slower in B/op only", change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "Encrypt/des", Unit: "B/op", Class: record.ClassSlower, DeltaPct: 100})
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "more allocations fail by default", change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, allocs("Encrypt/des", 1, 2))
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des allocates more (allocs/op 1 → 2)"}},
		{name: "from no allocation to one fails even within a threshold",
			config: func(c *config.Config) { c.Thresholds = map[string]float64{"Encrypt": 50} },
			change: func(r *record.Result) { r.Benchmarks = append(r.Benchmarks, allocs("Encrypt/des", 0, 1)) },
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des allocates more (allocs/op 0 → 1)"}},
		{name: "fewer allocations pass", change: func(r *record.Result) {
			r.Benchmarks = append(r.Benchmarks, allocs("Encrypt/des", 2, 1))
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "more allocations with the label", config: func(c *config.Config) { c.Acknowledged, c.AcknowledgeLabel = true, "slow-ok" },
			change: func(r *record.Result) { r.Benchmarks = append(r.Benchmarks, allocs("Encrypt/des", 1, 2)) },
			status: record.StatusPass, exit: record.ExitPass,
			acknowledged: []string{"Encrypt/des allocs/op: acknowledged by label slow-ok"}},
		{name: "more allocations within a threshold", config: func(c *config.Config) { c.Thresholds = map[string]float64{"Encrypt": 50} },
			change: func(r *record.Result) { r.Benchmarks = append(r.Benchmarks, allocs("Encrypt/des", 2, 3)) },
			status: record.StatusPass, exit: record.ExitPass,
			acknowledged: []string{"Encrypt/des allocs/op: +50.0% is within its threshold 50%"}},
		{name: "more allocations when only time gates", config: func(c *config.Config) { c.GateUnits = []string{"sec/op"} },
			change: func(r *record.Result) { r.Benchmarks = append(r.Benchmarks, allocs("Encrypt/des", 1, 2)) },
			status: record.StatusPass, exit: record.ExitPass},
		{name: "slower when only allocations gate", config: func(c *config.Config) { c.GateUnits = []string{"allocs/op"} },
			change: slower, status: record.StatusPass, exit: record.ExitPass},
		{name: "slower in B/s when B/s gates", config: func(c *config.Config) { c.GateUnits = []string{"B/s"} },
			change: func(r *record.Result) { r.Benchmarks[1].Class, r.Benchmarks[1].DeltaPct = record.ClassSlower, -9 },
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is worse in B/s (-9.0%)"}},
		{name: "slower with the label", config: func(c *config.Config) { c.Acknowledged, c.AcknowledgeLabel = true, "slow-ok" },
			change: slower, status: record.StatusPass, exit: record.ExitPass,
			acknowledged: []string{"Encrypt/des: acknowledged by label slow-ok"}},
		{name: "slower within its threshold", config: func(c *config.Config) { c.Thresholds = map[string]float64{"^Encrypt/des$": 10} },
			change: slower, status: record.StatusPass, exit: record.ExitPass,
			acknowledged: []string{"Encrypt/des: +8.0% is within its threshold 10% (^Encrypt/des$)"}},
		{name: "slower exactly at its threshold", config: func(c *config.Config) { c.Thresholds = map[string]float64{"Encrypt": 6.25} },
			// (1.0625-1)×100 = 6.25 exactly in binary
			change: func(r *record.Result) { r.Benchmarks[0] = secOp("Encrypt/des", record.ClassSlower, 1.0625) },
			status: record.StatusPass, exit: record.ExitPass, acknowledged: []string{"+6.2% is within its threshold 6.25%"}},
		{name: "slower beyond its threshold", config: func(c *config.Config) { c.Thresholds = map[string]float64{"^Encrypt/des$": 5} },
			change: slower, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower (+8.0%)"}},
		{name: "threshold of another benchmark", config: func(c *config.Config) { c.Thresholds = map[string]float64{"KeySetup": 50} },
			change: slower, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower"}},
		{name: "threshold reads the paired estimate, not benchstat's delta",
			config: func(c *config.Config) { c.Thresholds = map[string]float64{"Encrypt": 10} },
			change: func(r *record.Result) {
				r.Benchmarks[0] = secOp("Encrypt/des", record.ClassSlower, 1.2)
				r.Benchmarks[0].DeltaPct = 5
			}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower (+20.0%)"}},
		{name: "identical binaries and slower", change: func(r *record.Result) { slower(r); r.Method.BinariesSame = true },
			status: record.StatusPass, exit: record.ExitPass, acknowledged: []string{"Encrypt/des: base and head test binaries are byte-identical"}},
		{name: "differential mismatch", change: func(r *record.Result) {
			r.Differential.Status = record.DiffMismatch
			r.Differential.Ciphers = []record.Cipher{{Name: "NewCipher", Mismatches: 3}, {Name: "NewTripleDESCipher", Mismatches: 4}}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"differential check: head computes different bytes (7 mismatches)"}},
		{name: "differential mismatch with a reason", change: func(r *record.Result) {
			r.Differential.Status, r.Differential.Reason = record.DiffMismatch, "head harness panicked"
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"differential check: head harness panicked"}},
		{name: "differential not comparable", change: func(r *record.Result) {
			r.Differential.Status, r.Differential.Reason = record.DiffNotComparable, "base: harness: panic: boom"
		}, status: record.StatusPass, exit: record.ExitPass, notes: []string{"not comparable, which does not block the gate: base: harness: panic"}},
		// A gate never says PASS about something it did not check.
		{name: "head harness fails while base's does too", change: func(r *record.Result) {
			r.Differential = record.Differential{Status: record.DiffNotComparable, HeadFailed: true,
				Reason: "base: harness: panic: x; head: harness did not finish within 2m0s"}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"differential check: head failed: base: harness: panic: x; head: harness did not finish"}},
		{name: "perfgate cannot run the differential", change: func(r *record.Result) {
			r.Differential = record.Differential{Status: record.DiffError, Reason: "the generated harness does not compile in base's module: x"}
		}, status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{
			"perfgate could not run the differential check: the generated harness does not compile in base's module: x; " +
				"to run without it, set differential: false"}},
		{name: "perfgate cannot run the differential, and head is slower", change: func(r *record.Result) {
			slower(r)
			r.Differential = record.Differential{Status: record.DiffError, Reason: "x"}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower", "could not run the differential check: x"}},
		{name: "no benchmarks, no constructors", change: func(r *record.Result) {
			r.Benchmarks = nil
			r.Differential = record.Differential{Status: record.DiffSkipped, NoConstructors: true, Reason: "no cipher constructor in . on both sides (looked for …)"}
		}, status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{"nothing was checked (benchmarks: no benchmarks; " +
			"differential: no cipher constructor; size: no max-size-growth set (sizes are reported only))"}},
		{name: "no benchmarks, differential off", config: func(c *config.Config) { c.Differential = false }, change: func(r *record.Result) {
			r.Benchmarks = nil
			r.Differential = record.Differential{Status: record.DiffSkipped, Reason: "disabled by configuration"}
		}, status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{"nothing was checked (benchmarks: no benchmarks; " +
			"differential: disabled by configuration; "}},
		{name: "no benchmarks, differential identical", change: func(r *record.Result) { r.Benchmarks = nil },
			status: record.StatusPass, exit: record.ExitPass},
		{name: "benchmarks only", config: func(c *config.Config) { c.Differential = false }, change: func(r *record.Result) {
			r.Differential = record.Differential{Status: record.DiffSkipped, Reason: "disabled by configuration"}
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "size limit only", config: func(c *config.Config) { c.Differential, c.MaxSizeGrowth = false, 100 }, change: func(r *record.Result) {
			r.Benchmarks = nil
			r.Differential = record.Differential{Status: record.DiffSkipped, Reason: "disabled by configuration"}
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "nothing checked but head's tests fail", change: func(r *record.Result) {
			r.Benchmarks = nil
			r.Differential = record.Differential{Status: record.DiffSkipped, NoConstructors: true, Reason: "no cipher constructor in ."}
			r.Functional.Head.Passed = false
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head's tests fail"}},
		{name: "head tests fail", change: func(r *record.Result) { r.Functional.Head.Passed = false },
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head's tests fail"}},
		{name: "head tests did not run", change: func(r *record.Result) { r.Functional.Head = record.TestRun{} },
			status: record.StatusPass, exit: record.ExitPass},
		{name: "base tests fail", change: func(r *record.Result) { r.Functional.Base.Passed = false },
			status: record.StatusPass, exit: record.ExitPass},
		{name: "head build failed", buildFailed: true,
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head does not build"}},
		{name: "head panics", change: func(r *record.Result) {
			r.Failures = []record.Failure{{Name: "Encrypt/des", Side: "head", Round: 2, Kind: "panic", Message: "index out of range"}}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"benchmark Encrypt/des fails on head (panic)"}},
		{name: "head hangs", change: func(r *record.Result) {
			r.Failures = []record.Failure{{Name: "Encrypt/3des", Side: "head", Round: 1, Kind: "timeout"}}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"benchmark Encrypt/3des fails on head (timeout)"}},
		{name: "head's benchmark code hangs on base", change: func(r *record.Result) {
			r.Method.BenchSource, r.Method.BenchChanged = record.BenchSourceHead, []string{"Decrypt"}
			r.Failures = []record.Failure{{Name: "Decrypt/des", Side: "base", Slot: -1, Kind: "timeout"}}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"benchmark Decrypt/des fails with head's benchmark code (timeout"}},
		{name: "unchanged benchmark code fails on base", change: func(r *record.Result) {
			r.Method.BenchSource, r.Method.BenchChanged = record.BenchSourceHead, []string{"Encrypt"}
			r.Failures = []record.Failure{{Name: "Decrypt/des", Side: "base", Slot: -1, Kind: "timeout"}}
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "base fails only", change: func(r *record.Result) {
			r.Failures = []record.Failure{{Name: "Encrypt/des", Side: "base", Round: 1, Kind: "panic"}}
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "no result on head", change: func(r *record.Result) {
			r.Failures = []record.Failure{{Name: "Encrypt/des", Side: "head", Round: 1, Kind: "no-result"}}
		}, status: record.StatusPass, exit: record.ExitPass, notes: []string{"benchmark Encrypt/des printed no result on head"}},
		{name: "one benchmark removed", change: func(r *record.Result) {
			r.Failures = []record.Failure{{Name: "Decrypt/des", Side: "head", Round: 1, Kind: record.FailureRemoved}}
		}, status: record.StatusPass, exit: record.ExitPass},
		{name: "every benchmark removed", change: func(r *record.Result) {
			r.Benchmarks = nil
			r.Failures = []record.Failure{
				{Name: "Encrypt/des", Side: "head", Round: 1, Kind: record.FailureRemoved},
				{Name: "Encrypt/des", Side: "head", Round: 2, Kind: record.FailureRemoved},
				{Name: "Encrypt/3des", Side: "head", Round: 1, Kind: record.FailureRemoved},
			}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head has none of base's benchmarks (2 removed or renamed)"}},
		{name: "removed, and the rows left compare nothing", change: func(r *record.Result) {
			// A benchmark new on head has no base samples: failed, so nothing of base's was
			// compared.
			r.Benchmarks = []record.Benchmark{
				{Name: "Seal", Unit: record.UnitTime, Class: record.ClassFailed, Note: "no base samples"},
				{Name: "Seal", Unit: "B/s", Class: record.ClassUnchanged},
			}
			r.Failures = []record.Failure{{Name: "Encrypt/des", Side: "head", Round: 1, Kind: record.FailureRemoved}}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head has none of base's benchmarks (1 removed or renamed)"}},
		// grew 30 - 20 = 10
		{name: "size growth over the limit", config: func(c *config.Config) { c.MaxSizeGrowth = 9 },
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"grew by 10 bytes, more than max-size-growth 9"}},
		{name: "size growth at the limit", config: func(c *config.Config) { c.MaxSizeGrowth = 10 },
			status: record.StatusPass, exit: record.ExitPass},
		{name: "size growth without a limit", change: func(r *record.Result) { r.Sizes.Sections[0].Head = 1 << 20 },
			status: record.StatusPass, exit: record.ExitPass},
		{name: "run error", runErr: errors.New("base does not build: exit status 1"),
			status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{"base does not build: exit status 1"}},
		// What was found stands above what could not run: a failure stays exit 1, with the errors
		// beside it.
		{name: "a failure stands above a run error", change: slower, runErr: errors.New("git: object not found"),
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"Encrypt/des is slower", "git: object not found"}},
		{name: "a differential mismatch stands above a lane error", change: func(r *record.Result) {
			r.Differential.Status, r.Differential.Ciphers[0].Mismatches = record.DiffMismatch, 3
		}, runErr: errors.New("counting instructions: valgrind: exit status 1"),
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head computes different bytes (3 mismatches)",
				"counting instructions: valgrind: exit status 1"}},
		{name: "a differential mismatch stands above counts that did not repeat", change: func(r *record.Result) {
			r.Differential.Status, r.Differential.Ciphers[0].Mismatches = record.DiffMismatch, 1
			r.Failures = []record.Failure{{Name: "Encrypt/des", Side: "base", Kind: record.FailureUnrepeatable}}
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head computes different bytes (1 mismatches)",
			"the instruction-count lane could not count exactly"}},
		{name: "counts that did not repeat, nothing found, are an error", change: func(r *record.Result) {
			r.Failures = []record.Failure{{Name: "Encrypt/des", Side: "base", Kind: record.FailureUnrepeatable}}
		}, status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{"the instruction-count lane could not count exactly"}},
		{name: "head's failing tests stand above an unfinished run", change: func(r *record.Result) {
			r.Functional.Head.Passed = false
			r.Incomplete = true
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head's tests fail", "the comparison did not finish"}},
		{name: "a limit exceeded stands above a run error", config: func(c *config.Config) {
			c.Limits = map[string]map[string]float64{"Encrypt/.*": {"sec/op": 1e-9}}
		}, change: func(r *record.Result) {
			r.Benchmarks[0].Head = record.Summary{Center: 2e-9, N: 10}
		}, runErr: errors.New("building base: exit status 1"),
			status: record.StatusFail, exit: record.ExitFail, reasons: []string{"above its limit", "building base: exit status 1"}},
		{name: "size growth stands above an inconclusive benchmark", config: func(c *config.Config) { c.MaxSizeGrowth = 9 },
			change: func(r *record.Result) {
				r.Benchmarks[0] = secOp("Encrypt/des", record.ClassInconclusive, 1.05)
			}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"grew by 10 bytes"},
			notes: []string{"1 benchmark could not be told changed or unchanged"}},
		{name: "errors joined are one reason each", change: slower,
			runErr: errors.Join(errors.New("./a: building base: exit status 1"), errors.New("./b: listing benchmarks: killed")),
			status: record.StatusFail, exit: record.ExitFail,
			reasons: []string{"Encrypt/des is slower", "./a: building base: exit status 1", "./b: listing benchmarks: killed"}},
		{name: "an inconclusive benchmark and a run error are an error", change: func(r *record.Result) {
			r.Benchmarks[0] = secOp("Encrypt/des", record.ClassInconclusive, 1.05)
		}, runErr: errors.New("counting instructions: killed"),
			status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{"counting instructions: killed"}},
		{name: "incomplete", change: func(r *record.Result) { r.Incomplete = true },
			status: record.StatusError, exit: record.ExitCannotRun, reasons: []string{"the comparison did not finish"}},
		{name: "several reasons", buildFailed: true, change: func(r *record.Result) {
			slower(r)
			r.Functional.Head.Passed = false
		}, status: record.StatusFail, exit: record.ExitFail, reasons: []string{"head does not build", "head's tests fail", "Encrypt/des is slower"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := config.Default()
			// the cases say what an inconclusive run fails
			c.OnInconclusive = gate.OnInconclusiveFail
			if tt.config != nil {
				tt.config(&c)
			}
			r := passing()
			if tt.change != nil {
				tt.change(r)
			}
			r.HeadBuildFailed = tt.buildFailed
			before := cloneResult(t, r)
			v := stopped(gate.Decide(*r, c.Policy()), tt.runErr)
			if diff := cmp.Diff(before, r); diff != "" {
				t.Errorf("gate.Decide changed its input (-before +after):\n%s", diff)
			}
			if again := stopped(gate.Decide(*r, c.Policy()), tt.runErr); !cmp.Equal(v, again) {
				t.Errorf("a second gate.Decide gave another verdict:\n%s", cmp.Diff(v, again))
			}
			if v.Status != tt.status || v.ExitCode != tt.exit {
				t.Errorf("verdict %s, exit %d; want %s, exit %d (reasons %q)", v.Status, v.ExitCode, tt.status, tt.exit, v.Reasons)
			}
			if v.Reasons == nil {
				t.Error("Reasons is nil: result.json would carry null, not []")
			}
			if len(tt.reasons) == 0 && len(v.Reasons) > 0 {
				t.Errorf("reasons %q, want none", v.Reasons)
			}
			if len(v.Reasons) < len(tt.reasons) {
				t.Errorf("%d reasons %q, want at least %d", len(v.Reasons), v.Reasons, len(tt.reasons))
			}
			for _, want := range tt.reasons {
				if !containsPart(v.Reasons, want) {
					t.Errorf("reasons %q: none contains %q", v.Reasons, want)
				}
			}
			if len(tt.acknowledged) == 0 && len(v.Acknowledged) > 0 {
				t.Errorf("acknowledged %q, want none", v.Acknowledged)
			}
			for _, want := range tt.acknowledged {
				if !containsPart(v.Acknowledged, want) {
					t.Errorf("acknowledged %q: none contains %q", v.Acknowledged, want)
				}
			}
			added := v.Notes
			if len(added) != len(tt.notes) {
				t.Errorf("notes added %q, want %d", added, len(tt.notes))
			}
			for _, want := range tt.notes {
				if !containsPart(added, want) {
					t.Errorf("notes %q: none contains %q", added, want)
				}
			}
		})
	}
}

// TestDecideMarksAcknowledged checks that the benchmarks the verdict acknowledges are marked, and
// only those. TestRunErrorBeforeAnyCheck: a comparison stopped before any check ran says why it
// stopped, not that nothing was checked.
func TestRunErrorBeforeAnyCheck(t *testing.T) {
	c := config.Default()
	r := record.Result{Differential: record.Differential{Status: record.DiffSkipped}}
	if v := gate.Decide(r, c.Policy()); len(v.Reasons) != 1 || !strings.HasPrefix(v.Reasons[0], "nothing was checked (") {
		t.Fatalf("gate.Decide reasons %q, want nothing checked", v.Reasons)
	}
	v := stopped(gate.Decide(r, c.Policy()), errors.New("resolving \"HEAD~1\": not present"))
	if diff := cmp.Diff([]string{"resolving \"HEAD~1\": not present"}, v.Reasons); diff != "" || v.ExitCode != record.ExitCannotRun {
		t.Errorf("exit %d, reasons (-want +got):\n%s", v.ExitCode, diff)
	}
}

// TestDecideChecks: the verdict says which checks ran, with what, and why the others did not.
func TestDecideChecks(t *testing.T) {
	check := func(name string, p gate.Policy, change func(*record.Result), want []record.Check) {
		t.Helper()
		r := passing()
		change(r)
		if diff := cmp.Diff(want, gate.Decide(*r, p).Checks); diff != "" {
			t.Errorf("%s: checks (-want +got):\n%s", name, diff)
		}
	}
	c := config.Default()
	on := c.Policy()
	check("everything", gate.Policy{Differential: true, MaxSizeGrowth: 64}, func(*record.Result) {}, []record.Check{
		{Name: record.CheckBenchmarks, Ran: true, Detail: "2 benchmarks"}, {Name: record.CheckDifferential, Ran: true, Detail: "1 constructor"},
		{Name: record.CheckSize, Ran: true, Detail: "growth limit 64 bytes"}})
	check("skipped", on, func(r *record.Result) {
		r.Benchmarks = nil
		r.Differential = record.Differential{Status: record.DiffSkipped, NoConstructors: true, Reason: "no cipher constructor in ./x on both sides"}
	}, []record.Check{{Name: record.CheckBenchmarks, Ran: false, Detail: "no benchmarks"}, {Name: record.CheckDifferential, Ran: false, Detail: "no cipher constructor"},
		{Name: record.CheckSize, Ran: false, Detail: "no max-size-growth set (sizes are reported only)"}})
	check("failed and not comparable", gate.Policy{MaxSizeGrowth: 64}, func(r *record.Result) {
		r.Benchmarks = []record.Benchmark{{Name: "Encrypt", Unit: record.UnitTime, Class: record.ClassFailed}}
		r.Differential = record.Differential{Status: record.DiffNotComparable, Reason: "base: panic"}
		r.Sizes = record.Sizes{Error: "measuring base: no symbols"}
	}, []record.Check{{Name: record.CheckBenchmarks, Ran: false, Detail: "no benchmark ran on both sides"}, {Name: record.CheckDifferential, Ran: false, Detail: "disabled by configuration"},
		{Name: record.CheckSize, Ran: false, Detail: "not measured"}})
	same := record.Benchmark{Unit: record.UnitTime, Class: record.ClassUnchanged, SameCode: true, Note: record.NoteSameCode}
	check("same machine code only", on, func(r *record.Result) {
		a, b := same, same
		a.Name, b.Name = "Encrypt", "Decrypt"
		r.Benchmarks = []record.Benchmark{a, b}
		r.Differential = record.Differential{Status: record.DiffSkipped}
	}, []record.Check{{Name: record.CheckBenchmarks, Ran: true, Detail: "2 benchmarks: same machine code"}, {Name: record.CheckDifferential, Ran: false, Detail: "not run"},
		{Name: record.CheckSize, Ran: false, Detail: "no max-size-growth set (sizes are reported only)"}})
	check("some by same machine code", on, func(r *record.Result) {
		a := same
		a.Name = "KeySetup"
		r.Benchmarks = append(r.Benchmarks, a)
	}, []record.Check{{Name: record.CheckBenchmarks, Ran: true, Detail: "3 benchmarks (1 by same machine code)"}, {Name: record.CheckDifferential, Ran: true, Detail: "1 constructor"},
		{Name: record.CheckSize, Ran: false, Detail: "no max-size-growth set (sizes are reported only)"}})
	check("base not comparable", on, func(r *record.Result) {
		r.Differential = record.Differential{Status: record.DiffNotComparable, Reason: "base: panic"}
	}, []record.Check{{Name: record.CheckBenchmarks, Ran: true, Detail: "2 benchmarks"}, {Name: record.CheckDifferential, Ran: false, Detail: "base failed"},
		{Name: record.CheckSize, Ran: false, Detail: "no max-size-growth set (sizes are reported only)"}})
}

func TestDecideMarksAcknowledged(t *testing.T) {
	c := config.Default()
	c.Thresholds = map[string]float64{"^Encrypt/": 10}
	r := passing()
	r.Benchmarks = []record.Benchmark{
		secOp("Decrypt/des", record.ClassSlower, 1.03),
		secOp("Encrypt/3des", record.ClassSlower, 1.2),
		secOp("Encrypt/des", record.ClassSlower, 1.05),
		{Name: "Encrypt/des", Unit: "B/s", Class: record.ClassSlower, DeltaPct: -5},
		allocs("Encrypt/des", 20, 21), // +5%: within ^Encrypt/'s 10%
		allocs("Decrypt/des", 2, 3),
	}
	applied := gate.Apply(*r, gate.Decide(*r, c.Policy()))
	for _, b := range r.Benchmarks {
		if b.Acknowledged {
			t.Errorf("gate.Apply marked its input's %s %s", b.Name, b.Unit)
		}
	}
	r = &applied
	got := map[string]bool{}
	for _, b := range r.Benchmarks {
		got[b.Name+" "+b.Unit] = b.Acknowledged
	}
	want := map[string]bool{
		"Decrypt/des sec/op": false, "Encrypt/3des sec/op": false, "Encrypt/des sec/op": true, "Encrypt/des B/s": false,
		"Encrypt/des allocs/op": true, "Decrypt/des allocs/op": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Acknowledged per benchmark (-want +got):\n%s", diff)
	}
	wantReasons := []string{"Decrypt/des is slower (+3.0%)", "Encrypt/3des is slower (+20.0%)",
		"Decrypt/des allocates more (allocs/op 2 → 3)"}
	if diff := cmp.Diff(wantReasons, r.Verdict.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
	if r.Verdict.Status != record.StatusFail {
		t.Errorf("status %s, want fail", r.Verdict.Status)
	}
}

func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

func TestSortBenchmarks(t *testing.T) {
	bs := []record.Benchmark{
		{Name: "Encrypt", Unit: "allocs/op"}, {Name: "Encrypt", Unit: "B/s"}, {Name: "Decrypt", Unit: "B/op"},
		{Name: "Encrypt", Unit: "sec/op"}, {Name: "Decrypt", Unit: "custom/op"}, {Name: "Decrypt", Unit: "sec/op"},
	}
	record.SortBenchmarks(bs)
	var got []string
	for _, b := range bs {
		got = append(got, b.Name+" "+b.Unit)
	}
	want := []string{"Decrypt sec/op", "Decrypt B/op", "Decrypt custom/op", "Encrypt sec/op", "Encrypt B/s", "Encrypt allocs/op"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sortBenchmarks (-want +got):\n%s", diff)
	}
}

// TestDecideConfigErrorIsUsage: a configuration problem found while running (a -pkg that exists on
// neither side) exits 2 like any other usage error, not 3.
func TestDecideConfigErrorIsUsage(t *testing.T) {
	cfg := config.Default()
	err := fmt.Errorf("inspecting: %w", &config.Error{Key: "package", Value: "./nope", Want: "a package"})
	v := stopped(gate.Decide(record.Result{Incomplete: true}, cfg.Policy()), err)
	if v.Status != record.StatusError || v.ExitCode != record.ExitUsage {
		t.Errorf("verdict %q exit %d, want error exit %d", v.Status, v.ExitCode, record.ExitUsage)
	}
	if want := []string{err.Error()}; !cmp.Equal(v.Reasons, want) {
		t.Errorf("reasons %q, want %q", v.Reasons, want)
	}
	for err, want := range map[error]int{nil: record.ExitPass, errors.New("git"): record.ExitCannotRun, err: record.ExitUsage} {
		if got := config.ExitCode(err); got != want {
			t.Errorf("ExitCode(%v) = %d, want %d", err, got, want)
		}
	}
}

// cloneResult is a deep copy of r, through JSON.
func cloneResult(t *testing.T, r *record.Result) *record.Result {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var c record.Result
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// stopped is v for a comparison that err stopped, as the pipeline makes it.
func stopped(v record.Verdict, err error) record.Verdict {
	return gate.Stopped(v, config.ExitCode(err), err)
}
