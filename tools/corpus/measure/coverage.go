package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/record"
	"github.com/perfgate/perfgate/tools/corpus"
)

// coverageConfig says how the coverage measurement runs.
type coverageConfig struct {
	runs      int      // perfgate runs per pair, each followed by a truth
	rounds    int      // go test's protocol: A–B–B–A rounds per benchmark per truth
	benchtime string   // go test's -benchtime for the truth
	cpu       int      // the CPU the truth's processes are pinned to
	threshold float64  // the gate's threshold in percent, for "false FAIL" (truth below half of it)
	flags     []string // perfgate's flags (none: its defaults)
	out       string   // the Markdown table's file ("" : standard error only)
	maxRounds int      // the most rounds a truth may take to be precise enough to judge by
	keep      bool     // keep the scratch directory
	// with more than 0, after each perfgate run, this many rounds of perfgate's process protocol
	// against go test's on base's binary, interleaved (compareProtocols)
	levelRounds int
	truthDir    string // write each pair's retaken truth file here ("" : none)
}

// coverageRow is one benchmark of one pair over all the runs.
type coverageRow struct {
	pair, name string
	runs       []coverageRun
}

// coverageRun is one perfgate run of a benchmark and the truth taken around it.
type coverageRun struct {
	class       record.Class
	pct, lo, hi float64 // perfgate's paired estimate and interval, percent
	level       float64 // perfgate's base center, ns/op
	// go test's protocol: mean of the rounds' log ratios as percent, its 95% interval
	truth, tlo  float64
	thi         float64
	truthLevel  float64 // go test's base ns/op, the median over the rounds
	disturbed   int     // rounds perfgate left out
	burst       bool    // perfgate saw a regime change or a burst in this run
	contains    bool    // perfgate's interval contains the truth's point estimate
	truthRounds int     // the truth's rounds
	// the truth's half-width is at most half of perfgate's: precise enough to judge by
	judged     bool
	consistent bool // the estimates differ by less than their combined 95% uncertainty
	// perfgate's process protocol against go test's, interleaved (-levels)
	protocol       protocolLevel
	falseFail      bool // perfgate said slower where a judged truth is below half the threshold
	directionError bool // perfgate's class says the other way from a truth that excludes 0
}

