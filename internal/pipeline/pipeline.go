package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/check/consttime"
	"github.com/perfgate/perfgate/internal/check/differential"
	"github.com/perfgate/perfgate/internal/check/sizes"
	"github.com/perfgate/perfgate/internal/check/subject"
	"github.com/perfgate/perfgate/internal/data/bench"
	"github.com/perfgate/perfgate/internal/data/config"
	"github.com/perfgate/perfgate/internal/data/gate"
	"github.com/perfgate/perfgate/internal/data/results"
	"github.com/perfgate/perfgate/internal/host/proc"
	"github.com/perfgate/perfgate/internal/host/sandbox"
	"github.com/perfgate/perfgate/internal/host/valgrind"
	"github.com/perfgate/perfgate/internal/lane/benchrun"
	"github.com/perfgate/perfgate/internal/lane/gobuild"
	"github.com/perfgate/perfgate/internal/leaf/gitsrc"
	"github.com/perfgate/perfgate/internal/leaf/store"
	"github.com/perfgate/perfgate/record"
)

// side is one revision on its way through the pipeline.
type side struct {
	name   record.Side
	rev    record.Revision
	tree   *gitsrc.Tree // the exported tree
	modDir string       // the root of the module that contains the gated package, inside the tree
	// the gated package as the go command in modDir names it: "./x/y", "." or an import path
	pkg    string
	pkgDir string // the gated package's directory inside the tree
	// what go list printed on standard error (modules it downloaded), for the build log
	listLog []byte
	bin     string // the test binary
	sha     string // bin's SHA-256 right after the build, before any repository code ran
	built   bool
}

// binary is the side's test binary as bench runs it: sealed, running in the package's directory.
func (s *side) binary(commit string) benchrun.Binary {
	return benchrun.Binary{Path: s.bin, Dir: s.pkgDir, Commit: commit, SHA256: s.sha}
}

// Run runs the whole comparison for cfg: it exports both revisions, builds their test binaries,
// runs the package's tests, the differential check, the size measurement and the A–B–B–A
// benchmarks, and writes the results directory cfg.Out (ResultsDir; report.md is the caller's,
// rendered by package report). Each phase returns its own record and assemble puts them into the
// Result, whose Verdict is Decide's.
//
// Run returns the Result even when it also returns an error: whatever was gathered before the error
// is kept, and Result.Verdict says what the gate makes of it. An error means the comparison could
// not run (ExitCode(err)); a failed gate is not an error.
func Run(ctx context.Context, cfg config.Config) (*record.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logw := io.Discard
	if cfg.Log != nil {
		logw = &progressLog{w: cfg.Log, last: time.Now()}
	}
	p := &pipeline{cfg: cfg, log: logw, dir: results.Dir(cfg.Out), started: time.Now().UTC().Truncate(time.Second),
		phases: &phases{}}
	p.bench.pinnedCPU, p.packages.pinnedCPU = -1, -1
	// What the user asked for, so that a report of a run stopped before both revisions resolved
	// still names them.
	p.base.rev.Ref, p.head.rev.Ref = cfg.Base, cfg.Head
	if cfg.Base == "" {
		p.base.rev.Ref = "merge-base(HEAD, default branch)"
	}
	if cfg.Head == "" {
		p.head.rev.Ref = "working tree"
	}
	err := p.run(ctx)
	incomplete := ctx.Err() != nil
	// An error caused by the context's end (however deep in a phase it surfaced: proc.Error unwraps
	// to it) is the interruption.
	if incomplete && (err == nil || errors.Is(err, ctx.Err())) {
		err = fmt.Errorf("comparison interrupted: %w", ctx.Err())
	}
	env := CollectEnv(context.Background(), p.pinnedCPU())
	env.Valgrind = p.valgrind.Version
	if vg := p.valgrind.Path; vg != "" || p.constantTimeMode() != record.CTOff {
		if vg == "" {
			vg = "valgrind"
			if full, lerr := exec.LookPath(vg); lerr == nil {
				vg = full
			}
		}
		if h, herr := valgrind.Probe(context.Background(), vg, p.work); herr == nil {
			// the lane or the trace probed it already: the answer is kept
			env.ValgrindGODEBUG = h.Off
		}
	}
	res := p.assemble(env, incomplete)
	if p.sandbox != nil {
		g := p.sandbox.Guarantee()
		res.Sandbox = &g
	}
	res = gate.Apply(res, gate.Stopped(gate.Decide(res, cfg.Policy()), config.ExitCode(err), err))
	if p.multi() && res.Differential.Status != record.DiffSkipped {
		if werr := p.dir.WriteDifferential(&res.Differential); werr != nil && err == nil {
			err = werr
		}
	}
	if p.multi() && res.ConstantTime != nil {
		if werr := p.writeConstantTimeSARIF(res.ConstantTime); werr != nil && err == nil {
			err = werr
		}
	}
	if werr := p.dir.WriteEnv(env); werr != nil && err == nil {
		err = werr
	}
	if werr := p.dir.WriteResult(&res); werr != nil && err == nil {
		err = werr
	}
	return &res, err
}

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
			Rounds: cfg.Rounds, BenchTime: cmp.Or(p.bench.runTime, cfg.BenchTime), Threshold: cfg.Threshold, Alpha: cfg.Alpha,
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

