// Package why explains the benchmarks a comparison found changed (Explain): for each, the lines and
// functions where its instruction count moved (read with package attribution from the counts the
// lane took and both test binaries), the compiler's -m=2 decisions that differ there, the symbols
// whose size changed, and the diff of both sides' CPU profiles where the count cannot say. The
// compiler reports and the profiling runs share a budget; what does not fit is a note on the Why.
package why

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/attribution"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// The limits of one Why.
const (
	whyTopLines = 20 // lines kept, by change
	whyTopFuncs = 10 // functions kept
	whyAnnotate = 3  // functions annotated with their source
	whyProfile  = 10 // profile rows kept
	// whyProfileTime is how long each side's profiling run should last: 100 samples at the
	// profiler's 100 Hz; whyProfileMin the least worth taking (10 samples), and whyProfileStart
	// what a run costs besides (the process, writing the profile).
	whyProfileTime  = time.Second
	whyProfileMin   = 100 * time.Millisecond
	whyProfileStart = 300 * time.Millisecond
)

// whyTarget is a benchmark to explain.
type whyTarget struct {
	name, pkg string
	class     record.Class // the gating unit's
	// profile: the count cannot say (the lane did not run or did not count it, or its class
	// disagrees with the wall time's, or it did not move where the time is inconclusive), so the
	// CPU profiles are diffed.
	profile  bool
	secPerOp float64 // the slower side's sec/op, 0 when not timed
	// rank orders the targets for the time the profiles may take, most wanted first (the why…
	// constants), and says whether an explanation that found nothing is worth a block of the
	// comment.
	rank int
}

// The reasons a benchmark is explained, most wanted first.
const (
	whyChanged = iota // a row of a unit that gates is slower or faster
	// a row of a unit that gates is inconclusive and not ruled out: a gate reason names it
	whyBlocks
	// its instructions/op moved beyond their threshold (the work changed) where time did not say
	whyCountMoved
	whyNotCounted // its time is inconclusive and no count says whether its work changed
)

// whyTargets returns the benchmarks to explain, most wanted first (rank), in the order of bs within
// a rank:
//   - those with a row classed slower or faster in a unit that gates (gate.Policy.Fails under
//     metric), which are also those a gate reason names for being slower;
//   - those with an inconclusive row of a unit that gates that the gate does not rule out (m's
//     thresholds), which a gate reason names as blocking; profiled unless their count moved;
//   - those whose instructions/op row is slower or faster, though the unit does not gate, and which
//     no unit that gates settled as unchanged: the count moved beyond its threshold, so the work
//     changed, and the counts say where;
//   - those with an inconclusive row of a unit that gates and no usable count (counted, Uncounted),
//     profiled: nothing else says anything of them.
//
// A benchmark unchanged on every lane is not explained.
func whyTargets(bs []record.Benchmark, p gate.Policy, m record.Method, counted map[string]bool) []whyTarget {
	type facts struct {
		t                            whyTarget
		changed, blocks, inconc      bool
		countMoved, uncounted, noted bool
		gateClass                    bool // t.class is a unit's that gates
	}
	byName := map[string]*facts{}
	var names []string
	for _, b := range bs {
		f := byName[b.Name]
		if f == nil {
			f = &facts{t: whyTarget{name: b.Name, pkg: b.Package}}
			byName[b.Name] = f
			names = append(names, b.Name)
		}
		gates := p.Fails(m.Metric, b.Unit)
		switch {
		case gates && (b.Class == record.ClassSlower || b.Class == record.ClassFaster):
			f.changed, f.t.class = true, b.Class
		case gates && b.Class == record.ClassInconclusive:
			f.inconc = true
			f.blocks = f.blocks || !p.RulesOut(m, b)
			if !f.changed {
				f.t.class = b.Class
			}
		case gates && !f.gateClass:
			f.t.class = b.Class
		}
		f.gateClass = f.gateClass || gates
		switch b.Unit {
		case record.UnitTime:
			// the slower side's, which the profiling runs wait for
			f.t.secPerOp = max(b.Base.Center, b.Head.Center)
			f.noted = f.noted || b.MetricNote != ""
			f.uncounted = f.uncounted || b.Uncounted != ""
		case record.UnitInstructions:
			if f.t.class == "" {
				f.t.class = b.Class // a class until a unit that gates gives one
			}
			f.noted = f.noted || b.MetricNote != ""
			f.uncounted = f.uncounted || b.Uncounted != ""
			f.countMoved = f.countMoved || b.Class == record.ClassSlower || b.Class == record.ClassFaster
		}
	}
	var out []whyTarget
	for _, name := range names {
		f := byName[name]
		t := f.t
		noCount := f.uncounted || !counted[name]
		switch {
		case f.changed:
			t.rank, t.profile = whyChanged, f.noted || noCount
		case f.blocks:
			t.rank, t.profile = whyBlocks, noCount || !f.countMoved
		case f.countMoved && !(f.gateClass && t.class == record.ClassUnchanged):
			// A class a gating unit settled as unchanged (time under auto) is what the user sees:
			// nothing for an unchanged benchmark, whatever its count did.
			t.rank, t.profile = whyCountMoved, noCount
		case f.inconc && noCount:
			t.rank, t.profile = whyNotCounted, true
		default:
			continue
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b whyTarget) int { return a.rank - b.rank })
	return out
}

