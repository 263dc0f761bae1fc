package pipeline

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestConstantTimeBesideTiming runs a comparison under metric auto whose timing outlasts its count
// (100 fixed rounds of 25 ms runs against the count's one round): the constant-time trace then runs
// on the count's CPU beside the timing, is recorded as a phase beside it, and finds what a trace
// before the tests finds (both sides traced, the toy cipher's key-indexed nothing: a clean check).
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
	log := &syncBuffer{}
	cfg.Log = log
	res, err := Run(t.Context(), cfg)
	if res == nil {
		t.Fatalf("Run returned no result: %v", err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("log of the comparison:\n%s", log)
		}
	}()
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
}