// pipeline is one comparison on its way: the sides, and each phase's record once the phase has run.
type pipeline struct {
	cfg     config.Config
	log     io.Writer
	dir     results.Dir
	started time.Time
	work    string // temporary directory: trees and binaries
	// what the revisions leave out, such as the uncommitted edits of an explicit HEAD
	revNotes   []string
	base, head side
	rel        string // cfg.Dir relative to the repository root, slash-separated ("." for the root)
	importPath string
	valgrind   valgrind.Program // found up front when the instruction-count lane runs
	autoHint   string           // why metric auto fell back to time, "" when it did not
	sandbox    *sandbox.Sandbox // confines every process that runs the repository's code
	store      *store.Store     // artifacts kept between runs; nil when off
	// each phase's wall time, for the method; shared with the packages' pipelines
	phases *phases

	session    sessionRecord
	build      buildRecord
	source     benchSourceRecord
	code       sameCodeRecord
	functional functionalRecord
	diff       record.Differential
	ct         *record.ConstantTime
	sizes      record.Sizes
	bench      benchRecord
	why        []record.Why

	// A package of several, or of a shard, runs in a pipeline of its own (forPackage) with these
	// set.
	skipChecks bool     // another shard runs the tests, the differential check and the sizes
	tops       []string // the top-level benchmarks to run; nil for all
	// packages is what runPackages did when the comparison gates several packages or is a shard.
	packages packagesRecord
}

// writeLog keeps a tool's output in the results directory; failing to is worth a warning, not an
// error.
func (p *pipeline) writeLog(name string, data []byte) {
	if err := p.dir.WriteLog(name, data); err != nil {
		p.logf("warning: %v", err)
	}
}

func (p *pipeline) logf(format string, args ...any) {
	fmt.Fprintf(p.log, "perfgate: "+format+"\n", args...)
}

func (p *pipeline) run(ctx context.Context) error {
	if err := p.dir.Create(); err != nil {
		return err
	}
	if p.cfg.CountsInstructions() {
		// Up front: an hour of building and testing is not worth spending on a lane that cannot
		// run.
		vg, err := valgrind.Find(ctx, "", "the instruction-count lane needs it")
		if err != nil && p.cfg.Metric == record.MetricAuto {
			p.cfg.Metric = record.MetricTime // auto without valgrind is wall time, and says so
			p.autoHint = "metric auto: valgrind not found, so wall time alone classes the benchmarks; install " +
				"valgrind for the instruction count that settles what wall time leaves open"
			p.logf("hint: %s", p.autoHint)
		} else if err != nil {
			return err
		}
		p.valgrind = vg
	}
	work, err := os.MkdirTemp("", "perfgate-")
	if err != nil {
		return err
	}
	p.work = work
	defer os.RemoveAll(work)
	if err := p.startSandbox(); err != nil {
		return err
	}
	p.openStore()

	if err := p.timePhase("export", func() error { return p.export(ctx) }); err != nil {
		return err
	}
	if o := p.cfg.PolicyOrigin; o.From == record.Base && o.BaseCommit != p.base.rev.Commit {
		return fmt.Errorf("the gate policy was read at base %s, but base is %s", o.BaseCommit, p.base.rev.Commit)
	}
	if p.multi() {
		return p.runPackages(ctx)
	}
	return p.runPackage(ctx)
}

