// Command measure measures the truth of the corpus's pairs: for each pair it runs perfgate compare
// with many A–B–B–A rounds and no time budget, times every benchmark even where the machine code is
// the same on both sides, and writes pairs/NAME.truth from the paired wall-time ratios.
//
//	cd tools && go run ./corpus/measure -run 'mix-.*' -rounds 30 [-- perfgate flags, e.g. -cpu 0]
//	cd tools && go run ./corpus/measure -clock gotest -run fastcache-get -rounds 20
//	cd tools && go run ./corpus/measure -coverage 3 -run 'alloc-sizeclass|mix-slower5' -o coverage.md
//
// With -coverage K it measures perfgate rather than the pairs: K perfgate runs a pair, at its
// defaults, each followed right away by a truth taken by go test's own protocol on the same
// machine, and a table of how many intervals contain the truth and how far perfgate's per-op
// levels are from go test's.
//
// Run it on a machine as quiet as you can find, one pair at a time; the truth file records the
// load.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/perfgate/perfgate/record"
	"github.com/perfgate/perfgate/tools/corpus"
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
	bin := fs.String("perfgate", "", "perfgate binary (default: build perfgate's cmd/perfgate)")
	dir := fs.String("dir", "corpus/pairs", "where the truth files go (run in the tools module)")
	clock := fs.String("clock", "wall", "cpu: each benchmark process's CPU time, pinned with taskset; "+
		"gotest: go test -bench's own protocol (its b.N, -benchtime 1s), interleaved, pinned with taskset; "+
		"wall: perfgate compare's wall time (the flags after -- go to perfgate)")
	cpu := fs.Int("cpu", 1, "with -clock cpu, the CPU to pin to")
	target := fs.Duration("target", 50*time.Millisecond, "with -clock cpu, the wall time of one calibration run")
	coverage := fs.Int("coverage", 0, "coverage: run perfgate (at its defaults, or the flags after --) this many "+
		"times per pair, each bracketed by a truth by go test's protocol (-rounds rounds, default 8, half before "+
		"and half after, at -benchtime, default 100ms), and print how many intervals contain the truth")
	threshold := fs.Float64("threshold", 2, "with -coverage, the gate's threshold in percent (a FAIL where the "+
		"truth is below half of it is a false FAIL)")
	out := fs.String("o", "", "with -coverage, write the Markdown table to this file as well (after every pair)")
	keep := fs.Bool("keep", false, "with -coverage, keep the scratch directory (perfgate's results, bench.txt, the "+
		"pairs' repositories) and print where it is")
	maxRounds := fs.Int("max-rounds", 48, "with -coverage, the most rounds a truth takes to be precise enough to judge "+
		"perfgate's interval by (half its width)")
	levels := fs.Int("levels", 0, "with -coverage, after each perfgate run, this many rounds of perfgate's process "+
		"protocol against go test's on base's binary, interleaved: the level either protocol measures, the host's "+
		"drift cancelled")
	truth := fs.Bool("truth", false, "with -coverage, write each pair's truth file into -dir from all of its go test "+
		"rounds (the truth retaken by go test's protocol) and list the benchmarks whose direction changed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *coverage <= 0 {
		for _, name := range []string{"o", "keep", "max-rounds", "levels", "truth", "threshold"} {
			if isSet(fs, name) {
				fmt.Fprintf(stderr, "measure: -%s works with -coverage only (for example: -coverage 1 -%s …)\n", name, name)
				return 2
			}
		}
	}
	if *coverage > 0 {
		cfg := coverageConfig{runs: *coverage, rounds: 8, benchtime: "100ms", cpu: *cpu, threshold: *threshold,
			flags: fs.Args(), out: *out, keep: *keep, maxRounds: *maxRounds,
			levelRounds: *levels}
		if *truth {
			cfg.truthDir = *dir
		}
		if isSet(fs, "rounds") {
			cfg.rounds = *rounds
		}
		if isSet(fs, "benchtime") {
			cfg.benchtime = *benchtime
		}
		if err := coverageAll(ctx, *sel, *bin, cfg, stderr); err != nil {
			fmt.Fprintf(stderr, "measure: error: %v\n", err)
			return 1
		}
		return 0
	}
	// pinned measures every selected pair with fn, a clock of this command's own (not perfgate's),
	// and names the command in each truth file.
	pinned := func(command string, fn func(*corpus.Pair, *corpus.Repo, string) (*corpus.Truth, error)) int {
		if err := measureAll(ctx, *sel, *bin, *dir, stderr, func(p *corpus.Pair, repo *corpus.Repo, work, _ string) (
			*corpus.Truth, error) {
			t, err := fn(p, repo, work)
			if err == nil {
				t.Command = command + "; " + benchText(p.Flags) + ")"
			}
			return t, err
		}); err != nil {
			fmt.Fprintf(stderr, "measure: error: %v\n", err)
			return 1
		}
		return 0
	}
	switch *clock {
	case "gotest":
		bt := *benchtime
		if !isSet(fs, "benchtime") {
			bt = "1s"
		}
		cfg := gotestConfig{rounds: *rounds, benchtime: bt, cpu: *cpu}
		return pinned(fmt.Sprintf("go run ./corpus/measure -clock gotest -rounds %d -benchtime %s -cpu %d (go test's "+
			"protocol: -test.benchtime %s, testing's own b.N, -test.cpu 1, GOMAXPROCS=1, taskset -c %d; base, head, "+
			"head, base per round", *rounds, bt, *cpu, bt, *cpu),
			func(p *corpus.Pair, repo *corpus.Repo, work string) (*corpus.Truth, error) {
				return measureGoTest(ctx, p, repo, work, cfg)
			})
	case "cpu":
		cfg := cpuConfig{rounds: *rounds, target: *target, cpu: *cpu}
		return pinned(fmt.Sprintf("go run ./corpus/measure -clock cpu -rounds %d -target %s -cpu %d (taskset -c %d, "+
			"GOMAXPROCS=1, user+system CPU time per operation with a 1-iteration run subtracted", *rounds, *target,
			*cpu, *cpu),
			func(p *corpus.Pair, repo *corpus.Repo, work string) (*corpus.Truth, error) {
				return measureCPU(ctx, p, repo, work, cfg)
			})
	case "wall":
	default:
		fmt.Fprintf(stderr, "measure: -clock %q: want wall, cpu or gotest\n", *clock)
		return 2
	}
	flags := []string{"-metric", "time", "-rounds", fmt.Sprint(*rounds), "-budget", "0", "-benchtime", *benchtime,
		"-time-same-code", "-differential=false", "-constant-time", "off"}
	flags = append(flags, fs.Args()...)
	if err := measureAll(ctx, *sel, *bin, *dir, stderr, func(p *corpus.Pair, repo *corpus.Repo, work, perfgate string) (
		*corpus.Truth, error) {
		return measureWall(ctx, perfgate, p, repo, flags, work)
	}); err != nil {
		fmt.Fprintf(stderr, "measure: error: %v\n", err)
		return 1
	}
	return 0
}

