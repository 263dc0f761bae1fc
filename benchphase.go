package perfgate

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/record"
)

// The benchmark phase: the A–B–B–A run, and fromRun, which turns what it gathered into a benchRecord.

// runBenchmarks runs the A–B–B–A schedule, writing bench.txt as samples arrive, and turns what it gathered into a
// benchRecord (fromRun). Whatever ran before an error is kept.
func (p *pipeline) runBenchmarks(ctx context.Context) (benchRecord, error) {
	rec := benchRecord{pinnedCPU: -1}
	f, err := p.dir.CreateBench()
	if err != nil {
		return rec, err
	}
	defer f.Close()
	var filter *regexp.Regexp
	if p.cfg.Bench != "" && p.cfg.Bench != "." {
		filter = regexp.MustCompile(p.cfg.Bench) // validated
	}
	opt := bench.DefaultStatsOptions
	opt.Alpha, opt.ThresholdPct = p.cfg.Alpha, p.cfg.Threshold
	if p.code.timesNothing() {
		// Every benchmark runs the same machine code on both sides: there is nothing to time.
		p.logf("timing: skipped, every benchmark runs the same machine code on both sides")
		_, notes, err := p.headBenchmarks(ctx)
		rec.benchmarks = p.code.sameCodeRows()
		rec.settled = len(rec.benchmarks)
		rec.notes = notes
		return rec, err
	}
	if p.cfg.Budget > 0 {
		p.logf("timing: A–B–B–A in stages of %d rounds and more, %s per run, within a budget of %s; settled benchmarks stop",
			p.cfg.Rounds, p.cfg.BenchTime, p.cfg.Budget)
	} else {
		p.logf("timing: %d rounds of A–B–B–A, %s per run", p.cfg.Rounds, p.cfg.BenchTime)
	}
	start := time.Now()
	run, err := bench.RunABBA(ctx, bench.RunConfig{
		Base:      p.baseTimed(),
		Head:      bench.Binary{Path: p.head.bin, Dir: p.head.pkgDir, Commit: p.head.rev.Commit},
		Filter:    filter,
		Tops:      p.tops,
		Skip:      p.code.untimed,
		Rounds:    p.cfg.Rounds,
		BenchTime: p.cfg.BenchTime,
		CPU:       p.cfg.CPU,
		NoPin:     p.cfg.NoPin,
		Timeout:   p.cfg.Timeout,
		Budget:    p.cfg.Budget,
		Stats:     opt,
		Progress:  p.log,
		BenchTxt:  f,
	})
	timed := time.Since(start).Round(time.Millisecond)
	if run == nil {
		rec.timed = timed
		return rec, err
	}
	var headTops []string
	var listNotes []string
	if err == nil {
		headTops, listNotes, err = p.headBenchmarks(ctx)
	}
	rec = fromRun(run, headTops, opt)
	rec.notes = append(listNotes, rec.notes...)
	p.code.markSameCode(rec.benchmarks)
	if rows := p.code.sameCodeRows(); len(rows) > 0 {
		rec.benchmarks = append(rec.benchmarks, rows...)
		sortBenchmarks(rec.benchmarks)
		rec.settled += len(rows)
	}
	rec.timed = timed
	return rec, err
}

// baseTimed is the binary base's side times: base's own, or base built with head's test files (likeForLike).
func (p *pipeline) baseTimed() bench.Binary {
	if p.source.baseBin != "" {
		return bench.Binary{Path: p.source.baseBin, Dir: p.source.baseDir, Commit: p.base.rev.Commit}
	}
	return bench.Binary{Path: p.base.bin, Dir: p.base.pkgDir, Commit: p.base.rev.Commit}
}

