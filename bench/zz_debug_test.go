package bench

import (
	"os"
	"path/filepath"
	"testing"
)

func TestZZLane(t *testing.T) {
	dir := os.Getenv("ZZDIR")
	cfg := BuildConfig{Dir: dir, Pkg: ".", Out: filepath.Join(t.TempDir(), "x.test")}
	if _, err := Build(t.Context(), Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	run, err := RunInstructions(t.Context(), RunConfig{Base: bin, Head: bin, CPU: -1, Rounds: 2}, InstrConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("failures %+v", run.Failures)
	for _, name := range run.Leaves {
		t.Logf("%s N=%d %v %v", name, run.Iters[name], perOp(run, name, Base), perOp(run, name, Head))
	}
}
