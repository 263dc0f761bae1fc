package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/differential"
)

// costRuns is how many times -cost checks each constructor; it reports the fastest run.
const costRuns = 3

// measureCost runs the differential of every package the subjects check, unmutated base against
// itself, once per constructor at the settings of r.cfg, costRuns times each, and prints the
// fastest check time (probe, generate, run both harnesses, compare) and build time of each
// constructor. A constructor's GCM form is checked with it.
func measureCost(ctx context.Context, r *runner, w io.Writer) error {
	names := make([]string, 0, len(subjects))
	for n := range subjects {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "%-8s %-20s %-26s %8s %8s %8s\n", "subject", "package", "constructor", "check-s", "build-s",
		"inputs")
	for _, name := range names {
		s := subjects[name]
		base, _, err := r.base(s)
		if err != nil {
			return err
		}
		for _, pkg := range checkedPackages(s) {
			cfg := r.cfg
			cfg.BaseDir, cfg.HeadDir, cfg.Pkg, cfg.Tags = base, base, pkg, s.tags
			rep, err := differential.Check(ctx, cfg)
			if err != nil {
				return fmt.Errorf("differential of %s %s: %w", name, pkg, err)
			}
			for _, c := range rep.Ciphers {
				if strings.Contains(c.Name, "/") {
					continue
				}
				check, build, inputs, err := costOf(ctx, cfg, c.Name)
				if err != nil {
					return fmt.Errorf("%s %s %s: %w", name, pkg, c.Name, err)
				}
				fmt.Fprintf(w, "%-8s %-20s %-26s %8.2f %8.2f %8d\n", name, pkg, c.Name, check.Seconds(),
					build.Seconds(), inputs)
			}
		}
	}
	return nil
}

// costOf checks constructor name alone costRuns times and returns the fastest check and build
// times, and how many inputs (blocks or messages, in both directions' and every derived form's
// jobs) it was fed.
func costOf(ctx context.Context, cfg differential.Config, name string) (check, build time.Duration, inputs int,
	err error) {
	cfg.Constructors = []string{name}
	for i := range costRuns {
		rep, err := differential.Check(ctx, cfg)
		if err != nil {
			return 0, 0, 0, err
		}
		if i == 0 || rep.CheckTime < check {
			check, build = rep.CheckTime, rep.BuildTime
		}
		inputs = 0
		for _, c := range rep.Ciphers {
			inputs += c.Inputs + c.Keys*c.Blocks*len(c.KeySizes)
		}
	}
	return check, build, inputs, nil
}

// checkedPackages returns the packages the subject's targets check, each once, sorted.
func checkedPackages(s *subject) []string {
	var pkgs []string
	for _, t := range s.pkgs {
		for _, p := range t.checks {
			if !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	sort.Strings(pkgs)
	return pkgs
}
