package main

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/tools/corpus"
)

// cpuConfig says how the CPU-time truth runs.
type cpuConfig struct {
	rounds int           // A–B–B–A rounds per benchmark
	target time.Duration // the wall time one calibration suggests a run should take
	cpu    int           // the CPU both sides are pinned to (taskset)
}

// measureCPU measures the pair's truth by the CPU time (user + system, from the kernel's rusage) of
// each benchmark process rather than wall time: a process waiting for the CPU on a loaded machine
// accrues none, so load inflates it far less. Each round runs base N, head N, head N, base N
// iterations and, to take the process's start-up out, base and head once with 1 iteration; per
// operation, (cpu(N) − cpu(1)) / (N − 1).
func measureCPU(ctx context.Context, p *corpus.Pair, repo *corpus.Repo, dir string, cfg cpuConfig) (
	*corpus.Truth, error) {
	return measurePinned(ctx, p, repo, dir, cfg, func(bins [2]string, name string, iters int) (float64, error) {
		return cpuRound(ctx, bins, name, iters, cfg.cpu)
	})
}

// measurePinned builds the pair's test binary on both sides, finds its benchmarks (calibrate, for
// cfg.target each), and measures each by cfg.rounds rounds of round, which returns one round's log
// ratio of head to base given the binaries, the benchmark and its calibrated iterations. A
// benchmark's truth is the median of its rounds with the sign test's 95% interval.
func measurePinned(ctx context.Context, p *corpus.Pair, repo *corpus.Repo, dir string, cfg cpuConfig,
	round func(bins [2]string, name string, iters int) (float64, error)) (*corpus.Truth, error) {
	bins := [2]string{filepath.Join(dir, "base.test"), filepath.Join(dir, "head.test")}
	for i, commit := range []string{repo.Base, repo.Head} {
		if err := buildTest(ctx, p, repo.Dir, commit, filepath.Join(dir, fmt.Sprint("wt", i)), bins[i]); err != nil {
			return nil, err
		}
	}
	names, iters, err := calibrate(ctx, bins[0], benchFlag(p.Flags), cfg)
	if err != nil {
		return nil, fmt.Errorf("pair %s: %w", p.Name, err)
	}
	before := corpus.LoadAvg()
	t := &corpus.Truth{Measured: time.Now().UTC().Format(time.RFC3339)}
	for i, name := range names {
		var logs []float64
		for range cfg.rounds {
			d, err := round(bins, name, iters[i])
			if err != nil {
				return nil, fmt.Errorf("pair %s: %s: %w", p.Name, name, err)
			}
			logs = append(logs, d)
		}
		med, lo, hi := corpus.MedianInterval(logs, 0.95)
		pct := func(d float64) float64 { return math.Expm1(d) * 100 }
		t.Benches = append(t.Benches, corpus.TruthBench{Name: name, Pct: pct(med), Lo: pct(lo), Hi: pct(hi),
			NoisePct: 100 * madSigma(logs), Rounds: len(logs)})
	}
	t.Load = before + " before, " + corpus.LoadAvg() + " after"
	t.Machine = machine()
	t.Notes = cpuNotes(t.Benches)
	return t, nil
}

// buildTest checks commit out into wt and compiles the pair's package test binary into out.
func buildTest(ctx context.Context, p *corpus.Pair, repoDir, commit, wt, out string) error {
	if _, _, err := proc.Run(proc.Command(ctx, repoDir, nil, "git", "worktree", "add", "-q", "--detach", wt,
		commit)); err != nil {
		return err
	}
	args := []string{"go", "test", "-c", "-o", out}
	if tags := tagsFlag(p.Flags); tags != "" {
		args = append(args, "-tags", tags)
	}
	_, _, err := proc.Run(proc.Command(ctx, wt, nil, append(args, p.Pkg)...))
	return err
}

func flagValue(flags []string, name string) string {
	for i, f := range flags {
		if f == name && i+1 < len(flags) {
			return flags[i+1]
		}
	}
	return ""
}

func tagsFlag(flags []string) string { return flagValue(flags, "-tags") }

