package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// The benchmark phase: the A–B–B–A run, and fromRun, which turns what it gathered into a
// benchRecord.

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

// runLanes runs the lanes the metric asks for with rc, joined into one Run: the timing lane, then
// the instruction-count lane. Under metric auto the count comes first, or runs alongside the timing
// lane pinned to another CPU when there is one (countCPU), and the timing lane's looks stop the
// benchmarks the counts settle (RunConfig.Counts), when countsSettle (valgrind hides no CPU feature
// the binaries use: otherwise CombineLanes lets no count settle anything, and neither may the
// stages). So the budget goes to the benchmarks the counts cannot settle. Whatever ran before an
// error is kept.
func (p *pipeline) runLanes(ctx context.Context, rc benchrun.RunConfig, countsSettle bool) (*benchrun.Run, error) {
	ic := rc
	// The lane's one round (no staging: counts repeat), within its share of the budget
	// (countShare).
	ic.Rounds, ic.Budget = benchrun.DefaultInstrRounds, p.countShare(false)
	count := func(ic benchrun.RunConfig, where string) (*benchrun.Run, error) {
		logTo(ic.Progress, "counting instructions under %s%s: %d round of A–B–B–A, each slot at N and 2N iterations",
			p.valgrind.Version, where, benchrun.DefaultInstrRounds)
		return benchrun.RunInstructions(ctx, ic, benchrun.InstrConfig{Valgrind: p.valgrind.Path, CacheSim: p.cfg.Cycles,
			Addrs: true})
	}
	if !p.cfg.TimesBenchmarks() || p.cfg.Metric != record.MetricAuto || !p.cfg.CountsInstructions() {
		var timed, counted *benchrun.Run
		var err error
		if p.cfg.TimesBenchmarks() {
			if rc.Budget > 0 && p.cfg.CountsInstructions() {
				// metric both: the count runs after the timing, within the same budget
				rc.Budget -= ic.Budget
			}
			timed, err = p.timeLane(ctx, rc)
		}
		if err == nil && p.cfg.CountsInstructions() {
			counted, err = count(ic, "")
		}
		return joinRuns(timed, counted), err
	}
	cpu, alongside := p.countCPU(rc)
	if !alongside {
		counted, err := count(ic, "")
		if err != nil {
			return counted, err
		}
		if rc.Budget > 0 {
			// The count came first on the timing's CPU: the timing gets what it left of the budget.
			rc.Budget = max(rc.Budget-counted.Elapsed, rc.Budget/2)
		}
		if countsSettle {
			cs := instrComparisons(counted, p.cfg.InstrThreshold)
			rc.Counts = func() []record.Benchmark { return cs }
		}
		timed, err := p.timeLane(ctx, rc)
		return joinRuns(timed, counted), err
	}
	// Alongside: the count on cpu, the timing on its own CPU; the looks see the counts once they
	// are in. Both lanes write to the log: a file serialises its writes, anything else gets a lock.
	if _, ok := p.log.(*os.File); !ok && p.log != nil {
		rc.Progress = &syncWriter{w: p.log}
	}
	ic.CPU, ic.Budget = cpu, p.countShare(true)
	if ic.Progress = nil; rc.Progress != nil {
		ic.Progress = &lineWriter{w: rc.Progress, prefix: "counting: "}
	}
	// bench.txt's configuration lines apply to the results after them, so two lanes must not
	// interleave there: the counts go after the timing lane's samples, as with metric both.
	var countTxt bytes.Buffer
	if rc.BenchTxt != nil {
		ic.BenchTxt = &countTxt
	}
	var mu sync.Mutex
	var counts []record.Benchmark
	var counted *benchrun.Run
	var countErr error
	done, timingDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		counted, countErr = count(ic, fmt.Sprintf(" on cpu %d, alongside the timing", cpu))
		if countErr == nil && countsSettle {
			cs := instrComparisons(counted, p.cfg.InstrThreshold)
			mu.Lock()
			counts = cs
			mu.Unlock()
		}
		select {
		case <-timingDone:
		default:
			// The count's CPU is free while the timing goes on: the constant-time trace takes it.
			p.startConstantTimeBeside(ctx, cpu)
		}
	}()
	rc.Counts = func() []record.Benchmark {
		mu.Lock()
		defer mu.Unlock()
		return counts
	}
	timed, err := p.timeLane(ctx, rc)
	close(timingDone)
	<-done
	if a := p.ctAlong; a != nil {
		// Nothing is timed now: the rest of the trace may use every CPU, the valgrind it runs
		// already too.
		a.unpin()
		abba.WidenDescendants()
	}
	if err == nil {
		err = countErr
	}
	if rc.BenchTxt != nil && countTxt.Len() > 0 {
		if _, werr := rc.BenchTxt.Write(countTxt.Bytes()); werr != nil && err == nil {
			err = fmt.Errorf("writing bench.txt: %w", werr)
		}
	}
	return joinRuns(timed, counted), err
}