// measureCoverage runs perfgate on the pair cfg.runs times and takes the truth by go test's own
// protocol around each run: half of the truth's rounds right before it and half right after, on the
// same machine, so that every interval and every level is judged against a truth that brackets it
// in time as the host drifts. The truth is taken for every benchmark the pair selects, those
// perfgate did not time (the same machine code on both sides) too; all of a benchmark's rounds,
// over all runs, make the pair's retaken truth (the second result, nil when no run completed).
func measureCoverage(ctx context.Context, p *corpus.Pair, repo *corpus.Repo, dir, perfgate string,
	cfg coverageConfig, stderr io.Writer) ([]*coverageRow, *corpus.Truth, error) {
	bins := [2]string{filepath.Join(dir, "base.test"), filepath.Join(dir, "head.test")}
	for i, commit := range []string{repo.Base, repo.Head} {
		if err := buildTest(ctx, p, repo.Dir, commit, filepath.Join(dir, fmt.Sprint("wt", i)), bins[i]); err != nil {
			return nil, nil, err
		}
	}
	names, _, err := calibrate(ctx, bins[0], benchFlag(p.Flags),
		cpuConfig{rounds: cfg.rounds, target: 10 * time.Millisecond, cpu: cfg.cpu})
	if err != nil {
		return nil, nil, fmt.Errorf("pair %s: %w", p.Name, err)
	}
	gt := gotestConfig{rounds: cfg.rounds, benchtime: cfg.benchtime, cpu: cfg.cpu}
	// truthRounds runs k rounds of base, head, head, base of every benchmark and appends each
	// round's log ratio and base's two ns/op to logs and base.
	truthRounds := func(names []string, k int, logs, base map[string][]float64) error {
		for _, name := range names {
			for range k {
				var sum [2]float64
				for _, side := range []int{0, 1, 1, 0} {
					ns, err := goTestNs(ctx, bins[side], name, gt)
					if err != nil {
						return fmt.Errorf("pair %s: %s: %w", p.Name, name, err)
					}
					sum[side] += ns
					if side == 0 {
						base[name] = append(base[name], ns)
					}
				}
				logs[name] = append(logs[name], math.Log(sum[1]/sum[0]))
			}
		}
		return nil
	}
	rows := map[string]*coverageRow{}
	all := map[string][]float64{} // every round's log ratio, over all runs: the retaken truth
	loadBefore := corpus.LoadAvg()
	measured := time.Now().UTC().Format(time.RFC3339)
	for k := range cfg.runs {
		logs, base := map[string][]float64{}, map[string][]float64{}
		if err := truthRounds(names, (gt.rounds+1)/2, logs, base); err != nil {
			return nil, nil, err
		}
		o, err := corpus.Compare(ctx, perfgate, p, repo, cfg.flags, filepath.Join(dir, fmt.Sprint("results", k)))
		if err != nil {
			return nil, nil, err
		}
		if o.Result == nil {
			return nil, nil, fmt.Errorf("pair %s: perfgate exited %d without a result:\n%s", p.Name, o.ExitCode, o.Stderr)
		}
		if err := truthRounds(names, gt.rounds/2, logs, base); err != nil {
			return nil, nil, err
		}
		protocols := map[string]protocolLevel{}
		if cfg.levelRounds > 0 {
			if protocols, err = compareProtocols(ctx, bins[0], o.Result, filepath.Join(dir, fmt.Sprint("results", k),
				"bench.txt"), gt, cfg.levelRounds); err != nil {
				return nil, nil, fmt.Errorf("pair %s: %w", p.Name, err)
			}
		}
		for _, name := range names {
			all[name] = append(all[name], logs[name]...)
		}
		for _, b := range o.Result.Benchmarks {
			if b.Unit != "sec/op" || b.Paired == nil || b.SameCode || len(logs[b.Name]) == 0 {
				continue
			}
			run := coverageRun{class: b.Class, pct: pctOf(b.Paired.Ratio), lo: pctOf(b.Paired.Lo),
				hi: pctOf(b.Paired.Hi), disturbed: b.Paired.Disturbed}
			run.level = b.Base.Center * 1e9
			run.burst = burstSeen(b)
			// A truth must be precise enough to judge the interval by: more rounds (4 at a time,
			// after the run) while its half-width is above half of perfgate's, up to cfg.maxRounds.
			phalf := (math.Log(b.Paired.Hi) - math.Log(b.Paired.Lo)) / 2
			_, half := tInterval(logs[b.Name])
			for half > max(phalf/2, 0.002) && len(logs[b.Name]) < cfg.maxRounds {
				if err := truthRounds([]string{b.Name}, 4, logs, base); err != nil {
					return nil, nil, err
				}
				all[b.Name] = append(all[b.Name], logs[b.Name][len(logs[b.Name])-4:]...)
				_, half = tInterval(logs[b.Name])
			}
			run.truthRounds = len(logs[b.Name])
			run.protocol = protocols[b.Name]
			run.truthLevel = bench.Median(base[b.Name])
			run.judge(b.Paired.Ratio, b.Paired.Lo, b.Paired.Hi, logs[b.Name], cfg.threshold)
			r := rows[b.Name]
			if r == nil {
				r = &coverageRow{pair: p.Name, name: b.Name}
				rows[b.Name] = r
			}
			r.runs = append(r.runs, run)
			fmt.Fprintf(stderr, "measure: %s %s run %d/%d: perfgate %+.1f%% [%+.1f, %+.1f] %s, level %.4g ns; "+
				"go test %+.1f%% [%+.1f, %+.1f] in %d rounds, level %.4g ns%s%s\n", p.Name, b.Name, k+1, cfg.runs, run.pct,
				run.lo, run.hi, run.class, run.level, run.truth, run.tlo, run.thi, run.truthRounds, run.truthLevel,
				map[bool]string{true: "", false: "  ← interval misses the truth"}[run.contains],
				map[bool]string{true: "", false: " (truth too imprecise to judge by)"}[run.judged])
		}
	}
	var out []*coverageRow
	for _, r := range rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	t := &corpus.Truth{
		Command: fmt.Sprintf("go run ./corpus/measure -coverage %d -rounds %d -benchtime %s -cpu %d (go test's protocol: "+
			"-test.benchtime %s, testing's own b.N, -test.cpu 1, GOMAXPROCS=1, taskset -c %d; base, head, head, base per "+
			"round; half of each run's rounds before a perfgate run, half after; %s)", cfg.runs, gt.rounds, gt.benchtime,
			gt.cpu, gt.benchtime, gt.cpu, benchText(p.Flags)),
		Measured: measured,
		Machine:  fmt.Sprintf("%s, pinned to CPU %d", machine(), gt.cpu),
		Load:     loadBefore + " before, " + corpus.LoadAvg() + " after",
	}
	for _, name := range names {
		med, lo, hi := corpus.MedianInterval(all[name], 0.95)
		pct := func(d float64) float64 { return math.Expm1(d) * 100 }
		t.Benches = append(t.Benches, corpus.TruthBench{Name: name, Pct: pct(med), Lo: pct(lo), Hi: pct(hi),
			NoisePct: 100 * madSigma(all[name]), Rounds: len(all[name])})
	}
	t.Notes = cpuNotes(t.Benches)
	return out, t, nil
}

