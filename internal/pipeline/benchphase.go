package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// The benchmark phase: the lanes (lanes.go) run where the scheduler says, and fromRun (fromrun.go)
// turns what they gathered into a benchRecord.

// runBenchmarks runs the lanes the metric asks for, writing bench.txt as samples arrive, and turns
// what they gathered into a benchRecord (fromRun). The timing lane runs the A–B–B–A schedule
// natively; the instruction-count lane runs it under valgrind (benchrun.RunInstructions); with
// metric both, timing first, then counting, into the same bench.txt; under auto, counting alongside
// (runLanes), its lines after the timing's. Whatever ran before an error is kept.
func (p *pipeline) runBenchmarks(ctx context.Context) (benchRecord, error) {
	rec := benchRecord{pinnedCPU: -1}
	f, err := p.dir.CreateBench()
	if err != nil {
		return rec, err
	}
	defer f.Close()
	filter := p.benchFilter()
	opt := bench.DefaultStatsOptions
	opt.Alpha, opt.ThresholdPct = p.cfg.Alpha, p.cfg.Threshold
	if p.code.timesNothing() {
		return p.sameCodeOnly(ctx)
	}
	rc := benchrun.RunConfig{
		Base:      p.baseTimed(),
		Head:      p.head.binary(p.head.rev.Commit),
		Sandbox:   p.sandbox,
		Filter:    filter,
		Tops:      p.tops,
		Skip:      p.code.untimed,
		Rounds:    p.cfg.Rounds,
		BenchTime: p.cfg.BenchTime.Duration,
		Iters:     p.cfg.BenchTime.Iters,
		CPU:       p.cfg.CPU,
		NoPin:     p.cfg.NoPin,
		Timeout:   p.cfg.Timeout,
		Budget:    p.cfg.Budget,
		Stats:     opt,
		Progress:  p.log,
		BenchTxt:  f,
	}
	// Under auto, which CPU features valgrind hides decides whether the counts may settle anything:
	// known before the lanes run, since the timing lane stops benchmarks the counts settle
	// (runLanes).
	var hidden []string
	var hiddenNote string
	if p.cfg.Metric == record.MetricAuto {
		hidden, hiddenNote = p.hiddenFeatures(ctx, rc.Base.Path, rc.Head.Path)
	}
	start := time.Now()
	run, err := p.runLanes(ctx, rc, len(hidden) == 0)
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
	rec = fromRun(run, headTops, opt, p.cfg.InstrThreshold)
	rec.addrs, rec.iters, rec.rc = run.Addrs, run.Iters, rc
	rec.notes = append(listNotes, rec.notes...)
	if p.cfg.Metric == record.MetricAuto {
		if hiddenNote != "" {
			rec.notes = append(rec.notes, hiddenNote)
		}
		bench.CombineLanes(rec.benchmarks, bench.AutoOptions{ThresholdPct: p.cfg.Threshold, Hidden: hidden})
	}
	rec.tally(run, p.cfg.Threshold)
	if p.autoHint != "" {
		rec.notes = append(rec.notes, p.autoHint)
	}
	p.code.markSameCode(rec.benchmarks)
	if rows := p.code.sameCodeRows(p.cfg.Metric); len(rows) > 0 {
		// The benchmarks -bench selects all run the same code: none matched the timing, which is no
		// news.
		rec.notes = slices.DeleteFunc(rec.notes, func(n string) bool { return n == noBenchmarksMatched })
		rec.benchmarks = append(rec.benchmarks, rows...)
		record.SortBenchmarks(rec.benchmarks)
		rec.settled += len(rows)
	}
	rec.timed = timed
	if err == nil {
		err = p.checkLeavesSelected(run, len(p.code.shown))
	}
	return rec, err
}

// sameCodeOnly is the benchmark record when every benchmark runs the same machine code on both
// sides: there is nothing to time, and every benchmark is unchanged.
func (p *pipeline) sameCodeOnly(ctx context.Context) (benchRecord, error) {
	p.logf("timing: skipped, every benchmark runs the same machine code on both sides")
	_, notes, err := p.headBenchmarks(ctx)
	rec := benchRecord{pinnedCPU: -1, benchmarks: p.code.sameCodeRows(p.cfg.Metric), notes: notes}
	rec.settled = len(rec.benchmarks)
	return rec, err
}

// noBenchmarksMatched is the note of a timing run that selected no benchmark.
const noBenchmarksMatched = "no benchmarks matched: the package has none, or -bench selects none"

// baseTimed is the binary base's side times: base's own, or base built with head's test files
// (likeForLike).
func (p *pipeline) baseTimed() benchrun.Binary {
	if p.source.baseBin != "" {
		return benchrun.Binary{Path: p.source.baseBin, Dir: p.source.baseDir, Commit: p.base.rev.Commit,
			SHA256: p.source.baseSHA}
	}
	return p.base.binary(p.base.rev.Commit)
}

// headBenchmarks lists head's top-level benchmarks (nil when they cannot be listed) and notes those
// that only head has: the schedule comes from base's benchmarks, so those were not run. A benchmark
// of base's that head lacks is removed, not broken (fromRun). Only a cancelled context is an error.
func (p *pipeline) headBenchmarks(ctx context.Context) (headTops, notes []string, err error) {
	list := func(s *side) ([]string, error) {
		lctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		defer cancel()
		names, err := benchrun.List(lctx, s.binary(""), nil, p.sandbox)
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
	baseTops, err := benchrun.List(lctx, p.baseTimed(), nil, p.sandbox)
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

// hiddenFeatures returns the CPU features valgrind hides that base's or head's test binary has
// instructions of, so that the instruction counts settle nothing there (bench.CombineLanes), and a
// note saying which; none when the binaries cannot take another path under valgrind. A probe that
// fails trusts nothing.
func (p *pipeline) hiddenFeatures(ctx context.Context, bins ...string) (hidden []string, note string) {
	host, err := valgrind.Probe(ctx, p.valgrind.Path, p.work)
	if err != nil {
		return []string{"unknown ones"}, "metric auto: " + err.Error() + "; the instruction counts settle nothing"
	}
	all := host.Hidden
	if len(all) == 0 && len(host.Unswitched) == 0 {
		return nil, ""
	}
	uses, errs := p.usedFeatures(ctx, bins, slices.Concat(all, host.Unswitched))
	for i, bin := range bins {
		if err := errs[i]; err != nil {
			return all, "metric auto: disassembling " + bin + ": " + err.Error() + "; the instruction counts settle nothing"
		}
		if used := uses[i](host.Unswitched); len(used) > 0 {
			// valgrind reports these, this CPU lacks them and no Go switch keeps code off them: it
			// would die.
			return []string{"unknown ones"}, fmt.Sprintf("metric auto: %s reports %s, which this CPU lacks and "+
				"which %s uses with no switch to turn it off, so the instruction counts settle nothing",
				p.valgrind.Version, strings.Join(used, ", "), filepath.Base(bin))
		}
		for _, f := range uses[i](all) {
			if !slices.Contains(hidden, f) {
				hidden = append(hidden, f)
			}
		}
	}
	if len(all) == 0 {
		return nil, ""
	}
	slices.Sort(hidden)
	if len(hidden) == 0 {
		return nil, fmt.Sprintf("metric auto: %s hides %s, but neither test binary has an instruction of them, so "+
			"the instruction counts are of the code the host runs", p.valgrind.Version, strings.Join(all, ", "))
	}
	return hidden, ""
}