// countShare is the instruction-count lane's share of the budget, 0 for none (no budget: fixed
// rounds): all of it when the lane runs alone (metric instructions) or alongside the timing on a
// CPU of its own, and countShareOfBudget of it when it runs before or after the timing on the same
// CPU (auto on one CPU, metric both), whose budget is then cut by what the count took. So the
// comparison ends within the budget, plus build and test time, whatever the benchmarks cost under
// valgrind.
func (p *pipeline) countShare(alongside bool) time.Duration {
	switch {
	case p.cfg.Budget <= 0:
		return 0
	case alongside || !p.cfg.TimesBenchmarks():
		return p.cfg.Budget
	}
	return time.Duration(countShareOfBudget * float64(p.cfg.Budget))
}

// countShareOfBudget is the instruction-count lane's share of the budget when it does not run
// alongside the timing: on this repository's gate the count takes about a minute on its own, the
// timing most of a 100 s budget.
const countShareOfBudget = 0.4

// timeLane runs the timing lane with rc.
func (p *pipeline) timeLane(ctx context.Context, rc benchrun.RunConfig) (*benchrun.Run, error) {
	// A budget may shorten a calibrated run, never a fixed count.
	perRun := p.cfg.BenchTime.String()
	if n := p.cfg.BenchTime.Iters; n > 0 {
		perRun = text.Plural(n, "iteration")
	} else if p.cfg.Budget > 0 {
		perRun = "at most " + perRun
	}
	if p.cfg.Budget > 0 {
		logTo(rc.Progress, "timing: A–B–B–A in stages of %d rounds and more, %s per run, within a budget "+
			"of %s; settled benchmarks stop", p.cfg.Rounds, perRun, p.cfg.Budget)
	} else {
		logTo(rc.Progress, "timing: %d rounds of A–B–B–A, %s per run", p.cfg.Rounds, perRun)
	}
	return benchrun.RunABBA(ctx, rc)
}

// countCPU returns the CPU the count runs on alongside the timing lane, and whether it may: the
// timing lane pins its children to one CPU (rc.CPU, or the last this process may use), and another
// one is free for callgrind, which then never competes with a timed child for its CPU.
func (p *pipeline) countCPU(rc benchrun.RunConfig) (int, bool) {
	if rc.NoPin {
		return -1, false
	}
	pin, err := abba.Choose(rc.CPU, false)
	if err != nil || !pin.Pinned {
		return -1, false
	}
	allowed, err := abba.AllowedCPUs()
	if err != nil {
		return -1, false
	}
	for _, c := range allowed {
		if c != pin.CPU {
			return c, true
		}
	}
	return -1, false
}

// instrComparisons returns run's instructions/op comparisons, nil for no run; the leaves the lane
// did not count are marked so (bench.MarkUncounted).
func instrComparisons(run *benchrun.Run, instrPct float64) []record.Benchmark {
	if run == nil {
		return nil
	}
	cs, err := bench.CompareInstructions(run.Samples, instrPct)
	if err != nil {
		return nil
	}
	return bench.MarkUncounted(cs, run.Uncounted) // what the lane gave up on settles nothing
}

