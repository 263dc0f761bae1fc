package pipeline

import (
	"cmp"
	"slices"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/record"
)

// The records the phases return; assemble puts them into a Result.
type (
	// sessionRecord is what the comparison as a whole noted before any package ran: how the sandbox
	// is set up.
	sessionRecord struct {
		notes []string
	}
	// buildRecord is what locating, inspecting and building both test binaries found.
	buildRecord struct {
		headFailed   bool // head did not build, or go list failed on it
		binariesSame bool
		notes        []string
	}
	// functionalRecord is the package's own tests on both sides.
	functionalRecord struct {
		functional record.Functional
		notes      []string
	}
	// benchSourceRecord is what base's side times (likeForLike).
	benchSourceRecord struct {
		source  string   // BenchSourceHead or BenchSourceEach
		changed []string // top-level benchmarks whose test code differs
		// base's package built with head's test files, and where it runs; "" for base's own
		baseBin, baseDir string
		baseSHA          string // baseBin's SHA-256 right after its build
		// baseBin is byte-identical to head's test binary: only the tests changed
		timedSame bool
		notes     []string
	}
	// benchRecord is the A–B–B–A run turned into benchmarks.
	benchRecord struct {
		benchmarks []record.Benchmark
		failures   []record.Failure
		pinnedCPU  int // -1 when unpinned
		noise, mde float64
		timed      time.Duration
		stages     int // stages of a budgeted run
		// the length of one run, after a budget shortened it; 0 when nothing was timed
		runTime time.Duration
		settled int // benchmarks (sec/op) settled for the gate (bench.SettledForGate)
		steady  *record.Steady
		notes   []string
		// What the why phase reads: the count lane's per-address counts (benchrun.Run.Addrs), each
		// leaf's iterations, and the configuration the lanes ran with.
		addrs map[string]map[record.Side]map[uint64]float64
		iters map[string]int
		rc    benchrun.RunConfig
	}
)

// pinnedCPU is the CPU the benchmarks ran pinned to, -1 when unpinned (or none ran).
func (p *pipeline) pinnedCPU() int {
	if p.multi() {
		return p.packages.pinnedCPU
	}
	return p.bench.pinnedCPU
}

// assemble puts the phases' records into one Result, without a verdict.
func (p *pipeline) assemble(env record.Env, incomplete bool) record.Result {
	if p.multi() {
		return p.assembleParts(env, incomplete)
	}
	cfg := p.cfg
	r := record.Result{
		Schema:          record.Schema,
		Package:         cfg.Package,
		ImportPath:      p.importPath,
		Base:            p.base.rev,
		Head:            p.head.rev,
		Benchmarks:      p.bench.benchmarks,
		Failures:        p.bench.failures,
		Functional:      p.functional.functional,
		Differential:    p.diff,
		ConstantTime:    p.ct,
		Sizes:           p.sizes,
		Why:             p.why,
		Env:             env,
		Incomplete:      incomplete,
		HeadBuildFailed: p.build.headFailed,
		Notes: slices.Concat(p.session.notes, p.revNotes, p.build.notes, p.source.notes, p.code.notes, p.functional.notes,
			p.bench.notes),
		Started:  p.started,
		Duration: time.Since(p.started).Round(time.Millisecond),
		Method: record.Method{
			Rounds: cfg.Rounds, BenchTime: cmp.Or(p.bench.runTime, cfg.BenchTime.Duration), BenchIters: cfg.BenchTime.Iters,
			Threshold: cfg.Threshold, Alpha: cfg.Alpha,
			Estimator: "per round, log(mean head / mean base) of A–B–B–A, disturbed and wild rounds left out; " +
				"Student t-interval over rounds; slower and faster must rule out a change of half the threshold",
			NoiseFloor:   p.bench.noise,
			MedianMDE:    p.bench.mde,
			TimedPhase:   p.bench.timed,
			Phases:       p.phases.get(),
			BinariesSame: p.build.binariesSame || p.source.timedSame,
			Metric:       cfg.Metric,
			BenchSource:  p.source.source,
			BenchChanged: p.source.changed,
			Budget:       cfg.Budget,
			Stages:       p.bench.stages,
			Settled:      p.bench.settled,
			Schedule:     p.sched.method(),
			Steady:       p.bench.steady,
		},
	}
	if cfg.CountsInstructions() {
		r.Method.InstrThreshold = cfg.InstrThreshold
	}
	if cfg.Budget > 0 {
		r.Method.Estimator += "; with a time budget, each of the K planned looks spends alpha/K (Bonferroni over " +
			"looks and benchmarks), settled benchmarks stop"
	}
	p.fillDefaults(&r)
	return r
}

// fillDefaults sets what a Result says when a phase did not run, for one package and for several
// alike: whose policy it is, an empty list of benchmarks, the differential check skipped (and why),
// sizes not measured, and no pinned CPU when nothing ran pinned.
func (p *pipeline) fillDefaults(r *record.Result) {
	r.Policy = p.cfg.PolicyOrigin
	p.sideBuilds(r)
	if r.Policy.From == "" {
		r.Policy.From = record.Head // the configuration as given
	}
	if r.Benchmarks == nil {
		r.Benchmarks = []record.Benchmark{}
	}
	r.Geomeans = bench.Geomeans(r.Benchmarks)
	if r.Differential.Status == "" {
		r.Differential = record.Differential{Status: record.DiffSkipped, Seed: p.cfg.Seed, Ciphers: []record.Cipher{}}
		switch {
		case !p.cfg.Differential:
			r.Differential.Reason = "disabled by configuration"
		case p.packages.plan != nil:
			r.Differential.Reason = "checked in another shard"
		}
	}
	if r.Sizes.Sections == nil && r.Sizes.Error == "" && !p.multi() {
		r.Sizes = record.Sizes{Sections: []record.SectionSize{}, Symbols: []record.SymbolSize{}}
	}
	if p.pinnedCPU() < 0 {
		r.Env.PinnedCPU, r.Env.Pinned = -1, false
	}
}
