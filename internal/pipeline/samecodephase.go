package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/samecode"
	"github.com/perfgate/perfgate/record"
)

// The same-code phase: which of base's benchmarks reach the same machine code in the two binaries
// that will be timed (package samecode), and so which benchmarks the timing lanes run. The decision
// is made here, once, and every timing lane reads it through sameCodeRecord.untimed.

// sameCodeRecord is what comparing the timed binaries' machine code found.
type sameCodeRecord struct {
	// the analysis ran and its answers stand (not a fallback, not an error)
	analysed  bool
	identical bool // the two timed binaries are byte for byte the same
	// base's top-level benchmarks, in source order (nil when they could not be listed)
	tops    []string
	same    map[string]bool // top-level benchmarks whose reachable machine code is the same
	untimed []string        // same-code top-level benchmarks the timing lanes skip
	// those of untimed the bench filter's first level selects: each gets a row
	shown []string
	notes []string
}

// compareCode runs samecode.Analyze on the two binaries the timing lanes will run (base's timed
// binary, after likeForLike, and head's) for base's top-level benchmarks, and decides which
// benchmarks are not timed: those whose code is the same, unless cfg.TimeSameCode or head changed
// the benchmark's own code (it must run once to show that it does not crash). An analysis that
// fails or falls back leaves every benchmark timed, with a note. Only a cancelled context is an
// error.
func (p *pipeline) compareCode(ctx context.Context) (sameCodeRecord, error) {
	rec := sameCodeRecord{same: map[string]bool{}}
	base := p.baseTimed()
	lctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	tops, err := benchrun.List(lctx, base, nil, p.sandbox)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return rec, ctx.Err()
		}
		// The timing phase lists them again and reports the failure there.
		return rec, nil
	}
	if p.tops != nil {
		// A shard runs only its own top-level benchmarks.
		tops = slices.DeleteFunc(tops, func(t string) bool { return !slices.Contains(p.tops, t) })
	}
	rec.tops = tops
	if len(tops) == 0 {
		return rec, nil
	}
	rep, err := analyzeCode(base.Path, p.head.bin, tops)
	switch {
	case err != nil:
		rec.notes = append(rec.notes, "machine code not compared, so every benchmark was timed: "+err.Error())
		p.logf("comparing machine code: %v; timing every benchmark", err)
		return rec, nil
	case rep.Fallback != "" && !rep.Identical:
		rec.notes = append(rec.notes, "machine code not compared, so every benchmark was timed: "+rep.Fallback)
		p.logf("comparing machine code: not analysable (%s); timing every benchmark", rep.Fallback)
		return rec, nil
	}
	rec.analysed, rec.identical = true, rep.Identical
	filter := p.benchFilter()
	for _, t := range tops {
		if !rep.Benchmarks[t].Same {
			continue
		}
		rec.same[t] = true
		if p.cfg.TimeSameCode || slices.Contains(p.source.changed, t) {
			// Head changed this benchmark's own code: both sides run head's (likeForLike), so the
			// machine code is the same, but head's benchmark has never run, and one that crashes or
			// hangs fails the gate.
			continue
		}
		rec.untimed = append(rec.untimed, t)
		if filter == nil || filter.MatchTop(t) {
			rec.shown = append(rec.shown, t)
		}
	}
	p.logf("comparing machine code: %d of %d benchmarks same", len(rec.same), len(tops))
	switch {
	case rep.Identical && p.cfg.TimeSameCode:
		rec.notes = append(rec.notes, "the timed binaries are byte-identical, timed anyway (time-same-code): timing "+
			"differences can only be noise")
	case rep.Identical && len(rec.untimed) == len(tops):
		// Only when nothing is timed: a benchmark whose own code head changed runs even on
		// identical binaries.
		rec.notes = append(rec.notes, "every benchmark is unchanged (same machine code) and nothing was timed")
	case len(rec.same) > 0 && p.cfg.TimeSameCode:
		rec.notes = append(rec.notes, fmt.Sprintf("%s run the same machine code on both sides; timed anyway (time-same-code)",
			benchList(config.SortedKeys(rec.same))))
	case len(rec.untimed) > 0:
		rec.notes = append(rec.notes, fmt.Sprintf("%s run the same machine code on both sides: unchanged without timing",
			benchList(rec.untimed)))
	}
	return rec, nil
}

// timesNothing reports whether every benchmark of base is left untimed, so that no timing lane
// needs to run.
func (r sameCodeRecord) timesNothing() bool {
	return len(r.tops) > 0 && len(r.untimed) == len(r.tops)
}

// sameCodeRows returns one row (sec/op, or instructions/op when only that lane runs) per untimed
// top-level benchmark the bench filter's first level selects: unchanged, no samples, SameCode. Its
// leaves (sub-benchmarks) are found only by running it, so the row carries the top-level name.
func (r sameCodeRecord) sameCodeRows(metric string) []record.Benchmark {
	unit := record.UnitTime
	if metric == record.MetricInstructions {
		unit = record.UnitInstructions // the unit the gate reads
	}
	var out []record.Benchmark
	for _, t := range r.shown {
		out = append(out, record.Benchmark{Name: t, Unit: unit, Class: record.ClassUnchanged, SameCode: true,
			Note: record.NoteSameCode,
			P:    1, PHolm: 1})
	}
	return out
}

// markSameCode sets SameCode on the timed benchmarks whose top-level benchmark's code is the same
// (when they are timed anyway).
func (r sameCodeRecord) markSameCode(bs []record.Benchmark) {
	for i := range bs {
		top, _, _ := strings.Cut(bs[i].Name, "/")
		bs[i].SameCode = r.same[top]
	}
}

// analyzeCode is samecode.Analyze with a panic turned into an error: the binaries hold head's code,
// and a flaw the analysis trips on must cost the comparison its shortcut, not the comparison.
func analyzeCode(baseBin, headBin string, tops []string) (rep *samecode.Report, err error) {
	defer func() {
		if v := recover(); v != nil {
			rep, err = nil, fmt.Errorf("the analysis failed: %v", v)
		}
	}()
	return samecode.Analyze(baseBin, headBin, tops)
}