// truthChange compares a pair's previous truth with the retaken one, benchmark by benchmark: a
// line for each benchmark whose direction differs or that only one of them has.
func truthChange(pair string, old, new *corpus.Truth) []string {
	var lines []string
	for _, nb := range new.Benches {
		if old == nil {
			lines = append(lines, fmt.Sprintf("| %s | %s | — | %s |", pair, nb.Name, truthText(nb)))
			continue
		}
		ob, ok := old.Bench(nb.Name)
		if !ok {
			lines = append(lines, fmt.Sprintf("| %s | %s | — | %s |", pair, nb.Name, truthText(nb)))
			continue
		}
		if ob.Direction() != nb.Direction() {
			lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s |", pair, nb.Name, truthText(ob), truthText(nb)))
		}
	}
	return lines
}

// truthText is one benchmark's truth as "slower +3.7% [+0.4, +7.5]".
func truthText(b corpus.TruthBench) string {
	return fmt.Sprintf("%s %+.1f%% [%+.1f, %+.1f]", b.Direction(), b.Pct, b.Lo, b.Hi)
}

// judge compares perfgate's estimate (ratio, lo, hi: head/base) with the truth's rounds (log
// ratios) and sets the run's truth and verdicts; class and the percentages must be set. The truth
// is the rounds' mean with its 95% t-interval. The run is judged when that interval is at most half
// as wide as perfgate's (or 0.2%): a truth that imprecise misses a right interval's middle only a
// little more often than the truth itself would (with half the width, a calibrated 95% interval
// contains a noisy truth's point about 92% of the time). The estimates are consistent when they
// differ by less than their combined 95% uncertainty, the square root of the sum of the squared
// half-widths: at any precision of the truth, a calibrated interval is consistent with it 95% of
// the time, and an interval too narrow for its run less often.
func (run *coverageRun) judge(ratio, lo, hi float64, logs []float64, threshold float64) {
	phalf := (math.Log(hi) - math.Log(lo)) / 2
	mean, half := tInterval(logs)
	run.truth, run.tlo, run.thi = pctOf(math.Exp(mean)), pctOf(math.Exp(mean-half)), pctOf(math.Exp(mean+half))
	run.judged = half <= max(phalf/2, 0.002)
	run.consistent = math.Abs(math.Log(ratio)-mean) <= math.Hypot(phalf, half)
	run.contains = run.lo <= run.truth && run.truth <= run.hi
	run.falseFail = run.class == record.ClassSlower && run.judged && math.Abs(run.truth) < threshold/2
	run.directionError = (run.class == record.ClassSlower && run.thi < 0) ||
		(run.class == record.ClassFaster && run.tlo > 0)
}

