package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// protocolLevel is how perfgate's per-process protocol measures a benchmark's level against go
// test's, on one binary, interleaved so that the host's drift cancels.
type protocolLevel struct {
	rounds    int
	pct       float64 // mean of the rounds' log ratios perfgate/go test, as percent
	half      float64 // its 95% t-interval's half-width, in percent (of the log ratio's exp)
	whole     bool    // perfgate ran the benchmark as one call a run (its steady-state lengthening)
	iters     int     // perfgate's iterations a sub-run
	perfgate  float64 // ns/op, median of perfgate's protocol
	gotestMed float64 // ns/op, median of go test's
}

// compareProtocols runs, for each benchmark perfgate timed in result, rounds of P G G P on base's
// binary bin: P a process run as perfgate runs its timed ones (bench.txt's iterations a sub-run,
// one discarded warm-up sub-run, then benchtxt.SubRuns sub-runs whose fastest is the sample, or one
// whole call when perfgate lengthened the benchmark's runs), G a process run as go test -bench runs
// (gt's benchtime, testing's own b.N). Both pinned to gt.cpu, GOMAXPROCS=1, -test.cpu 1. A level
// that differs here is the protocol's doing; one that differs only between a perfgate run and the
// truth taken around it is the host's.
func compareProtocols(ctx context.Context, bin string, result *record.Result, benchTxt string, gt gotestConfig,
	rounds int) (map[string]protocolLevel, error) {
	iters, err := subRunIters(benchTxt)
	if err != nil {
		return nil, err
	}
	out := map[string]protocolLevel{}
	for _, b := range result.Benchmarks {
		if b.Unit != "sec/op" || b.Paired == nil || b.SameCode || iters[b.Name] == 0 {
			continue
		}
		whole := false
		for _, n := range result.Notes {
			if strings.Contains(n, b.Name+" allocates, and its time per op") && strings.Contains(n, "each one call") {
				whole = true
			}
		}
		var logs, pg, gs []float64
		for range rounds {
			var sum [2]float64
			for _, g := range []int{0, 1, 1, 0} {
				var ns float64
				var err error
				if g == 0 {
					ns, err = perfgateNs(ctx, bin, b.Name, iters[b.Name], whole, gt.cpu)
					pg = append(pg, ns)
				} else {
					ns, err = goTestNs(ctx, bin, b.Name, gt)
					gs = append(gs, ns)
				}
				if err != nil {
					return nil, fmt.Errorf("%s: %w", b.Name, err)
				}
				sum[g] += ns
			}
			logs = append(logs, math.Log(sum[0]/sum[1]))
		}
		mean, half := tInterval(logs)
		out[b.Name] = protocolLevel{rounds: rounds, pct: pctOf(math.Exp(mean)), half: 100 * (math.Exp(half) - 1),
			whole: whole, iters: iters[b.Name], perfgate: bench.Median(pg), gotestMed: bench.Median(gs)}
	}
	return out, nil
}

// perfgateNs runs one process of name as perfgate runs a timed one and returns its sample's ns/op.
func perfgateNs(ctx context.Context, bin, name string, iters int, whole bool, cpu int) (float64, error) {
	runs := benchtxt.SubRuns
	if whole {
		runs = 1
	}
	cmd := proc.Command(ctx, filepath.Dir(bin), []string{"GOMAXPROCS=1"}, "taskset", "-c", fmt.Sprint(cpu), bin,
		"-test.run", "^$", "-test.bench", exactName(name), "-test.benchtime", fmt.Sprintf("%dx", iters),
		"-test.count", fmt.Sprint(runs+1), "-test.cpu", "1", "-test.benchmem")
	stdout, _, err := proc.Run(cmd)
	if err != nil {
		return 0, err
	}
	var ns []float64
	for _, line := range strings.Split(string(stdout), "\n") {
		if m := benchLine.FindStringSubmatch(line); m != nil && m[1] == name {
			v, _ := strconv.ParseFloat(m[3], 64)
			ns = append(ns, v)
		}
	}
	if len(ns) < 2 {
		return 0, fmt.Errorf("%d result lines for %s, want %d:\n%s", len(ns), name, runs+1, proc.Tail(stdout, 10))
	}
	best := math.Inf(1)
	for _, v := range ns[1:] { // the first is the warm-up
		best = min(best, v)
	}
	return best, nil
}

// subRunIters reads the iterations of each benchmark's timed samples (ns/op lines) in bench.txt.
func subRunIters(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 || !strings.HasPrefix(fs[0], "Benchmark") || fs[3] != "ns/op" {
			continue
		}
		if n, err := strconv.Atoi(fs[1]); err == nil {
			out[strings.TrimPrefix(fs[0], "Benchmark")] = n
		}
	}
	return out, sc.Err()
}