// measureAll materializes each selected pair, measures it with fn and writes its truth file into
// dir. A pair that fails is reported and the others still run.
func measureAll(ctx context.Context, sel, bin, dir string, stderr io.Writer,
	fn func(p *corpus.Pair, repo *corpus.Repo, work, perfgate string) (*corpus.Truth, error)) error {
	sess, err := corpus.NewSession(ctx, sel, bin)
	if err != nil {
		return err
	}
	defer sess.Close()
	failed := 0
	for _, p := range sess.Pairs {
		work := filepath.Join(sess.Dir, p.Name)
		repo, err := p.Materialize(ctx, filepath.Join(work, "repo"))
		var t *corpus.Truth
		if err == nil {
			t, err = fn(p, repo, work, sess.Perfgate)
		}
		if err != nil {
			fmt.Fprintf(stderr, "measure: %s: %v\n", p.Name, err)
			failed++
			continue
		}
		name := filepath.Join(dir, p.Name+".truth")
		if err := os.WriteFile(name, t.Format(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "measure: %s: wrote %s (load %s)\n", p.Name, name, t.Load)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d pairs failed", failed, len(sess.Pairs))
	}
	return nil
}

// measureWall measures the pair with perfgate compare's wall time.
func measureWall(ctx context.Context, bin string, p *corpus.Pair, repo *corpus.Repo, flags []string, dir string) (
	*corpus.Truth, error) {
	before := corpus.LoadAvg()
	o, err := corpus.Compare(ctx, bin, p, repo, flags, filepath.Join(dir, "results"))
	if err != nil {
		return nil, err
	}
	if o.Result == nil {
		return nil, fmt.Errorf("pair %s: perfgate exited %d without a result:\n%s", p.Name, o.ExitCode, o.Stderr)
	}
	t := &corpus.Truth{
		Command: strings.Join(append(append([]string{"perfgate compare -pkg", p.Pkg}, p.Flags...), flags...),
			" ") + " base head",
		Measured: time.Now().UTC().Format(time.RFC3339),
		Machine:  fmt.Sprintf("%s, pinned to CPU %d", machine(), o.Result.Env.PinnedCPU),
		Load:     before + " before, " + corpus.LoadAvg() + " after",
	}
	f, err := os.Open(filepath.Join(dir, "results", "bench.txt"))
	if err != nil {
		return nil, fmt.Errorf("%w (perfgate exited %d: %s; %s)", err, o.ExitCode,
			strings.Join(o.Result.Verdict.Reasons, "; "), strings.Join(o.Result.Notes, "; "))
	}
	defer f.Close()
	ratios, err := corpus.RoundRatios(f, f.Name())
	if err != nil {
		return nil, err
	}
	for _, b := range o.Result.Benchmarks {
		if b.Unit != "sec/op" {
			continue
		}
		if len(ratios[b.Name]) < 10 {
			return nil, fmt.Errorf("pair %s: benchmark %s has %d complete rounds, want at least 10 (class %s: %s)",
				p.Name, b.Name, len(ratios[b.Name]), b.Class, b.Note)
		}
		t.Benches = append(t.Benches, truthBench(b, ratios[b.Name]))
	}
	t.Notes = noiseNotes(t.Benches, o.Result.Benchmarks)
	return t, nil
}

// truthBench is the median of the rounds' log ratios with its sign-test interval at 95%, in
// percent.
func truthBench(b record.Benchmark, logRatios []float64) corpus.TruthBench {
	pct := func(d float64) float64 { return math.Expm1(d) * 100 }
	med, lo, hi := corpus.MedianInterval(logRatios, 0.95)
	return corpus.TruthBench{Name: b.Name, Pct: pct(med), Lo: pct(lo), Hi: pct(hi), NoisePct: b.NoisePct,
		Rounds: len(logRatios)}
}

// noiseNotes says, in words, how noisy the run was: the widest interval and the rounds left out as
// disturbed.
func noiseNotes(benches []corpus.TruthBench, rows []record.Benchmark) []string {
	var notes []string
	for _, b := range benches {
		if w := (b.Hi - b.Lo) / 2; w > 2 {
			notes = append(notes, fmt.Sprintf("%s: interval ±%.1f%% wide; its direction is known only beyond that", b.Name, w))
		}
	}
	for _, r := range rows {
		if r.Unit == "sec/op" && r.Paired != nil {
			notes = append(notes, fmt.Sprintf("%s: perfgate's own paired estimate %+.2f%% [%+.2f, %+.2f], %d rounds "+
				"disturbed", r.Name, (r.Paired.Ratio-1)*100, (r.Paired.Lo-1)*100, (r.Paired.Hi-1)*100, r.Paired.Disturbed))
		}
	}
	return notes
}

// cpuNotes says how wide the widest intervals are.
func cpuNotes(benches []corpus.TruthBench) []string {
	var notes []string
	for _, b := range benches {
		if w := (b.Hi - b.Lo) / 2; w > 2 {
			notes = append(notes, fmt.Sprintf("%s: interval ±%.1f%% wide; its direction is known only beyond that", b.Name, w))
		}
	}
	return notes
}

// benchText says which benchmarks the pair's flags select.
func benchText(flags []string) string {
	if b := flagValue(flags, "-bench"); b != "" {
		return "benchmarks " + b
	}
	return "all benchmarks"
}

// machine names the CPU model and the CPUs online. A virtual machine's model name can be as vague
// as "AMD EPYC", so the family, model and stepping numbers, which tell the generation apart, follow
// it.
func machine() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	info := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" && len(info) > 0 {
			break // the first processor's block is enough
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			info[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	model := info["model name"]
	if model == "" {
		model = "unknown CPU"
	}
	if info["cpu family"] != "" {
		model += fmt.Sprintf(" (family %s, model %s, stepping %s)", info["cpu family"], info["model"], info["stepping"])
	}
	return fmt.Sprintf("%s, %d CPUs", model, runtime.NumCPU())
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