// Config is what Explain is given of a comparison.
type Config struct {
	// Benchmarks are the comparison's rows; Policy and Method say which units gate and their
	// thresholds.
	Benchmarks []record.Benchmark
	Policy     gate.Policy
	Method     record.Method
	// Counted reports whether the instruction-count lane ran; Addrs holds its per-address counts
	// (benchrun.Run.Addrs) by benchmark, and Iters each leaf's iterations.
	Counted bool
	Addrs   map[string]map[record.Side]map[uint64]float64
	Iters   map[string]int
	// Run is what the lanes ran with: its binaries are the ones the counts' addresses belong to.
	Run benchrun.RunConfig
	// ImportPath is the gated package's; Sources read each side's source files (base, head).
	ImportPath string
	Sources    [2]attribution.Sources
	// Symbols are the symbol sizes of the comparison (Result.Sizes.Symbols).
	Symbols []record.SymbolSize
	// Decisions returns the compiler's -m=2 report of a side, within limit.
	Decisions func(ctx context.Context, side record.Side, limit time.Duration) ([]byte, error)
	// Budget is the time the -m=2 builds and the profiling runs may take together.
	Budget time.Duration
	// Dir is where the CPU profiles are written; Rel is its path relative to the results directory
	// the comparison's files are named from ("" for the same).
	Dir results.Dir
	Rel string
	// Logf prints a line of progress.
	Logf func(format string, args ...any)
}

// whyState is what the phase shares between benchmarks: both binaries opened once, both sides'
// sources, the compiler's decisions once, and what is left of the budget.
type whyState struct {
	cfg *Config
	// left is what remains of the time the -m=2 builds and the profiling runs may take; the
	// attribution itself reads counts already taken and is not charged.
	left      time.Duration
	bins      [2]*attribution.Binary // base, head
	binErr    error
	decisions [2][]attribution.Decision
	// why the decisions are missing, "" when they are there (or not asked for yet)
	decisionsErr string
	decided      bool
	profiled     int // profiles written so far (their number in the file names)
}

// Explain says, for every benchmark that changed, where its instruction count moved (by line
// and function, from the counts the lane already took), what the compiler decided differently about
// the functions there, which of those functions' symbols changed size, and, where the count cannot
// say, how CPU profiles of the two sides differ (taken after the timed rounds). It never fails the
// comparison: what it cannot do is a note on the benchmark's Why.
func Explain(ctx context.Context, cfg Config) []record.Why {
	counted := map[string]bool{}
	for name := range cfg.Addrs {
		counted[name] = true
	}
	targets := whyTargets(cfg.Benchmarks, cfg.Policy, cfg.Method, counted)
	if len(targets) == 0 {
		return nil
	}
	st := &whyState{cfg: &cfg, left: cfg.Budget}
	cfg.Logf("explaining %s (at most %s for compiler reports and profiles)", text.Plural(len(targets),
		"changed benchmark"), cfg.Budget.Round(time.Second))
	var whys []record.Why
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		w := st.explainOne(ctx, t)
		if t.rank >= whyCountMoved && len(w.Lines) == 0 && len(w.Profile) == 0 {
			// not asked for by the gate, and nothing found: a block of notes would only take room
			continue
		}
		whys = append(whys, w)
	}
	return whys
}

// explainOne is the Why of one target. A panic in reading the binaries, the sources or the profiles
// (they are the repository's) becomes a note: explaining never fails the comparison.
func (st *whyState) explainOne(ctx context.Context, t whyTarget) (w record.Why) {
	w = record.Why{Name: t.name, Package: t.pkg, Class: t.class}
	defer func() {
		if e := recover(); e != nil {
			w.Notes = append(w.Notes, fmt.Sprintf("explaining stopped: %v", e))
		}
	}()
	if addrs := st.cfg.Addrs[t.name]; addrs != nil {
		st.attribute(ctx, &w, addrs)
	} else if st.cfg.Counted {
		w.Notes = append(w.Notes, "the instruction-count lane has no count of it, so no line is named")
	}
	if t.profile {
		st.profile(ctx, &w, t, st.cfg.Iters[t.name])
	}
	return w
}

