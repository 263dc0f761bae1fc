package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// cancelOn is a log writer that cancels a context the first time the log contains marker, as Ctrl-C
// would in the middle of that phase.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
	fired  bool
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.fired && strings.Contains(w.buf.String(), w.marker) {
		w.fired = true
		w.cancel()
	}
	return len(p), nil
}

func (w *cancelOn) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestCompareCancelled interrupts a comparison after the first A–B–B–A round, as Ctrl-C would:
// perfgate must stop, keep what it gathered in the results directory, mark it incomplete, exit 3
// and leave no temporary directory behind. It runs the command (run → perfgate.Run) in this
// process, cancelling its context from its log.
func TestCompareCancelled(t *testing.T) {
	testenv.Long(t) // runs a comparison
	// A temporary directory of this test's own, so that leftovers are this run's and no other
	// test's.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "results")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := &cancelOn{marker: "round 1/", cancel: cancel}
	var stdout bytes.Buffer

	code := run(ctx, []string{"compare", "-C", repo.Dir, "-pkg", demo.Package, "-metric", "time", "-rounds", "5", "-benchtime", "20ms",
		"-keys", "16", "-constant-time", "off", "-o", out, "base", "folded"}, &stdout, log)

	if !log.fired {
		t.Fatalf("the log never showed %q, so the run was not cancelled while timing\nlog:\n%s", log.marker, log)
	}
	if code != record.ExitCannotRun {
		t.Errorf("exit code %d, want %d (could not run)", code, record.ExitCannotRun)
	}
	logText := log.String()
	if strings.Contains(logText, "round 5/5") {
		t.Errorf("the run went on to the last round after cancellation\nlog:\n%s", logText)
	}
	for _, want := range []string{"perfgate: error: comparison interrupted: context canceled", "perfgate: hint: interrupted"} {
		if !strings.Contains(logText, want) {
			t.Errorf("stderr lacks %q\nlog:\n%s", want, logText)
		}
	}
	if strings.Contains(logText, "goroutine ") {
		t.Errorf("stderr shows a stack trace\nlog:\n%s", logText)
	}

	// What was gathered is on disk: result.json says incomplete, bench.txt holds the first round,
	// report.md exists.
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatalf("reading result.json after cancellation: %v", err)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("incomplete", res.Incomplete, true)
	check("verdict.status", res.Verdict.Status, record.StatusError)
	check("verdict.exit_code", res.Verdict.ExitCode, record.ExitCannotRun)
	check("head.commit", res.Head.Commit, repo.Commits["folded"])
	txt, err := os.ReadFile(filepath.Join(out, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(txt, []byte("perfgate-round: 0\n")) {
		t.Errorf("bench.txt has no sample of round 1:\n%s", txt)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Errorf("report.md: %v", err)
	}
	if !strings.Contains(stdout.String(), "ERROR") {
		t.Errorf("stdout does not report the error:\n%s", stdout.String())
	}

	// No work directory of this run is left in TMPDIR.
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "perfgate-") {
			t.Errorf("leftover temporary directory %s", filepath.Join(tmp, e.Name()))
		}
	}
}
