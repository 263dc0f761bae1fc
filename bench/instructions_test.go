package bench

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// needValgrind skips slow lane tests under -short, and fails them when valgrind is missing: CI installs it.
func needValgrind(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs benchmarks under valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Fatalf("valgrind is needed for this test: %v (install it with %s)", err, ValgrindInstall)
	}
}

// buildDemo builds the test binaries of the named demo commits ("base#2" is a second export of base).
func buildDemo(t *testing.T, names ...string) map[string]Binary {
	t.Helper()
	trees := demoTrees(t, names...)
	cache := filepath.Join(t.TempDir(), "gocache")
	bins := map[string]Binary{}
	for _, name := range names {
		cfg := demoConfig(t, trees[name], strings.ReplaceAll(name, "#", "-")+".test")
		cfg.Cache = cache
		if _, err := Build(t.Context(), Base, cfg); err != nil {
			t.Fatal(err)
		}
		info, err := Inspect(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		bins[name] = Binary{Path: cfg.Out, Dir: info.Dir, Commit: name}
	}
	return bins
}

// perOp returns the instructions/op samples of leaf name on side, in schedule order.
func perOp(run *Run, name string, side Side) []float64 {
	var out []float64
	for _, s := range run.Samples {
		if v, ok := s.Get(UnitInstructions); ok && s.Name == name && s.Side == side {
			out = append(out, v)
		}
	}
	return out
}

func TestRunInstructionsDemo(t *testing.T) {
	needValgrind(t)
	bins := buildDemo(t, "base", "base#2", "folded")
	filter := regexp.MustCompile(`^(Encrypt/des|KeySetup/des)$`)
	leaves := []string{"Encrypt/des", "KeySetup/des"}

	var txt bytes.Buffer
	run, err := RunInstructions(t.Context(), RunConfig{Base: bins["base"], Head: bins["folded"], Filter: filter,
		CPU: -1, BenchTxt: &txt}, InstrConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Failures) > 0 {
		t.Fatalf("failures: %+v", run.Failures)
	}
	if !slices.Equal(run.Leaves, leaves) {
		t.Fatalf("leaves %q, want %q", run.Leaves, leaves)
	}
	for _, name := range leaves {
		base, head := perOp(run, name, Base), perOp(run, name, Head)
		t.Logf("%s: N=%d base %v head %v", name, run.Iters[name], base, head)
		if len(base) != 2 || len(head) != 2 {
			t.Fatalf("%s: %d base and %d head samples, want 2 each (one round)", name, len(base), len(head))
		}
		// The A–A and B–B pairs run one binary: they agree within the tolerance.
		for _, pair := range [][]float64{base, head} {
			if s := relSpread(pair[0], pair[1]); s > RepeatTolerance {
				t.Errorf("%s: one binary counted %v (%.5f%% apart)", name, pair, 100*s)
			}
		}
	}
	// Folding P into the S-boxes removes a 32-step permutation from every round: encryption runs fewer
	// instructions. Key setup is the same code on both sides.
	if b, h := perOp(run, "Encrypt/des", Base), perOp(run, "Encrypt/des", Head); !(h[0] < 0.8*b[0]) {
		t.Errorf("Encrypt/des: folded %v instructions/op, base %v: want folded at least 20%% fewer", h, b)
	}
	if b, h := perOp(run, "KeySetup/des", Base), perOp(run, "KeySetup/des", Head); relSpread(b[0], h[0]) > RepeatTolerance {
		t.Errorf("KeySetup/des: folded %v instructions/op, base %v: want the same", h, b)
	}

	// bench.txt holds the counts in a unit stock benchstat reads.
	samples, err := ReadBenchTxt(bytes.NewReader(txt.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 8 || !strings.Contains(txt.String(), " instructions/op") {
		t.Errorf("bench.txt has %d samples, want 8 in instructions/op:\n%s", len(samples), txt.String())
	}
}

func TestFindValgrindMissing(t *testing.T) {
	_, err := FindValgrind(context.Background(), filepath.Join(t.TempDir(), "valgrind"))
	if !errors.Is(err, ErrNoValgrind) || !strings.Contains(err.Error(), ValgrindInstall) {
		t.Errorf("error %v: want ErrNoValgrind naming %q", err, ValgrindInstall)
	}
	_, err = RunInstructions(context.Background(), RunConfig{Base: Binary{Path: "a"}, Head: Binary{Path: "b"}},
		InstrConfig{Valgrind: filepath.Join(t.TempDir(), "valgrind")})
	if !errors.Is(err, ErrNoValgrind) {
		t.Errorf("RunInstructions without valgrind: %v, want ErrNoValgrind", err)
	}
}

func TestFindValgrind(t *testing.T) {
	needValgrind(t)
	vg, err := FindValgrind(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^valgrind-\d+\.\d+`).MatchString(vg.Version) || !filepath.IsAbs(vg.Path) {
		t.Errorf("FindValgrind = %+v", vg)
	}
}
