package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// Conversion: what the lanes gathered (a benchrun.Run) turned into a benchRecord; pure, on the Run
// alone.

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
