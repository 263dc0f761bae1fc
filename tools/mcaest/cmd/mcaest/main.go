// Command mcaest prints the pipeline-aware cycle estimate of package mcaest for one benchmark of a
// test binary, or compares it on base and head of corpus pairs with their truth:
//
//	mcaest -bin ./pkg.test -bench Sum [-n 1000] [-mcpu znver3] [-blocks 5]
//	mcaest -pair inline-div,inline-mul [-bench Sum]
//
// A pair's table row gives the truth's direction and change, and the change of instructions/op and
// of est-mca cycles/op from base to head, with the seconds each side's estimate took. Run it in the
// tools module: cd tools && go run ./mcaest/cmd/mcaest -pair inline-div.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/tools/corpus"
	"github.com/perfgate/perfgate/tools/mcaest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcaest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg mcaest.Config
	fs.StringVar(&cfg.Binary, "bin", "", "the Go test binary")
	fs.StringVar(&cfg.Bench, "bench", "", "the leaf benchmark, e.g. Sum or Encrypt/des (with -pair: only this one)")
	fs.IntVar(&cfg.N, "n", 0, "iterations (0: probe for the target)")
	fs.StringVar(&cfg.CPU, "mcpu", mcaest.DefaultCPU, "llvm-mca's CPU model")
	fs.Float64Var(&cfg.Share, "share", mcaest.DefaultShare, "the share of instructions whose blocks are analyzed")
	fs.BoolVar(&cfg.Merge, "merge", false, "analyze a function's equally often executed blocks as one sequence")
	pairs := fs.String("pair", "", "comma-separated corpus pairs to compare base and head of")
	top := fs.Int("blocks", 5, "how many of the costliest blocks to list")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	switch {
	case *pairs != "":
		err = comparePairs(ctx, strings.Split(*pairs, ","), cfg, stdout, stderr)
	case cfg.Binary != "" && cfg.Bench != "":
		var res *mcaest.Result
		if res, err = mcaest.Estimate(ctx, cfg); err == nil {
			printResult(stdout, cfg.Bench, res, *top)
		}
	default:
		fmt.Fprintln(stderr, "mcaest: error: give -bin and -bench, or -pair")
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcaest: error: %s\n", strings.TrimPrefix(err.Error(), "mcaest: "))
		return 1
	}
	return 0
}

func printResult(w io.Writer, name string, r *mcaest.Result, top int) {
	fmt.Fprintf(w, "%s: N=%d instructions/op %.1f est-mca-cycles/op %.1f (IPC %.2f); %d blocks, %d analyzed; "+
		"noise %.2f instr/op, unmodelled %.2f instr/op, runtime %.1f instr/op left out\n", name, r.N,
		r.Instructions, r.Cycles, r.Instructions/r.Cycles, r.Blocks, len(r.Hot), r.Noise, r.Rejected, r.Runtime)
	for _, b := range r.Hot[:min(top, len(r.Hot))] {
		fmt.Fprintf(w, "  %#x %s: %d insns × %.2f/op × %.2f cycles = %.1f cycles/op\n", b.Start, b.Func, b.Insns,
			b.PerOp, b.PerIter, b.PerOp*b.PerIter)
	}
	for _, b := range r.Hot {
		if b.Rejected > 0 {
			fmt.Fprintf(w, "  unmodelled: %d of %#x %s: %s\n", b.Rejected, b.Start, b.Func, strings.Join(b.Code, "; "))
		}
	}
}

