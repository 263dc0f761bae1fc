// Command score scores a configuration of perfgate against the corpus of known changes: it runs
// perfgate compare with the given flags on every pair and compares perfgate's classes with each
// pair's measured truth.
//
//	cd tools && go run ./corpus/score -- -metric time -budget 30s
//	go run ./corpus/score -run '^(mix|inline)-' -perfgate ./perfgate -- -metric instructions
//
// Flags after "--" go to perfgate compare unchanged. It prints a Markdown table, one row per pair
// (verdict, settled benchmarks, changes found, direction errors, false failure, wall time, what
// went wrong), and the totals; then, for the pairs whose header says where the change lives
// ("changed:"), a table of what perfgate's explanation (result.json's why) names first for each
// changed benchmark, and the hit rate. The units whose classes count as perfgate's claims follow
// -metric (time: sec/op; instructions: instructions/op; both and auto: either), unless -units says
// otherwise; the threshold follows -threshold (default 2).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/tools/corpus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sel := fs.String("run", "", "score only the pairs whose names match this regular expression")
	bin := fs.String("perfgate", "", "perfgate binary (default: build ./cmd/perfgate of the current directory)")
	units := fs.String("units", "", "comma-separated units whose classes are perfgate's claims (default: from -metric)")
	keep := fs.String("keep", "", "keep each pair's repository and results directory under this directory")
	from := fs.String("from", "", "score the results earlier -keep directories hold (comma-separated, the first "+
		"that has a pair wins) instead of running perfgate (wall time: perfgate's own duration)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	flags := fs.Args()
	rule, err := ruleFor(flags, *units)
	if err != nil {
		fmt.Fprintf(stderr, "score: error: %v\n", err)
		return 2
	}
	if *from != "" {
		*bin = "-" // nothing to build
	}
	if err := score(ctx, *sel, *bin, *keep, *from, flags, rule, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "score: error: %v\n", err)
		return 1
	}
	return 0
}

// ruleFor reads -metric and -threshold from perfgate's flags (perfgate's defaults when absent).
func ruleFor(flags []string, units string) (corpus.Rule, error) {
	rule := corpus.Rule{Threshold: 2}
	metric := "time"
	for i, f := range flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !hasValue && i+1 < len(flags) {
			value = flags[i+1]
		}
		switch name {
		case "metric":
			metric = value
		case "threshold":
			t, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return rule, fmt.Errorf("perfgate flag -threshold %q: %w", value, err)
			}
			rule.Threshold = t
		}
	}
	switch {
	case units != "":
		rule.Units = strings.Split(units, ",")
	case metric == "time":
		rule.Units = []string{"sec/op"}
	case metric == "instructions":
		rule.Units = []string{"instructions/op"}
	default:
		rule.Units = []string{"sec/op", "instructions/op"}
	}
	return rule, nil
}

func score(ctx context.Context, sel, bin, keep, from string, flags []string, rule corpus.Rule, stdout,
	stderr io.Writer) error {
	sess, err := corpus.NewSession(ctx, sel, bin)
	if err != nil {
		return err
	}
	defer sess.Close()
	if keep == "" {
		keep = sess.Dir
	}
	fmt.Fprintf(stdout, "perfgate compare %s; claims from %s; threshold %g%%; load %s at %s\n\n",
		strings.Join(flags, " "), strings.Join(rule.Units, "+"), rule.Threshold, corpus.LoadAvg(),
		time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintln(stdout, corpus.TableHeader)
	var scores []corpus.PairScore
	var attrs []corpus.AttrScore
	for _, p := range sess.Pairs {
		if p.Truth == nil {
			fmt.Fprintf(stderr, "score: %s: no truth, skipped\n", p.Name)
			continue
		}
		var ps corpus.PairScore
		if from != "" {
			o, err := readFrom(from, p.Name)
			if err != nil {
				fmt.Fprintf(stderr, "score: %s: %v, skipped\n", p.Name, err)
				continue
			}
			ps = corpus.Score(p, o, rule)
			attrs = append(attrs, corpus.ScoreAttribution(p, o, rule.Threshold)...)
		} else {
			var o *corpus.Outcome
			if ps, o, err = scoreOne(ctx, sess.Perfgate, p, flags, rule, filepath.Join(keep, p.Name), stderr); err != nil {
				return err
			}
			attrs = append(attrs, corpus.ScoreAttribution(p, o, rule.Threshold)...)
		}
		scores = append(scores, ps)
		fmt.Fprintln(stdout, ps.Row())
	}
	fmt.Fprintf(stdout, "\n%s; load %s at the end\n", corpus.Sum(scores), corpus.LoadAvg())
	if len(attrs) > 0 {
		// Where perfgate says each changed benchmark changed, against where the pair's change
		// lives.
		fmt.Fprintf(stdout, "\n%s\n", corpus.AttrHeader)
		for _, a := range attrs {
			fmt.Fprintln(stdout, a.Row())
		}
		fmt.Fprintf(stdout, "\n%s\n", corpus.AttrTotals(attrs))
	}
	return nil
}

func scoreOne(ctx context.Context, bin string, p *corpus.Pair, flags []string, rule corpus.Rule, dir string,
	stderr io.Writer) (corpus.PairScore, *corpus.Outcome, error) {
	repo, err := p.Materialize(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		return corpus.PairScore{}, nil, err
	}
	o, err := corpus.Compare(ctx, bin, p, repo, slices.Clone(flags), filepath.Join(dir, "results"))
	if err != nil {
		return corpus.PairScore{}, nil, err
	}
	if o.Result == nil || o.ExitCode > 1 {
		fmt.Fprintf(stderr, "score: %s: perfgate exited %d:\n%s\n", p.Name, o.ExitCode, tail(o.Stderr, 5))
	}
	return corpus.Score(p, o, rule), o, nil
}

// readFrom reads the pair's outcome from the first of the comma-separated -keep directories that
// has it.
func readFrom(dirs, pair string) (*corpus.Outcome, error) {
	var first error
	for _, d := range strings.Split(dirs, ",") {
		o, err := corpus.ReadOutcome(filepath.Join(d, pair, "results"))
		if err == nil {
			return o, nil
		}
		first = cmp.Or(first, err)
	}
	return nil, first
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