// headBenchmarks lists head's top-level benchmarks (nil when they cannot be listed) and notes those that only
// head has: the schedule comes from base's benchmarks, so those were not run. A benchmark of base's that head
// lacks is removed, not broken (fromRun). Only a cancelled context is an error.
func (p *pipeline) headBenchmarks(ctx context.Context) (headTops, notes []string, err error) {
	list := func(s *side) ([]string, error) {
		lctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		defer cancel()
		names, err := bench.List(lctx, bench.Binary{Path: s.bin, Dir: s.pkgDir}, nil)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return names, err
	}
	headTops, err = list(&p.head)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, []string{"head: " + err.Error()}, nil
	}
	if headTops == nil {
		headTops = []string{}
	}
	lctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	baseTops, err := bench.List(lctx, p.baseTimed(), nil)
	if err != nil {
		return headTops, nil, nil
	}
	var added []string
	for _, t := range headTops {
		if !slices.Contains(baseTops, t) {
			added = append(added, "Benchmark"+t)
		}
	}
	if len(added) > 0 {
		notes = append(notes, fmt.Sprintf("new on head, so not compared (base has nothing to compare with): %s",
			strings.Join(added, ", ")))
	}
	return headTops, notes, nil
}

// fromRun turns what RunABBA gathered into the benchmarks, failures and notes of a benchRecord, with the
// statistics of opt (and, for a budgeted run, the looks the run took: Run.Plan). headTops are the top-level benchmarks the head binary lists (nil when unknown): a head run
// with no result of a benchmark head does not have is recorded as a Failure of kind FailureRemoved, and its
// empty comparison rows are dropped. It runs nothing: tests give it a synthetic Run.
func fromRun(run *bench.Run, headTops []string, opt bench.StatsOptions) benchRecord {
	rec := benchRecord{pinnedCPU: -1}
	if run.Pinning.Pinned {
		rec.pinnedCPU = run.Pinning.CPU
	} else if run.Pinning.Reason != "" {
		rec.notes = append(rec.notes, "benchmarks ran unpinned: "+run.Pinning.Reason)
	}
	for _, w := range run.Warnings {
		rec.notes = append(rec.notes, "benchmarks: "+w)
	}
	removed := map[string]bool{}
	for _, f := range run.Failures {
		top, _, _ := strings.Cut(f.Name, "/")
		if headTops != nil && f.Side == bench.Head && f.Kind == record.FailureNoResult && !slices.Contains(headTops, top) {
			f.Kind, f.Message = FailureRemoved, "head has no Benchmark"+top+" (removed or renamed): not compared"
			removed[f.Name] = true
		}
		rec.failures = append(rec.failures, f)
	}
	if len(removed) > 0 {
		names := sortedKeys(removed)
		rec.notes = append(rec.notes, fmt.Sprintf("%d of base's benchmarks are not in head (removed or renamed), so not compared: %s",
			len(names), strings.Join(names, ", ")))
	}
	if len(run.Samples) == 0 && len(run.Failures) == 0 {
		rec.notes = append(rec.notes, "no benchmarks matched: the package has none, or -bench selects none")
	}
	opt.Sequential = run.Plan
	rec.stages = run.Stages
	bs, err := bench.Analyze(run.Samples, opt)
	if err != nil {
		rec.notes = append(rec.notes, "statistics: "+err.Error())
	}
	rec.benchmarks = slices.DeleteFunc(bs, func(b Benchmark) bool { return removed[b.Name] })
	if rec.benchmarks == nil {
		rec.benchmarks = []Benchmark{}
	}
	sortBenchmarks(rec.benchmarks)
	var noise, mde []float64
	var unsettled []string
	for _, b := range rec.benchmarks {
		if b.Unit == GatedUnit && b.Class != ClassFailed {
			noise = append(noise, b.NoisePct)
			mde = append(mde, b.MDEPct)
		}
		if b.Unit == GatedUnit {
			switch b.Class {
			case ClassSlower, ClassFaster, ClassUnchanged:
				rec.settled++
			default:
				unsettled = append(unsettled, b.Name)
			}
		}
	}
	if run.Plan != nil && len(unsettled) > 0 {
		rec.notes = append(rec.notes, fmt.Sprintf("%d of %d benchmarks did not settle within the budget after %d stages: %s",
			len(unsettled), rec.settled+len(unsettled), run.Stages, strings.Join(unsettled, ", ")))
	}
	rec.noise, rec.mde = median(noise), median(mde)
	return rec
}

// median returns the median of xs, 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