// attribute fills w from the per-address counts of both sides.
func (st *whyState) attribute(ctx context.Context, w *record.Why, addrs map[record.Side]map[uint64]float64) {
	bc, hc := attribution.Counts(addrs[record.Base]), attribution.Counts(addrs[record.Head])
	if bc == nil || hc == nil {
		w.Notes = append(w.Notes, "the count lane kept the addresses of one side only, so no line is named")
		return
	}
	if st.bins[0] == nil && st.binErr == nil {
		for i, path := range []string{st.cfg.Run.Base.Path, st.cfg.Run.Head.Path} {
			if st.bins[i], st.binErr = attribution.Open(path); st.binErr != nil {
				break
			}
		}
	}
	if st.binErr != nil {
		w.Notes = append(w.Notes, "no line is named: "+st.binErr.Error())
		return
	}
	a := attribution.Attribute(st.bins[0], st.bins[1], bc, hc, st.cfg.Sources[0], st.cfg.Sources[1])
	w.Unit, w.BaseCount, w.HeadCount = record.UnitInstructions, a.Base, a.Head
	share := func(d float64) float64 {
		if s := a.Share(d); !math.IsNaN(s) {
			return s
		}
		return 0
	}
	for _, l := range a.Lines[:min(len(a.Lines), whyTopLines)] {
		w.Lines = append(w.Lines, record.WhyLine{File: l.File, Line: l.Line, BaseLine: l.BaseLine, Func: l.Func,
			Inlined: l.Inlined, Base: l.Base, Head: l.Head, Share: share(l.Delta())})
	}
	for _, f := range a.Funcs[:min(len(a.Funcs), whyTopFuncs)] {
		w.Funcs = append(w.Funcs, record.WhyFunc{Func: f.Func, Base: f.Base, Head: f.Head, Share: share(f.Delta())})
	}
	if r := a.Replaced; r != nil {
		w.Replaced = &record.WhyReplaced{Func: r.Base.Func, Base: r.Base.Base, By: r.By.Func, Head: r.By.Head}
	}
	// The functions to annotate and explain: those of the top lines, the inlined ones first (the
	// line is theirs), then the top functions.
	var fns []string
	add := func(fn string) {
		if fn != "" && !slices.Contains(fns, fn) {
			fns = append(fns, fn)
		}
	}
	for _, l := range a.Lines[:min(len(a.Lines), whyAnnotate)] {
		add(l.Inlined)
		add(l.Func)
	}
	for _, f := range a.Funcs[:min(len(a.Funcs), whyAnnotate)] {
		add(f.Func)
	}
	for _, fn := range fns {
		if len(w.Annotated) == whyAnnotate {
			break
		}
		an, err := attribution.Annotate(st.bins[0], st.bins[1], bc, hc, st.cfg.Sources[0], st.cfg.Sources[1], fn)
		if err != nil {
			continue // a function of the standard library or a dependency: no source in the trees
		}
		wa := record.WhyAnnotated{Func: an.Func, File: an.File}
		for _, r := range an.Rows {
			wa.Lines = append(wa.Lines, record.WhySourceRow{Line: r.Line, BaseLine: r.BaseLine, Text: r.Text,
				Base: r.Base, Head: r.Head})
		}
		w.Annotated = append(w.Annotated, wa)
	}
	if len(a.Lines) == 0 {
		w.Notes = append(w.Notes, "the counted instructions moved on no source line (the change is in code the lane "+
			"does not count: the runtime's, or the testing package's)")
		return
	}
	st.compiler(ctx, w, fns)
	w.Symbols = changedSymbols(st.cfg.Symbols, fns)
}

