package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/tools/corpus"
)

// gotestConfig says how the go-test truth runs.
type gotestConfig struct {
	rounds    int    // A–B–B–A rounds per benchmark
	benchtime string // go test's -benchtime: "1s", its default
	cpu       int    // the CPU both sides are pinned to (taskset)
}

// measureGoTest measures the pair's truth by go test's own protocol, interleaved: each round runs
// the benchmark as go test -bench would (one process, -benchtime 1s by default, testing picking b.N
// and reporting the last call's ns/op, after its ramp-up), base, head, head, base, pinned to one
// CPU with GOMAXPROCS=1; a round's ratio is the mean of head's two ns/op over the mean of base's.
// This is the steady state a user's go test -bench measures, set-up before the loop amortized over
// go test's b.N, the regime perfgate's runs have to agree with.
func measureGoTest(ctx context.Context, p *corpus.Pair, repo *corpus.Repo, dir string, cfg gotestConfig) (
	*corpus.Truth, error) {
	// calibrate only lists the benchmarks here: testing picks b.N itself.
	list := cpuConfig{rounds: cfg.rounds, target: 10 * time.Millisecond, cpu: cfg.cpu}
	return measurePinned(ctx, p, repo, dir, list, func(bins [2]string, name string, _ int) (float64, error) {
		var sum [2]float64
		for _, side := range []int{0, 1, 1, 0} {
			ns, err := goTestNs(ctx, bins[side], name, cfg)
			if err != nil {
				return 0, err
			}
			sum[side] += ns
		}
		return math.Log(sum[1] / sum[0]), nil
	})
}

// goTestNs runs one benchmark as go test -bench does and returns the ns/op it reports.
func goTestNs(ctx context.Context, bin, name string, cfg gotestConfig) (float64, error) {
	cmd := proc.Command(ctx, filepath.Dir(bin), []string{"GOMAXPROCS=1"}, "taskset", "-c", fmt.Sprint(cfg.cpu), bin,
		"-test.run", "^$", "-test.bench", exactName(name), "-test.benchtime", cfg.benchtime, "-test.count", "1",
		"-test.cpu", "1", "-test.benchmem")
	out, _, err := proc.Run(cmd)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if m := benchLine.FindStringSubmatch(line); m != nil && m[1] == name {
			return strconv.ParseFloat(m[3], 64)
		}
	}
	return 0, fmt.Errorf("no result line for %s:\n%s", name, proc.Tail(out, 10))
}