// comparePairs estimates every benchmark of each named pair's truth (or only cfg.Bench) on base and
// head and prints a table row per benchmark.
func comparePairs(ctx context.Context, names []string, cfg mcaest.Config, stdout, stderr io.Writer) error {
	all, err := corpus.Load()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mca-pairs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(stdout, "| pair | benchmark | truth | instructions/op | right? | est-mca | right? | s base, head |"+
		" load |")
	fmt.Fprintln(stdout, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	var failed []string
	for _, name := range names {
		i := slices.IndexFunc(all, func(p *corpus.Pair) bool { return p.Name == name })
		if i < 0 || all[i].Truth == nil {
			return fmt.Errorf("no corpus pair %q with a truth", name)
		}
		if err := comparePair(ctx, all[i], cfg, filepath.Join(dir, name), stdout, stderr); err != nil {
			if ctx.Err() != nil {
				return err
			}
			failed = append(failed, name)
			fmt.Fprintf(stderr, "mcaest: error: pair %s: %v\n", name, err)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d pairs failed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

func comparePair(ctx context.Context, p *corpus.Pair, cfg mcaest.Config, dir string, stdout, stderr io.Writer) error {
	repo, err := p.Materialize(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		return err
	}
	bins := map[string]string{}
	for side, commit := range map[string]string{"base": repo.Base, "head": repo.Head} {
		if bins[side], err = buildSide(ctx, repo.Dir, side, commit, p, dir); err != nil {
			return err
		}
	}
	for _, tb := range p.Truth.Benches {
		if cfg.Bench != "" && tb.Name != cfg.Bench {
			continue
		}
		var res [2]*mcaest.Result
		var secs [2]float64
		for i, side := range []string{"base", "head"} {
			c := cfg
			c.Binary, c.Bench = bins[side], tb.Name
			start := time.Now()
			if res[i], err = mcaest.Estimate(ctx, c); err != nil {
				return err
			}
			secs[i] = time.Since(start).Seconds()
			printResult(stderr, p.Name+" "+side+" "+tb.Name, res[i], 3)
		}
		di := pct(res[0].Instructions, res[1].Instructions)
		dm := pct(res[0].Cycles, res[1].Cycles)
		fmt.Fprintf(stdout, "| %s | %s | %s %+.1f%% | %+.2f%% | %s | %+.2f%% | %s | %.0f, %.0f | %s |\n", p.Name,
			tb.Name, tb.Direction(), tb.Pct, di, right(tb, di), dm, right(tb, dm), secs[0], secs[1], corpus.LoadAvg())
	}
	return nil
}

func pct(base, head float64) float64 { return 100 * (head/base - 1) }

// right says whether an estimated change of est percent agrees with the truth's direction: beyond
// ±2% the same way for a change, within ±2% for an unchanged benchmark.
func right(tb corpus.TruthBench, est float64) string {
	const threshold = 2
	switch tb.Direction() {
	case corpus.Slower:
		return yes(est > threshold)
	case corpus.Faster:
		return yes(est < -threshold)
	}
	return yes(est > -max(threshold, tb.Within()) && est < max(threshold, tb.Within()))
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// buildSide checks out the pair's commit of side into a work tree of its own and builds the test
// binary of the pair's package, with the build tags its flags name.
func buildSide(ctx context.Context, repo, side, commit string, p *corpus.Pair, dir string) (string, error) {
	tree := filepath.Join(dir, side)
	argv := []string{"git", "worktree", "add", "-q", "--detach", tree, commit}
	if _, _, err := proc.Run(proc.Command(ctx, repo, nil, argv...)); err != nil {
		return "", fmt.Errorf("checking out %s: %w", side, err)
	}
	bin := filepath.Join(dir, side+".test")
	argv = []string{"go", "test", "-c", "-o", bin}
	if i := slices.Index(p.Flags, "-tags"); i >= 0 && i+1 < len(p.Flags) {
		argv = append(argv, "-tags", p.Flags[i+1])
	}
	if _, _, err := proc.Run(proc.Command(ctx, tree, nil, append(argv, p.Pkg)...)); err != nil {
		return "", fmt.Errorf("building %s: %w", side, err)
	}
	if _, err := os.Stat(bin); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("building %s: go test -c wrote no binary (does %s have tests?)", side, p.Pkg)
	}
	return bin, nil
}