// logTo writes a progress line to w, as logf does to the log; nil writes nothing.
func logTo(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "perfgate: "+format+"\n", args...)
	}
}

// syncWriter serialises the writes of two lanes to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// lineWriter writes whole lines to w, with prefix after progress's "perfgate: ", so that a lane
// that runs alongside another one prints whole lines only, and says which lane it is.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(l.buf[:i+1])
		l.buf = l.buf[i+1:]
		if rest, ok := strings.CutPrefix(line, "perfgate: "); ok {
			line = "perfgate: " + l.prefix + rest
		}
		if _, err := io.WriteString(l.w, line); err != nil {
			return len(b), err
		}
	}
}

// noBenchmarksMatched is the note of a timing run that selected no benchmark.
const noBenchmarksMatched = "no benchmarks matched: the package has none, or -bench selects none"

// joinRuns returns the timing lane's run a followed by the instruction-count lane's run b; either
// may be nil. Pinning, header, plan and stages come from the first lane that ran.
func joinRuns(a, b *benchrun.Run) *benchrun.Run {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	j := *a
	j.Samples = slices.Concat(a.Samples, b.Samples)
	j.Failures = slices.Concat(a.Failures, b.Failures)
	j.Warnings = slices.Concat(a.Warnings, b.Warnings)
	j.Elapsed += b.Elapsed
	j.Calibration += b.Calibration
	if len(b.Uncounted) > 0 {
		j.Uncounted = maps.Clone(b.Uncounted)
		maps.Copy(j.Uncounted, a.Uncounted)
	}
	j.Addrs = b.Addrs
	j.LaneOff = b.LaneOff
	return &j
}

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

// fromRun turns what RunABBA and RunInstructions gathered into the benchmarks, failures and notes
// of a benchRecord: the time samples with the statistics of opt (and, for a budgeted run, the looks
// the run took: Run.Plan), the instructions/op samples with bench.CompareInstructions at instrPct
// percent, apart (an instruction count never enters the time statistics). When a benchmark has both
// a sec/op and an instructions/op row and their classes disagree, both rows carry the MetricNote.
// headTops are the top-level benchmarks the head binary lists (nil when unknown): a head run with
// no result of a benchmark head does not have is recorded as a Failure of kind FailureRemoved, and
// its empty comparison rows are dropped. It runs nothing: tests give it a synthetic Run.
func fromRun(run *benchrun.Run, headTops []string, opt bench.StatsOptions, instrPct float64) benchRecord {
	rec := benchRecord{pinnedCPU: -1}
	if run.Pinning.Pinned {
		rec.pinnedCPU = run.Pinning.CPU
	} else if run.Pinning.Reason != "" {
		rec.notes = append(rec.notes, "benchmarks ran unpinned: "+run.Pinning.Reason)
	}
	if run.LaneOff != "" {
		rec.notes = append(rec.notes, "the instruction-count lane is off, wall time judges every benchmark: "+run.LaneOff)
	}
	for _, w := range run.Warnings {
		rec.notes = append(rec.notes, "benchmarks: "+w)
	}
	removed := map[string]bool{}
	for _, f := range run.Failures {
		top, _, _ := strings.Cut(f.Name, "/")
		if headTops != nil && f.Side == record.Head && f.Kind == record.FailureNoResult && !slices.Contains(headTops, top) {
			f.Kind, f.Message = record.FailureRemoved, "head has no Benchmark"+top+" (removed or renamed): not compared"
			removed[f.Name] = true
		}
		rec.failures = append(rec.failures, f)
	}
	if len(removed) > 0 {
		names := config.SortedKeys(removed)
		rec.notes = append(rec.notes, fmt.Sprintf("%d of base's benchmarks are not in head (removed or renamed), so not "+
			"compared: %s",
			len(names), strings.Join(names, ", ")))
	}
	if len(run.Samples) == 0 && len(run.Failures) == 0 {
		rec.notes = append(rec.notes, noBenchmarksMatched)
	}
	opt.Sequential = run.Plan
	rec.stages = run.Stages
	rec.runTime = run.RunTime
	var timeSamples, instrSamples []benchtxt.Sample
	for _, s := range run.Samples {
		if _, ok := s.Get(record.UnitInstructions); ok {
			instrSamples = append(instrSamples, s)
		} else {
			timeSamples = append(timeSamples, s)
		}
	}
	rec.steady = bench.SteadyEvidence(timeSamples, run.WarmUp)
	var bs []record.Benchmark
	if len(timeSamples) > 0 || len(instrSamples) == 0 {
		var err error
		if bs, err = bench.Analyze(timeSamples, opt); err != nil {
			rec.notes = append(rec.notes, "statistics: "+err.Error())
		}
	}
	if len(instrSamples) > 0 {
		bench.PerByte(instrSamples, timeSamples)
		ins, err := bench.CompareInstructions(instrSamples, instrPct)
		if err != nil {
			rec.notes = append(rec.notes, "instruction counts: "+err.Error())
		}
		bs = append(bs, ins...)
	}
	if len(run.Uncounted) > 0 {
		bs = bench.MarkUncounted(bs, run.Uncounted)
	}
	if len(instrSamples) > 0 || len(run.Uncounted) > 0 {
		noteDisagreements(bs)
	}
	rec.benchmarks = slices.DeleteFunc(bs, func(b record.Benchmark) bool { return removed[b.Name] })
	if rec.benchmarks == nil {
		rec.benchmarks = []record.Benchmark{}
	}
	record.SortBenchmarks(rec.benchmarks)
	return rec
}

