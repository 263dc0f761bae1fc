package benchrun

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestRunInstructionsBudget counts, within a 60 s share, a benchmark that allocates 64 MiB an op (a
// few hundred counted instructions: the work is the runtime's) beside a fast one. It once ran at
// the fast one's N, 3054 iterations, for 13 minutes past a 100 s budget. The lane must cost it by
// its native time, so that it runs in a group of its own at far fewer iterations than the fast one,
// or is not counted for the budget; never a failure. It asserts on the plan, not on how long
// anything took.
func TestRunInstructionsBudget(t *testing.T) {
	needValgrind(t) // counts a 64 MiB allocation under valgrind: the long set
	dir := t.TempDir()
	testmod.Write(t, dir, map[string]string{
		"go.mod": "module example.com/big\n\ngo 1.24\n",
		"big_test.go": `package big

import "testing"

var sink []byte
var n int

func BenchmarkBig(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = make([]byte, 64<<20)
	}
}

func BenchmarkFast(b *testing.B) {
	for i := 0; i < b.N; i++ {
		n += i * i
	}
}
`})
	cfg := gobuild.Config{Dir: dir, Pkg: ".", Out: filepath.Join(dir, "big.test")}
	if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	run, err := RunInstructions(t.Context(), RunConfig{Base: bin, Head: bin, CPU: -1, Budget: 60 * time.Second},
		InstrConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("iterations %v, uncounted %+v, took %s", run.Iters, run.Uncounted, run.Elapsed)
	if len(run.Failures) > 0 {
		t.Errorf("failures %+v, want none", run.Failures)
	}
	if nc, ok := run.Uncounted["Big"]; ok {
		if nc.Why != record.UncountedBudget {
			t.Errorf("Big uncounted %+v, want for the budget", nc)
		}
	} else if run.Iters["Big"] == 0 || run.Iters["Big"]*10 > run.Iters["Fast"] {
		t.Errorf("iterations %v: want Big counted at a tenth of Fast's N or fewer", run.Iters)
	}
	if len(perOp(run, "Fast", record.Head)) != 2 {
		t.Errorf("Fast: %v on head, want 2 counts", perOp(run, "Fast", record.Head))
	}
}