// burstSeen reports whether perfgate said it saw a burst or a change of level in the benchmark's
// run (record.Paired's Bursts and Regimes).
func burstSeen(b record.Benchmark) bool {
	return b.Paired != nil && (b.Paired.Bursts > 0 || b.Paired.Regimes > 1)
}

// coverageTable renders the rows as Markdown: per benchmark, how many intervals contain the truth,
// how far perfgate's level is from go test's, and the false FAILs; then the totals, calm and burst
// runs apart.
func coverageTable(rows []*coverageRow, cfg coverageConfig, host string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Host: %s. perfgate flags: %s. Truth: go test's protocol, %d rounds of base, head, head, base "+
		"at -benchtime %s, pinned to CPU %d, half of them right before each perfgate run and half right after, then "+
		"4 more at a time (up to %d) while the truth's interval is wider than half of perfgate's. A run is judged "+
		"when its truth ended at most half as wide as perfgate's interval.\n\n", host, orDefaults(cfg.flags),
		cfg.rounds, cfg.benchtime, cfg.cpu, cfg.maxRounds)
	b.WriteString("| pair | benchmark | runs | judged | containing the truth | consistent with it | " +
		"perfgate's level vs go test's (median, range) | truth (median of runs) | truth's rounds | classes | " +
		"false FAIL | direction errors | runs with a burst |")
	header := "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
	if cfg.levelRounds > 0 {
		b.WriteString(" perfgate's process protocol vs go test's, interleaved |")
		header += " ---: |"
	}
	b.WriteString("\n" + header + "\n")
	var n, judged, in, inAll, cons, consAll, nCalm, inCalm, nBurst, inBurst, falseFail, dirErr, within int
	var levels, protocols []float64
	for _, r := range rows {
		var j, ok, okAll, c, ff, de, bursts int
		var lv, tr []float64
		var classes, rounds []string
		for _, run := range r.runs {
			n++
			if run.consistent {
				c++
				consAll++
			}
			if run.contains {
				okAll++
				inAll++
			}
			if run.judged {
				j++
				judged++
				if run.contains {
					ok++
					in++
				}
				if run.consistent {
					cons++
				}
				if run.burst {
					nBurst++
					if run.contains {
						inBurst++
					}
				} else {
					nCalm++
					if run.contains {
						inCalm++
					}
				}
			}
			if run.burst {
				bursts++
			}
			if run.falseFail {
				ff++
				falseFail++
			}
			if run.directionError {
				de++
				dirErr++
			}
			if run.level > 0 && run.truthLevel > 0 {
				d := 100 * (run.level/run.truthLevel - 1)
				lv = append(lv, d)
				levels = append(levels, d)
			}
			tr = append(tr, run.truth)
			classes = append(classes, string(run.class))
			rounds = append(rounds, fmt.Sprint(run.truthRounds))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d of %d judged, %d of %d | %d | %s | %+.1f%% | %s | %s | %d | %d | %d |",
			r.pair, r.name, len(r.runs), j, ok, j, okAll, len(r.runs), c, spread(lv), bench.Median(tr), strings.Join(rounds, ", "), strings.Join(classes, ", "), ff,
			de, bursts)
		if cfg.levelRounds > 0 {
			var ps []string
			for _, run := range r.runs {
				if pl := run.protocol; pl.rounds > 0 {
					ps = append(ps, fmt.Sprintf("%+.1f%% ±%.1f", pl.pct, pl.half))
					protocols = append(protocols, pl.pct)
					if math.Abs(pl.pct) <= 10 {
						within++
					}
				}
			}
			fmt.Fprintf(&b, " %s |", strings.Join(ps, ", "))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "\nIn all: %d runs of a benchmark, %d judged; of those, %d intervals contain the truth (%s) and %d are "+
		"consistent with it (%s); calm runs %d of %d, runs with a burst %d of %d. Over every run, judged or not: %d of %d "+
		"consistent (%s) and %d contain the truth's point (%s). %d false FAIL, %d direction errors; perfgate's level vs "+
		"go test's: %s.\n", n, judged, in, percent(in, judged), cons, percent(cons, judged), inCalm, nCalm, inBurst,
		nBurst, consAll, n, percent(consAll, n), inAll, percent(inAll, n),
		falseFail, dirErr, spread(levels))
	if len(protocols) > 0 {
		fmt.Fprintf(&b, "Levels, protocol against protocol (%d rounds of perfgate's process, go test's, go test's, "+
			"perfgate's on base's binary after each run): %s; within 10%% in %d of %d.\n", cfg.levelRounds,
			spread(protocols), within, len(protocols))
	}
	return b.String()
}

