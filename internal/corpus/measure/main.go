// Command measure measures the truth of the corpus's pairs: for each pair it runs perfgate compare with many
// A–B–B–A rounds and no time budget, times every benchmark even where the machine code is the same on both sides,
// and writes pairs/NAME.truth from the paired wall-time ratios.
//
//	go run ./internal/corpus/measure -run 'mix-.*' -rounds 30
//
// Run it on a machine as quiet as you can find, one pair at a time; the truth file records the load.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/corpus"
	"github.com/perfgate/perfgate/record"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sel := fs.String("run", "", "measure only the pairs whose names match this regular expression")
	rounds := fs.Int("rounds", 30, "A–B–B–A rounds")
	benchtime := fs.String("benchtime", "100ms", "target duration of one benchmark run")
	bin := fs.String("perfgate", "", "perfgate binary (default: build ./cmd/perfgate of the current directory)")
	dir := fs.String("dir", "internal/corpus/pairs", "where the truth files go")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := measure(ctx, *sel, *bin, *dir, []string{"-metric", "time", "-rounds", fmt.Sprint(*rounds),
		"-budget", "0", "-benchtime", *benchtime, "-time-same-code", "-differential=false"}, stderr); err != nil {
		fmt.Fprintf(stderr, "measure: error: %v\n", err)
		return 1
	}
	return 0
}

func measure(ctx context.Context, sel, bin, dir string, flags []string, stderr io.Writer) error {
	all, err := corpus.Load()
	if err != nil {
		return err
	}
	pairs, err := corpus.Select(all, sel)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "corpus-measure-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		if bin, err = corpus.BuildPerfgate(ctx, ".", tmp); err != nil {
			return err
		}
	}
	for _, p := range pairs {
		t, err := measureOne(ctx, bin, p, flags, filepath.Join(tmp, p.Name))
		if err != nil {
			return err
		}
		name := filepath.Join(dir, p.Name+".truth")
		if err := os.WriteFile(name, t.Format(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "measure: %s: wrote %s (load %s)\n", p.Name, name, t.Load)
	}
	return nil
}

func measureOne(ctx context.Context, bin string, p *corpus.Pair, flags []string, dir string) (*corpus.Truth, error) {
	repo, err := p.Materialize(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		return nil, err
	}
	before := corpus.LoadAvg()
	o, err := corpus.Compare(ctx, bin, p, repo, flags, filepath.Join(dir, "results"))
	if err != nil {
		return nil, err
	}
	if o.Result == nil {
		return nil, fmt.Errorf("pair %s: perfgate exited %d without a result:\n%s", p.Name, o.ExitCode, o.Stderr)
	}
	t := &corpus.Truth{
		Command:  strings.Join(append(append([]string{"perfgate compare -pkg", p.Pkg}, p.Flags...), flags...), " ") + " base head",
		Measured: time.Now().UTC().Format(time.RFC3339),
		Machine:  fmt.Sprintf("%s, %d CPUs, pinned to CPU %d", o.Result.Env.CPU, o.Result.Env.CPUs, o.Result.Env.PinnedCPU),
		Load:     before + " before, " + corpus.LoadAvg() + " after",
	}
	for _, b := range o.Result.Benchmarks {
		if b.Unit != "sec/op" {
			continue
		}
		if b.Paired == nil {
			return nil, fmt.Errorf("pair %s: benchmark %s has no paired estimate (class %s: %s)", p.Name, b.Name,
				b.Class, b.Note)
		}
		t.Benches = append(t.Benches, truthBench(b))
	}
	t.Notes = noiseNotes(t.Benches, o.Result.Benchmarks)
	return t, nil
}

func truthBench(b record.Benchmark) corpus.TruthBench {
	pct := func(r float64) float64 { return (r - 1) * 100 }
	return corpus.TruthBench{Name: b.Name, Pct: pct(b.Paired.Ratio), Lo: pct(b.Paired.Lo), Hi: pct(b.Paired.Hi),
		NoisePct: b.NoisePct, Rounds: b.Paired.Rounds}
}

// noiseNotes says, in words, how noisy the run was: the widest interval and the rounds left out as disturbed.
func noiseNotes(benches []corpus.TruthBench, rows []record.Benchmark) []string {
	var notes []string
	for _, b := range benches {
		if w := (b.Hi - b.Lo) / 2; w > 2 {
			notes = append(notes, fmt.Sprintf("%s: interval ±%.1f%% wide; its direction is known only beyond that", b.Name, w))
		}
	}
	for _, r := range rows {
		if r.Unit == "sec/op" && r.Paired != nil && r.Paired.Disturbed > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d rounds left out as disturbed", r.Name, r.Paired.Disturbed))
		}
	}
	return notes
}
