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
}

// coverageRow is one benchmark of one pair over all the runs.
type coverageRow struct {
	pair, name string
	runs       []coverageRun
}

// coverageRun is one perfgate run of a benchmark and the truth taken right after it.
type coverageRun struct {
	class       record.Class
	pct, lo, hi float64 // perfgate's paired estimate and interval, percent
	level       float64 // perfgate's base center, ns/op
	// go test's protocol: mean of the rounds' log ratios as percent, its 95% interval
	truth, tlo     float64
	thi            float64
	truthLevel     float64 // go test's base ns/op, the median over the rounds
	disturbed      int     // rounds perfgate left out
	burst          bool    // perfgate saw a regime change or a burst in this run
	contains       bool    // perfgate's interval contains the truth's point estimate
	falseFail      bool    // perfgate said slower where the truth is below half the threshold
	directionError bool    // perfgate's class says the other way from a truth that excludes 0
}

// measureCoverage runs perfgate on the pair cfg.runs times and, after each run, takes the truth by
// go test's own protocol with the same binaries' source on the same machine, so that every interval
// is judged against a truth taken within minutes of it, as the host drifts.
func measureCoverage(ctx context.Context, p *corpus.Pair, repo *corpus.Repo, dir, perfgate string,
	cfg coverageConfig, stderr io.Writer) ([]*coverageRow, error) {
	bins := [2]string{filepath.Join(dir, "base.test"), filepath.Join(dir, "head.test")}
	for i, commit := range []string{repo.Base, repo.Head} {
		if err := buildTest(ctx, p, repo.Dir, commit, filepath.Join(dir, fmt.Sprint("wt", i)), bins[i]); err != nil {
			return nil, err
		}
	}
	rows := map[string]*coverageRow{}
	gt := gotestConfig{rounds: cfg.rounds, benchtime: cfg.benchtime, cpu: cfg.cpu}
	for k := range cfg.runs {
		o, err := corpus.Compare(ctx, perfgate, p, repo, cfg.flags, filepath.Join(dir, fmt.Sprint("results", k)))
		if err != nil {
			return nil, err
		}
		if o.Result == nil {
			return nil, fmt.Errorf("pair %s: perfgate exited %d without a result:\n%s", p.Name, o.ExitCode, o.Stderr)
		}
		for _, b := range o.Result.Benchmarks {
			if b.Unit != "sec/op" || b.Paired == nil || b.SameCode {
				continue
			}
			run := coverageRun{class: b.Class, pct: pctOf(b.Paired.Ratio), lo: pctOf(b.Paired.Lo),
				hi: pctOf(b.Paired.Hi), disturbed: b.Paired.Disturbed}
			run.level = b.Base.Center * 1e9
			run.burst = burstSeen(b)
			var logs, base []float64
			for range gt.rounds {
				var sum [2]float64
				for _, side := range []int{0, 1, 1, 0} {
					ns, err := goTestNs(ctx, bins[side], b.Name, gt)
					if err != nil {
						return nil, fmt.Errorf("pair %s: %s: %w", p.Name, b.Name, err)
					}
					sum[side] += ns
					if side == 0 {
						base = append(base, ns)
					}
				}
				logs = append(logs, math.Log(sum[1]/sum[0]))
			}
			mean, half := tInterval(logs)
			run.truth, run.tlo, run.thi = pctOf(math.Exp(mean)), pctOf(math.Exp(mean-half)), pctOf(math.Exp(mean+half))
			run.truthLevel = median(base)
			run.contains = run.lo <= run.truth && run.truth <= run.hi
			run.falseFail = run.class == record.ClassSlower && math.Abs(run.truth) < cfg.threshold/2
			run.directionError = (run.class == record.ClassSlower && run.thi < 0) ||
				(run.class == record.ClassFaster && run.tlo > 0)
			r := rows[b.Name]
			if r == nil {
				r = &coverageRow{pair: p.Name, name: b.Name}
				rows[b.Name] = r
			}
			r.runs = append(r.runs, run)
			fmt.Fprintf(stderr, "measure: %s %s run %d/%d: perfgate %+.1f%% [%+.1f, %+.1f] %s, level %.4g ns; "+
				"go test %+.1f%% [%+.1f, %+.1f], level %.4g ns%s\n", p.Name, b.Name, k+1, cfg.runs, run.pct, run.lo,
				run.hi, run.class, run.level, run.truth, run.tlo, run.thi, run.truthLevel, map[bool]string{true: "", false: "  ← interval misses the truth"}[run.contains])
		}
	}
	var out []*coverageRow
	for _, r := range rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
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
		"at -benchtime %s, pinned to CPU %d, taken right after each perfgate run.\n\n", host,
		orDefaults(cfg.flags), cfg.rounds, cfg.benchtime, cfg.cpu)
	b.WriteString("| pair | benchmark | runs | intervals containing the truth | perfgate's level vs go test's (median, range) | truth (median of runs) | classes | false FAIL | direction errors | runs with a burst |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n")
	var n, in, nCalm, inCalm, nBurst, inBurst, falseFail, dirErr int
	var levels []float64
	for _, r := range rows {
		var ok, ff, de, bursts int
		var lv, tr []float64
		var classes []string
		for _, run := range r.runs {
			n++
			if run.contains {
				ok++
				in++
			}
			if run.burst {
				bursts++
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
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %+.1f%% | %s | %d | %d | %d |\n", r.pair, r.name, len(r.runs), ok,
			spread(lv), median(tr), strings.Join(classes, ", "), ff, de, bursts)
	}
	fmt.Fprintf(&b, "\nIn all: %d of %d intervals contain the truth (%s); calm runs %d of %d, runs with a burst %d of %d; "+
		"%d false FAIL, %d direction errors; perfgate's level vs go test's: %s.\n", in, n, percent(in, n), inCalm, nCalm,
		inBurst, nBurst, falseFail, dirErr, spread(levels))
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
	return fmt.Sprintf("%+.1f%% (%+.1f to %+.1f)", median(xs), slices.Min(xs), slices.Max(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
	defer sess.Close()
	var all []*coverageRow
	start := time.Now()
	for i, p := range sess.Pairs {
		fmt.Fprintf(stderr, "measure: coverage of %s (%d of %d, %s so far)\n", p.Name, i+1, len(sess.Pairs),
			time.Since(start).Round(time.Second))
		work := filepath.Join(sess.Dir, p.Name)
		repo, err := p.Materialize(ctx, filepath.Join(work, "repo"))
		if err == nil {
			var rows []*coverageRow
			rows, err = measureCoverage(ctx, p, repo, work, sess.Perfgate, cfg, stderr)
			all = append(all, rows...)
		}
		if err != nil {
			fmt.Fprintf(stderr, "measure: %s: %v\n", p.Name, err)
		}
		if cfg.out != "" {
			// Written after every pair, so an interrupted run keeps what it measured.
			if werr := os.WriteFile(cfg.out, []byte(coverageTable(all, cfg, machine())), 0o644); werr != nil {
				return werr
			}
		}
	}
	fmt.Fprint(stderr, "\n"+coverageTable(all, cfg, machine()))
	return nil
}