// runPackage runs the phases of one package on the exported trees: inspect, build, then (unless
// skipChecks) the tests, the differential check and the sizes, then the benchmarks (only tops, when
// tops is not nil). Several packages or shards run it once per package (runPackages) and combine
// the records.
func (p *pipeline) runPackage(ctx context.Context) error {
	err := p.timePhase("build", func() error {
		build, err := p.inspect(ctx)
		if err != nil {
			return err
		}
		p.build, err = p.buildBoth(ctx, build)
		if err != nil || p.build.headFailed {
			return err
		}
		p.source, err = p.likeForLike(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if p.build.headFailed {
		return nil // the gate fails; nothing else can run on head
	}
	// Every binary is built now, and no repository code has run yet: what runs from here on is
	// checked against these seals. The differential check builds both harnesses before it runs
	// either.
	if err := p.seal(); err != nil {
		return err
	}
	if !p.skipChecks {
		// The constant-time drivers are built and sealed before any repository code runs too, and
		// traced before the package's tests.
		var ctPrep *consttime.Prepared
		err := p.timePhase("constant-time build", func() (err error) {
			ctPrep, err = p.prepareConstantTime(ctx)
			return err
		})
		if err != nil {
			return err
		}
		if ctPrep != nil {
			defer ctPrep.Close()
		}
		if p.cfg.Differential {
			err := p.timePhase("differential", func() (err error) {
				p.diff, err = p.checkDifferential(ctx)
				return err
			})
			if err != nil {
				return err
			}
		}
		err = p.timePhase("constant time", func() (err error) {
			p.ct, err = p.traceConstantTime(ctx, ctPrep)
			return err
		})
		if err != nil {
			return err
		}
		p.timePhase("tests", func() error { p.functional = p.runTests(ctx); return nil })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := p.verifySealed(); err != nil {
			return err
		}
		p.timePhase("sizes", func() error { p.sizes = p.measureSizes(); return nil })
	}
	if p.tops != nil && len(p.tops) == 0 {
		return nil
	}
	if err := p.verifySealed(); err != nil {
		return err
	}
	err = p.timePhase("machine code", func() (err error) {
		p.code, err = p.compareCode(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if err := p.checkBenchSelects(p.code.tops); err != nil {
		return err
	}
	var b benchRecord
	err = p.timePhase(p.lanesPhase(), func() (err error) {
		b, err = p.runBenchmarks(ctx)
		return err
	})
	p.bench = b
	if err == nil {
		err = p.verifySealed()
	}
	if err == nil {
		// After every timed round: explaining reads the counts, and profiles only now.
		p.timePhase("why", func() error { p.why = p.explain(ctx, b, b.rc); return nil })
	}
	if err == nil && p.cfg.TimesBenchmarks() {
		// gate-units name units of the timing lane; under metric instructions it does not run, and
		// instructions/op gates by itself.
		err = config.CheckGateUnits(p.cfg.GateUnits, b.benchmarks)
	}
	return err
}

// export resolves both revisions and writes their trees into the work directory.
func (p *pipeline) export(ctx context.Context) (err error) {
	// Until both trees are out, the Result names the revisions as they were asked for.
	asked := [2]record.Revision{p.base.rev, p.head.rev}
	defer func() {
		if err != nil {
			p.base.rev, p.head.rev = asked[0], asked[1]
		}
	}()
	repo, err := gitsrc.Open(p.cfg.Dir)
	if err != nil {
		return err
	}
	p.rel = repo.Rel()
	var baseCommit *gitsrc.Commit
	if p.cfg.Base == "" {
		c, branch, err := repo.DefaultBase()
		if err != nil {
			return err
		}
		baseCommit = c
		p.base.rev = record.Revision{Ref: "merge-base(HEAD, " + branch + ")"}
	} else {
		c, err := repo.Resolve(p.cfg.Base)
		if err != nil {
			return err
		}
		baseCommit = c
		p.base.rev = record.Revision{Ref: p.cfg.Base}
	}
	p.base.rev.Commit, p.base.rev.Subject = baseCommit.SHA, baseCommit.Subject
	p.base.name, p.head.name = record.Base, record.Head

	var headCommit *gitsrc.Commit
	if p.cfg.Head == "" {
		if headCommit, err = repo.Head(); err != nil {
			return err
		}
		p.head.rev = record.Revision{Ref: "working tree"}
	} else {
		if headCommit, err = repo.Resolve(p.cfg.Head); err != nil {
			return err
		}
		p.head.rev = record.Revision{Ref: p.cfg.Head}
		if note := uncommittedNote(ctx, repo, p.cfg.Head, headCommit); note != "" {
			p.logf("%s", note)
			p.revNotes = append(p.revNotes, note)
		}
	}
	p.head.rev.Commit, p.head.rev.Subject = headCommit.SHA, headCommit.Subject

	p.logf("exporting base %s (%s)", p.base.rev.Ref, baseCommit.Short())
	bt, err := repo.ExportTemp(ctx, baseCommit, p.work)
	if err != nil {
		return fmt.Errorf("exporting base: %w", err)
	}
	var ht *gitsrc.Tree
	if p.cfg.Head == "" {
		p.logf("copying the working tree as head")
		ht, err = repo.ExportWorktreeTemp(ctx, p.work)
	} else {
		p.logf("exporting head %s (%s)", p.cfg.Head, headCommit.Short())
		ht, err = repo.ExportTemp(ctx, headCommit, p.work)
	}
	if err != nil {
		return fmt.Errorf("exporting head: %w", err)
	}
	p.head.rev.Dirty = ht.Dirty
	p.base.tree, p.head.tree = bt, ht
	for _, s := range []*side{&p.base, &p.head} {
		s.bin = filepath.Join(p.work, string(s.name)+".test")
	}
	return nil
}

// buildBoth builds both test binaries with identical flags and one cache, and adds what it found to
// rec, the record of inspect. A base that does not build is an error; a head that does not build
// fails the gate.
func (p *pipeline) buildBoth(ctx context.Context, rec buildRecord) (buildRecord, error) {
	for _, s := range []*side{&p.base, &p.head} {
		if s.name == record.Head && rec.headFailed {
			break
		}
		p.logf("building %s test binary", s.name)
		log, err := gobuild.Build(ctx, s.name, p.buildConfig(s))
		p.logDownloads(s, log)
		p.writeLog("build-"+string(s.name)+".log", append(s.listLog, log...))
		if err != nil {
			if s.name == record.Head && ctx.Err() == nil && !errors.Is(err, gobuild.ErrNoTests) {
				rec.headFailed = true
				rec.notes = append(rec.notes, "head does not build: "+err.Error())
				return rec, nil
			}
			return rec, err
		}
		s.built = true
	}
	if same, err := gobuild.SameBinary(p.base.bin, p.head.bin); err == nil && same {
		rec.binariesSame = true
		rec.notes = append(rec.notes, "base and head test binaries are byte-identical")
	}
	return rec, nil
}

func (p *pipeline) buildConfig(s *side) gobuild.Config {
	return gobuild.Config{Dir: s.modDir, Root: s.tree.Dir, Pkg: s.pkg, Out: s.bin, Tags: p.cfg.Tags, Cache: p.cfg.Cache,
		Timeout: proc.BuildLimit(p.cfg.Timeout)}
}

// logDownloads shows the "go: downloading …" lines of a go command's output in the progress log.
// Modules fetched on a first build are downloaded while the package is inspected and built, before
// anything is timed; the full output stays in the side's build log.
func (p *pipeline) logDownloads(s *side, out []byte) {
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "go: downloading ") {
			p.logf("%s: %s", s.name, line)
		}
	}
}

// inspect finds the gated package in both trees: its import path (for the size measurement) and its
// directory (the working directory of its test binary). A package without tests cannot be compared.
func (p *pipeline) inspect(ctx context.Context) (buildRecord, error) {
	var rec buildRecord
	headErr, err := p.locate()
	if err != nil {
		return rec, err
	}
	for _, s := range []*side{&p.base, &p.head} {
		var info *bench.PackageInfo
		if s.name == record.Head && headErr == nil {
			info, headErr = gobuild.Inspect(ctx, p.buildConfig(s))
		}
		if s.name == record.Head && headErr != nil {
			rec.headFailed = true
			rec.notes = append(rec.notes, "head: "+headErr.Error())
			return rec, nil
		}
		if s.name == record.Base {
			if info, err = gobuild.Inspect(ctx, p.buildConfig(s)); err != nil {
				var nf *gobuild.NotFoundError
				if errors.As(err, &nf) {
					return rec, p.notOnBase(ctx, nf)
				}
				return rec, fmt.Errorf("base: %w", err)
			}
		}
		p.logDownloads(s, info.Log)
		if len(info.Log) > 0 {
			s.listLog = append([]byte("$ go list "+s.pkg+"\n"), info.Log...)
		}
		if !info.HasTests {
			return rec, fmt.Errorf("%s: package %s has no test files, so no benchmarks to compare", s.name, info.ImportPath)
		}
		s.pkgDir = info.Dir
		p.importPath = info.ImportPath
	}
	return rec, nil
}

// runTests runs the package's own tests (-test.short) from each side's test binary.
func (p *pipeline) runTests(ctx context.Context) functionalRecord {
	var rec functionalRecord
	for _, s := range []*side{&p.base, &p.head} {
		p.logf("running %s tests", s.name)
		out, errb, err := p.runTestBinary(ctx, s)
		all := append(out, errb...)
		p.writeLog("test-"+string(s.name)+".log", all)
		run := record.TestRun{Ran: true, Passed: err == nil}
		if err != nil {
			run.Output = proc.Tail(all, 40)
			if pe := (*proc.Error)(nil); errors.As(err, &pe) && pe.Limit > 0 {
				run.Output += fmt.Sprintf("\n(killed after %s)", p.cfg.Timeout)
			}
		}
		if s.name == record.Base {
			rec.functional.Base = run
			if !run.Passed {
				rec.notes = append(rec.notes, "base's tests fail; this does not block the gate")
			}
		} else {
			rec.functional.Head = run
		}
	}
	return rec
}

// checkDifferential runs the differential check and writes differential.json. Only a cancelled
// context or a results directory that cannot be written is an error: a check that perfgate cannot
// run has status error, which Decide makes the verdict's.
func (p *pipeline) checkDifferential(ctx context.Context) (record.Differential, error) {
	workDir := filepath.Join(p.work, "differential")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return record.Differential{}, err
	}
	// The differential names one package for both sides: relative to each module root when the
	// sides agree on it, else each side's package directory itself.
	baseDir, headDir, pkg := p.base.modDir, p.head.modDir, p.base.pkg
	if p.base.pkg != p.head.pkg {
		baseDir, headDir, pkg = p.base.pkgDir, p.head.pkgDir, "."
	}
	rep, err := differential.Check(ctx, differential.Config{
		Sides: subject.Sides{BaseDir: baseDir, HeadDir: headDir, Pkg: pkg, Seed: p.cfg.Seed, Tags: p.cfg.Tags,
			Cache: p.cfg.Cache, Timeout: p.cfg.Timeout, WorkDir: workDir, Store: p.store,
			Log: &linePrefixer{w: p.log, prefix: "perfgate: "}, Sandbox: p.sandbox},
		Constructors: p.cfg.Constructors, Keys: p.cfg.Keys, Blocks: p.cfg.Blocks,
		MessageKeys: p.cfg.MessageKeys, MessageBlocks: p.cfg.MessageBlocks, Oracles: p.cfg.Oracles,
	})
	if err != nil {
		if ctx.Err() != nil {
			return record.Differential{}, ctx.Err()
		}
		// perfgate could not run the check (a constructor named in the configuration that neither
		// side has, a work directory it cannot write): that is not a finding about the code, and
		// the gate must not pass on it.
		return record.Differential{Status: record.DiffError, Reason: err.Error(), Seed: p.cfg.Seed,
			Ciphers: []record.Cipher{}}, nil
	}
	d := record.Differential(*rep)
	d.Package = p.cfg.Package // as the user named it, not as it was passed to one module
	return d, p.dir.WriteDifferential(&d)
}

// measureSizes measures the package in both test binaries and writes sizes.txt. A measurement that
// fails is reported in Sizes.Error, not as an error.
func (p *pipeline) measureSizes() record.Sizes {
	var got [2]*sizes.Sizes
	for i, s := range []*side{&p.base, &p.head} {
		sz, err := sizes.Measure(s.bin, p.importPath)
		if err != nil {
			return record.Sizes{Sections: []record.SectionSize{}, Symbols: []record.SymbolSize{},
				Error: fmt.Sprintf("measuring %s: %v", s.name, err)}
		}
		got[i] = sz
	}
	d := *sizes.Diff(got[0], got[1])
	if err := p.dir.WriteSizes(func(w io.Writer) error {
		return sizes.WriteBenchfmt(w, got[0], got[1], p.base.rev.Commit, p.head.rev.Commit)
	}); err != nil {
		d.Error = err.Error()
	}
	return d
}

// linePrefixer writes to w with prefix at the start of every line, so that a leaf package's
// progress lines read like perfgate's own.
type linePrefixer struct {
	w       io.Writer
	prefix  string
	midLine bool
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	var b []byte
	for _, c := range p {
		if !l.midLine {
			b = append(b, l.prefix...)
		}
		b = append(b, c)
		l.midLine = c != '\n'
	}
	if _, err := l.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
