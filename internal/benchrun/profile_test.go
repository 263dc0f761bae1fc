package benchrun

import (
	"bytes"
	"context"
	"testing"

	"github.com/perfgate/perfgate/internal/attribution"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/record"
)

// TestProfile profiles a leaf on both sides inside the sandbox (ModeAuto: as confined as this
// kernel allows): each side's profile parses as go tool pprof reads it, names the benchmark's work
// function, and covers the iterations asked for.
func TestProfile(t *testing.T) {
	base, head := fixtures(t)
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeAuto, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := RunConfig{Base: base, Head: head, Sandbox: sb, NoPin: true}
	got, err := Profile(context.Background(), cfg, "Fast", 5000000, 50e-9)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []record.Side{record.Base, record.Head} {
		run := got[side]
		if run.Iters != 5000000 {
			t.Errorf("%s: %d iterations, want 5000000", side, run.Iters)
		}
		p, err := attribution.ReadProfile(bytes.NewReader(run.Profile))
		if err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		found := false
		for _, f := range p.Function {
			found = found || f.Name == "example.com/fix.work" || f.Name == "example.com/fix.BenchmarkFast"
		}
		if !found {
			t.Errorf("%s: the profile names neither work nor BenchmarkFast", side)
		}
	}
	if _, err := Profile(context.Background(), cfg, "NoSuch", 10, 1e-9); err == nil {
		t.Error("profiling a benchmark that does not exist: no error")
	}
}