// compiler adds to w the compiler's decisions that differ between the sides for the functions fns
// (symbols) of the gated package: the -m=2 reports of both sides, built once, within the budget.
func (st *whyState) compiler(ctx context.Context, w *record.Why, fns []string) {
	if !st.decided {
		st.decided = true
		if st.left <= 0 {
			st.decisionsErr = "the compiler's decisions were not compared: the time for explaining was spent"
		} else {
			// Both sides at once: nothing is timed now. The reports are functions of the sides'
			// code, kept in the store under their test binaries' digests.
			var outs [2][]byte
			var errs [2]error
			var wg sync.WaitGroup
			t0 := time.Now()
			for i, s := range []record.Side{record.Base, record.Head} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					outs[i], errs[i] = st.cfg.Decisions(ctx, s, st.left)
				}()
			}
			wg.Wait()
			st.left -= time.Since(t0)
			for i, err := range errs {
				if err != nil {
					st.decisionsErr = "the compiler's decisions were not compared: " + err.Error()
					break
				}
				st.decisions[i] = attribution.ParseDecisions(outs[i], st.cfg.Sources[i])
			}
		}
	}
	if st.decisionsErr != "" {
		w.Notes = append(w.Notes, st.decisionsErr)
		return
	}
	only := map[string]bool{}
	for _, fn := range fns {
		if rest, ok := strings.CutPrefix(fn, st.cfg.ImportPath+"."); ok {
			only[rest] = true
		}
	}
	if len(only) == 0 {
		return
	}
	for _, c := range attribution.DiffDecisions(st.decisions[0], st.decisions[1], only) {
		w.Compiler = append(w.Compiler, c.Text)
	}
}

// changedSymbols returns the symbols of fns whose size differs between the sides (of syms,
// Result.Sizes.Symbols), largest change first.
func changedSymbols(syms []record.SymbolSize, fns []string) []record.SymbolSize {
	var out []record.SymbolSize
	for _, s := range syms {
		if s.Delta != 0 && slices.Contains(fns, s.Name) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b record.SymbolSize) int {
		return int(max(-1, min(1, abs64(b.Delta)-abs64(a.Delta))))
	})
	return out
}

// abs64 returns the absolute value of x.
func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// profile runs the benchmark once per side with the CPU profiler, after the timed rounds, writes
// both profiles into the results directory and adds their diff to w, when the budget has room for
// it.
func (st *whyState) profile(ctx context.Context, w *record.Why, t whyTarget, iters int) {
	if t.secPerOp <= 0 && iters <= 0 {
		w.Notes = append(w.Notes, "no CPU profile: the benchmark was not timed")
		return
	}
	// Each side runs for whyProfileTime, or for a third of what half the time left allows (room for
	// a loaded machine), but never for less than whyProfileMin (too few samples to say anything).
	length := min(whyProfileTime, (st.left/2-whyProfileStart)/3)
	if length < whyProfileMin {
		w.Notes = append(w.Notes, fmt.Sprintf("no CPU profile: %s of the time for explaining is left, too little for "+
			"two profiling runs of %s", max(st.left, 0).Round(100*time.Millisecond), whyProfileMin))
		return
	}
	n := iters
	if t.secPerOp > 0 {
		n = max(1, int(length.Seconds()/t.secPerOp))
	}
	prc := st.cfg.Run
	prc.Progress, prc.BenchTxt, prc.Counts = nil, nil, nil
	prc.Timeout = st.left
	t0 := time.Now()
	runs, err := benchrun.Profile(ctx, prc, t.name, n, t.secPerOp)
	st.left -= time.Since(t0)
	if err != nil {
		w.Notes = append(w.Notes, "no CPU profile: "+err.Error())
		return
	}
	st.profiled++
	files := map[record.Side]string{}
	for _, side := range []record.Side{record.Base, record.Head} {
		if err := st.cfg.Dir.WriteProfile(side, st.profiled, runs[side].Profile); err != nil {
			w.Notes = append(w.Notes, "the CPU profiles were not kept: "+err.Error())
			files = nil
			break
		}
		files[side] = path.Join(st.cfg.Rel, results.CPUProfile(side, st.profiled))
	}
	if files != nil {
		w.ProfileFiles = files
	}
	bp, err := attribution.ReadProfile(bytes.NewReader(runs[record.Base].Profile))
	if err != nil {
		w.Notes = append(w.Notes, "base's CPU profile: "+err.Error())
		return
	}
	hp, err := attribution.ReadProfile(bytes.NewReader(runs[record.Head].Profile))
	if err != nil {
		w.Notes = append(w.Notes, "head's CPU profile: "+err.Error())
		return
	}
	ds, err := attribution.DiffProfiles(bp, hp, int64(runs[record.Base].Iters), int64(runs[record.Head].Iters))
	if err != nil {
		w.Notes = append(w.Notes, "CPU profiles not compared: "+err.Error())
		return
	}
	for _, d := range ds[:min(len(ds), whyProfile)] {
		w.Profile = append(w.Profile, record.WhyProfile{Func: d.Func, BaseFlat: d.BaseFlat, HeadFlat: d.HeadFlat,
			BaseCum: d.BaseCum, HeadCum: d.HeadCum})
	}
}