// benchFlag is the pair's perfgate -bench expression ("." when it has none), which matches full
// names without the "Benchmark" prefix ("Sum64/4B").
func benchFlag(flags []string) string {
	if b := flagValue(flags, "-bench"); b != "" {
		return b
	}
	return "."
}

// goTestPattern turns perfgate's -bench expression into one for go test, which matches each level
// of the name separately and the top level with its "Benchmark" prefix. It handles the anchored
// forms the corpus uses ("^Sum64/", "^(A|B)$"); calibrate then filters the names it finds by the
// original expression.
func goTestPattern(bench string) string {
	if rest, ok := strings.CutPrefix(bench, "^"); ok {
		return "^Benchmark" + rest
	}
	return bench
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+(\d+)\s+([0-9.]+) ns/op`)

// calibrate runs every benchmark matching bench once for cfg.target and returns their names and an
// iteration count each that takes about that long.
func calibrate(ctx context.Context, bin, pattern string, cfg cpuConfig) ([]string, []int, error) {
	// perfgate's own -bench semantics: one expression per '/'-separated level of the name
	re, err := bench.NewMatcher(pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("-bench: %w", err)
	}
	out, err := runBench(ctx, bin, goTestPattern(pattern), cfg.target.String(), cfg.cpu)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var iters []int
	for _, line := range strings.Split(string(out), "\n") {
		m := benchLine.FindStringSubmatch(line)
		if m == nil || !re.Match(m[1]) {
			continue
		}
		ns, _ := strconv.ParseFloat(m[3], 64)
		names = append(names, m[1])
		iters = append(iters, max(10, int(float64(cfg.target.Nanoseconds())/max(ns, 1))))
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("no benchmark matches %q:\n%s", pattern, proc.Tail(out, 10))
	}
	return names, iters, nil
}

// exactName is a go test -bench pattern that matches exactly the benchmark name ("Sum64/4B").
func exactName(name string) string {
	parts := strings.Split("Benchmark"+name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// cpuRound returns one round's log ratio of head's CPU time per operation to base's.
func cpuRound(ctx context.Context, bins [2]string, name string, n, cpu int) (float64, error) {
	var perOp [2]float64
	var runs [2][]time.Duration
	for _, side := range []int{0, 1, 1, 0} {
		c, err := cpuOf(ctx, bins[side], exactName(name), fmt.Sprintf("%dx", n), cpu)
		if err != nil {
			return 0, err
		}
		runs[side] = append(runs[side], c)
	}
	for side := range 2 {
		one, err := cpuOf(ctx, bins[side], exactName(name), "1x", cpu)
		if err != nil {
			return 0, err
		}
		perOp[side] = (float64(runs[side][0]+runs[side][1])/2 - float64(one)) / float64(n-1)
		if perOp[side] <= 0 {
			return 0, fmt.Errorf("%d iterations took no more CPU time than 1; raise -target", n)
		}
	}
	return math.Log(perOp[1] / perOp[0]), nil
}

func runBench(ctx context.Context, bin, pattern, benchtime string, cpu int) ([]byte, error) {
	out, _, err := proc.Run(benchCmd(ctx, bin, pattern, benchtime, cpu))
	return out, err
}

func benchCmd(ctx context.Context, bin, pattern, benchtime string, cpu int) *exec.Cmd {
	return proc.Command(ctx, filepath.Dir(bin), []string{"GOMAXPROCS=1"}, "taskset", "-c", fmt.Sprint(cpu), bin,
		"-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.count", "1")
}

// cpuOf runs one benchmark process and returns its user + system CPU time.
func cpuOf(ctx context.Context, bin, pattern, benchtime string, cpu int) (time.Duration, error) {
	cmd := benchCmd(ctx, bin, pattern, benchtime, cpu)
	if _, _, err := proc.Run(cmd); err != nil {
		return 0, err
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// madSigma is the median absolute deviation of xs from their median, scaled to a normal's standard
// deviation.
func madSigma(xs []float64) float64 {
	med, _, _ := corpus.MedianInterval(xs, 0.5)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - med)
	}
	mad, _, _ := corpus.MedianInterval(dev, 0.5)
	return 1.4826 * mad
}