// tally counts the benchmarks of rec settled for the gate (sec/op rows classed slower, faster or
// unchanged, or inconclusive with a slowdown beyond thresholdPct ruled out: bench.SettledForGate),
// notes those a budgeted run left unsettled, and takes the median noise floor and smallest
// detectable effect over the sec/op rows. It runs after the lanes are combined (metric auto), whose
// classes it counts.
func (rec *benchRecord) tally(run *benchrun.Run, thresholdPct float64) {
	var noise, mde []float64
	var unsettled []string
	rec.settled = 0
	for _, b := range rec.benchmarks {
		if b.Unit != record.UnitTime {
			continue
		}
		if b.Class != record.ClassFailed {
			noise = append(noise, b.NoisePct)
			mde = append(mde, b.MDEPct)
		}
		if bench.SettledForGate(b, thresholdPct) {
			rec.settled++
		} else {
			unsettled = append(unsettled, b.Name)
		}
	}
	if run.Plan != nil && len(unsettled) > 0 {
		rec.notes = append(rec.notes, fmt.Sprintf("%d of %d benchmarks did not settle within the budget after %s: %s",
			len(unsettled), rec.settled+len(unsettled), text.Plural(run.Stages, "stage"), strings.Join(unsettled, ", ")))
	}
	rec.noise, rec.mde = bench.Median(noise), bench.Median(mde)
}

// noteDisagreements sets MetricNote on the sec/op and instructions/op rows of every benchmark whose
// two lanes classify it differently. Both lanes gate (metric both), so the note says so.
func noteDisagreements(bs []record.Benchmark) {
	byTime := map[string]int{}
	for i, b := range bs {
		if b.Unit == record.UnitTime {
			byTime[b.Name] = i
		}
	}
	for i, b := range bs {
		t, ok := byTime[b.Name]
		if b.Unit != record.UnitInstructions || !ok {
			continue
		}
		if b.Uncounted != "" {
			bs[t].MetricNote, bs[i].MetricNote = "instructions "+b.Note, "instructions "+b.Note
			continue
		}
		if note := bench.MetricNote(bs[t], b, ""); note != "" {
			note += "; both gate: a slower in either fails the gate"
			bs[t].MetricNote, bs[i].MetricNote = note, note
		}
	}
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