func orDefaults(flags []string) string {
	if len(flags) == 0 {
		return "its defaults"
	}
	return strings.Join(flags, " ")
}

func percent(k, n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(k)/float64(n))
}

// spread is a list of percentages as "median (min to max)".
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%+.1f%% (%+.1f to %+.1f)", bench.Median(xs), slices.Min(xs), slices.Max(xs))
}

// tInterval is the mean of xs and the half-width of its 95% Student t-interval.
func tInterval(xs []float64) (mean, half float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, math.Inf(1)
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	return mean, t975(len(xs)-1) * sd / math.Sqrt(n)
}

// t975 is the 97.5% quantile of Student's t with df degrees of freedom (a table to 30, then the
// normal's).
func t975(df int) float64 {
	table := []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
		2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
		2.045, 2.042}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	return 1.96
}

func pctOf(ratio float64) float64 { return 100 * (ratio - 1) }

// coverageAll runs measureCoverage on every selected pair and writes the table.
func coverageAll(ctx context.Context, sel, bin string, cfg coverageConfig, stderr io.Writer) error {
	sess, err := corpus.NewSession(ctx, sel, bin)
	if err != nil {
		return err
	}
	if cfg.keep {
		fmt.Fprintf(stderr, "measure: keeping the scratch directory %s\n", sess.Dir)
	} else {
		defer sess.Close()
	}
	var all []*coverageRow
	var changed []string // truths whose direction the retake changed
	start := time.Now()
	for i, p := range sess.Pairs {
		fmt.Fprintf(stderr, "measure: coverage of %s (%d of %d, %s so far)\n", p.Name, i+1, len(sess.Pairs),
			time.Since(start).Round(time.Second))
		work := filepath.Join(sess.Dir, p.Name)
		repo, err := p.Materialize(ctx, filepath.Join(work, "repo"))
		if err == nil {
			var rows []*coverageRow
			var t *corpus.Truth
			rows, t, err = measureCoverage(ctx, p, repo, work, sess.Perfgate, cfg, stderr)
			all = append(all, rows...)
			if err == nil && cfg.truthDir != "" {
				changed = append(changed, truthChange(p.Name, p.Truth, t)...)
				name := filepath.Join(cfg.truthDir, p.Name+".truth")
				if err = os.WriteFile(name, t.Format(), 0o644); err == nil {
					fmt.Fprintf(stderr, "measure: %s: wrote %s\n", p.Name, name)
				}
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "measure: %s: %v\n", p.Name, err)
		}
		if cfg.out != "" {
			// Written after every pair, so an interrupted run keeps what it measured.
			if werr := os.WriteFile(cfg.out, []byte(coverageTable(all, cfg, machine())+changedTable(changed, cfg)), 0o644); werr != nil {
				return werr
			}
		}
	}
	fmt.Fprint(stderr, "\n"+coverageTable(all, cfg, machine())+changedTable(changed, cfg))
	return nil
}

// changedTable lists the benchmarks whose retaken truth points another way than the pair's
// previous truth file said ("" without -truth).
func changedTable(lines []string, cfg coverageConfig) string {
	if cfg.truthDir == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nTruths retaken into %s: %d benchmarks point another way than the previous truth file said "+
		"(a direction is where the whole 95%% interval lies).\n", cfg.truthDir, len(lines))
	if len(lines) > 0 {
		b.WriteString("\n| pair | benchmark | previous truth | retaken truth |\n| --- | --- | --- | --- |\n")
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}
