package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/differential"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
	"github.com/perfgate/perfgate/results"
	"github.com/perfgate/perfgate/shard"
	"github.com/perfgate/perfgate/sizes"
)

// side is one revision on its way through the pipeline.
type side struct {
	name    bench.Side
	rev     record.Revision
	tree    *gitsrc.Tree // the exported tree
	modDir  string       // the root of the module that contains the gated package, inside the tree
	pkg     string       // the gated package as the go command in modDir names it: "./x/y", "." or an import path
	pkgDir  string       // the gated package's directory inside the tree
	listLog []byte       // what go list printed on standard error (modules it downloaded), for the build log
	bin     string       // the test binary
	built   bool
}

// Run runs the whole comparison for cfg: it exports both revisions, builds their test binaries, runs the
// package's tests, the differential check, the size measurement and the A–B–B–A benchmarks, and writes the results
// directory cfg.Out (ResultsDir; report.md is the caller's, rendered by package report). Each phase returns its own
// record and assemble puts them into the Result, whose Verdict is Decide's.
//
// Run returns the Result even when it also returns an error: whatever was gathered before the error is kept, and
// Result.Verdict says what the gate makes of it. An error means the comparison could not run (ExitCode(err)); a
// failed gate is not an error.
func Run(ctx context.Context, cfg config.Config) (*record.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	p := &pipeline{cfg: cfg, log: logw, dir: results.Dir(cfg.Out), started: time.Now().UTC().Truncate(time.Second)}
	p.bench.pinnedCPU = -1
	// What the user asked for, so that a report of a run stopped before both revisions resolved still names them.
	p.base.rev.Ref, p.head.rev.Ref = cfg.Base, cfg.Head
	if cfg.Base == "" {
		p.base.rev.Ref = "merge-base(HEAD, default branch)"
	}
	if cfg.Head == "" {
		p.head.rev.Ref = "working tree"
	}
	err := p.run(ctx)
	incomplete := ctx.Err() != nil
	if incomplete && (err == nil || errors.Is(err, ctx.Err()) && err.Error() == ctx.Err().Error()) {
		err = fmt.Errorf("comparison interrupted: %w", ctx.Err())
	}
	env := CollectEnv(context.Background(), p.bench.pinnedCPU)
	env.Valgrind = p.valgrind.Version
	res := p.assemble(env, incomplete)
	res = gate.Apply(res, gate.Stopped(gate.Decide(res, cfg.Policy()), config.ExitCode(err), err))
	if p.multi() && res.Differential.Status != record.DiffSkipped {
		if werr := p.dir.WriteDifferential(&res.Differential); werr != nil && err == nil {
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
	// buildRecord is what building both test binaries found.
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
		source           string   // BenchSourceHead or BenchSourceEach
		changed          []string // top-level benchmarks whose test code differs
		baseBin, baseDir string   // base's package built with head's test files, and where it runs; "" for base's own
		notes            []string
	}
	// benchRecord is the A–B–B–A run turned into benchmarks.
	benchRecord struct {
		benchmarks []record.Benchmark
		failures   []record.Failure
		pinnedCPU  int // -1 when unpinned
		noise, mde float64
		timed      time.Duration
		stages     int           // stages of a budgeted run
		runTime    time.Duration // the length of one run, after a budget shortened it; 0 when nothing was timed
		settled    int           // benchmarks (sec/op) classed slower, faster or unchanged
		notes      []string
	}
)

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
		Sizes:           p.sizes,
		Env:             env,
		Incomplete:      incomplete,
		HeadBuildFailed: p.build.headFailed,
		Notes:           slices.Concat(p.revNotes, p.build.notes, p.source.notes, p.code.notes, p.functional.notes, p.bench.notes),
		Started:         p.started,
		Duration:        time.Since(p.started).Round(time.Millisecond),
		Method: record.Method{
			Rounds: cfg.Rounds, BenchTime: cmp.Or(p.bench.runTime, cfg.BenchTime), Threshold: cfg.Threshold, Alpha: cfg.Alpha,
			Estimator:    "per round, log(mean head / mean base) of A–B–B–A, disturbed rounds left out; Student t-interval over rounds",
			NoiseFloor:   p.bench.noise,
			MedianMDE:    p.bench.mde,
			TimedPhase:   p.bench.timed,
			BinariesSame: p.build.binariesSame,
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
	r.Policy = cfg.PolicyOrigin
	if r.Policy.From == "" {
		r.Policy.From = record.Head // the configuration as given
	}
	if cfg.Budget > 0 {
		r.Method.Estimator += "; with a time budget, each of the K planned looks spends alpha/K (Bonferroni over looks and benchmarks), settled benchmarks stop"
	}
	if r.Benchmarks == nil {
		r.Benchmarks = []record.Benchmark{}
	}
	if r.Differential.Status == "" {
		r.Differential = record.Differential{Status: record.DiffSkipped, Seed: cfg.Seed, Ciphers: []record.Cipher{}}
		if !cfg.Differential {
			r.Differential.Reason = "disabled by configuration"
		}
	}
	if r.Sizes.Sections == nil && r.Sizes.Error == "" {
		r.Sizes = record.Sizes{Sections: []record.SectionSize{}, Symbols: []record.SymbolSize{}}
	}
	if p.bench.pinnedCPU < 0 {
		r.Env.PinnedCPU, r.Env.Pinned = -1, false
	}
	return r
}

// pipeline is one comparison on its way: the sides, and each phase's record once the phase has run.
type pipeline struct {
	cfg        config.Config
	log        io.Writer
	dir        results.Dir
	started    time.Time
	work       string   // temporary directory: trees and binaries
	revNotes   []string // what the revisions leave out, such as the uncommitted edits of an explicit HEAD
	base, head side
	rel        string // cfg.Dir relative to the repository root, slash-separated ("." for the root)
	importPath string
	valgrind   bench.Valgrind // found up front when the instruction-count lane runs

	build      buildRecord
	source     benchSourceRecord
	code       sameCodeRecord
	functional functionalRecord
	diff       record.Differential
	sizes      record.Sizes
	bench      benchRecord

	// Several packages, or a shard: each package runs in a pipeline of its own (forPackage) with these set.
	skipChecks bool        // another shard runs the tests, the differential check and the sizes
	tops       []string    // the top-level benchmarks to run; nil for all
	parts      []*pipeline // the packages' pipelines, in the order they ran
	packages   []string    // every gated package, relative to the directory perfgate runs in (-C)
	plan       *shard.Plan // the split of the work when cfg.Shard is set
}

// writeLog keeps a tool's output in the results directory; failing to is worth a warning, not an error.
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
		// Up front: an hour of building and testing is not worth spending on a lane that cannot run.
		vg, err := bench.FindValgrind(ctx, "")
		if err != nil {
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

	if err := p.export(ctx); err != nil {
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

// runPackage runs the phases of one package on the exported trees: inspect, build, then (unless skipChecks) the
// tests, the differential check and the sizes, then the benchmarks (only tops, when tops is not nil). Several
// packages or shards run it once per package (runPackages) and combine the records.
func (p *pipeline) runPackage(ctx context.Context) error {
	if err := p.inspect(ctx); err != nil {
		return err
	}
	if err := p.buildBoth(ctx); err != nil {
		return err
	}
	if p.build.headFailed {
		return nil // the gate fails; nothing else can run on head
	}
	source, err := p.likeForLike(ctx)
	if err != nil {
		return err
	}
	p.source = source
	if !p.skipChecks {
		p.functional = p.runTests(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p.cfg.Differential {
			d, err := p.checkDifferential(ctx)
			if err != nil {
				return err
			}
			p.diff = d
		}
		p.sizes = p.measureSizes()
	}
	if p.tops != nil && len(p.tops) == 0 {
		return nil
	}
	if p.code, err = p.compareCode(ctx); err != nil {
		return err
	}
	if err := p.checkBenchSelects(p.code.tops); err != nil {
		return err
	}
	b, err := p.runBenchmarks(ctx)
	p.bench = b
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
	p.base.name, p.head.name = bench.Base, bench.Head

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

// buildBoth builds both test binaries with identical flags and one cache, into p.build. A base that does not
// build is an error; a head that does not build fails the gate.
func (p *pipeline) buildBoth(ctx context.Context) error {
	for _, s := range []*side{&p.base, &p.head} {
		if s.name == bench.Head && p.build.headFailed {
			break
		}
		p.logf("building %s test binary", s.name)
		log, err := bench.Build(ctx, s.name, p.buildConfig(s))
		p.logDownloads(s, log)
		p.writeLog("build-"+string(s.name)+".log", append(s.listLog, log...))
		if err != nil {
			if s.name == bench.Head && ctx.Err() == nil && !errors.Is(err, bench.ErrNoTests) {
				p.build.headFailed = true
				p.build.notes = append(p.build.notes, "head does not build: "+err.Error())
				return nil
			}
			return err
		}
		s.built = true
	}
	if same, err := bench.SameBinary(p.base.bin, p.head.bin); err == nil && same {
		p.build.binariesSame = true
		p.build.notes = append(p.build.notes, "base and head test binaries are byte-identical")
	}
	return nil
}

func (p *pipeline) buildConfig(s *side) bench.BuildConfig {
	return bench.BuildConfig{Dir: s.modDir, Root: s.tree.Dir, Pkg: s.pkg, Out: s.bin, Tags: p.cfg.Tags, Cache: p.cfg.Cache,
		Timeout: proc.BuildLimit(p.cfg.Timeout)}
}

// logDownloads shows the "go: downloading …" lines of a go command's output in the progress log. Modules fetched
// on a first build are downloaded while the package is inspected and built, before anything is timed; the full
// output stays in the side's build log.
func (p *pipeline) logDownloads(s *side, out []byte) {
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "go: downloading ") {
			p.logf("%s: %s", s.name, line)
		}
	}
}

// inspect finds the gated package in both trees: its import path (for the size measurement) and its directory
// (the working directory of its test binary). A package without tests cannot be compared.
func (p *pipeline) inspect(ctx context.Context) error {
	if err := p.locate(); err != nil {
		return err
	}
	for _, s := range []*side{&p.base, &p.head} {
		if s.name == bench.Head && p.build.headFailed {
			break
		}
		info, err := bench.Inspect(ctx, p.buildConfig(s))
		if err != nil {
			var nf *bench.NotFoundError
			if s.name == bench.Base && errors.As(err, &nf) {
				return p.notOnBase(ctx, nf)
			}
			if s.name == bench.Head {
				p.build.headFailed = true
				p.build.notes = append(p.build.notes, "head: "+err.Error())
				return nil
			}
			return fmt.Errorf("base: %w", err)
		}
		p.logDownloads(s, info.Log)
		if len(info.Log) > 0 {
			s.listLog = append([]byte("$ go list "+s.pkg+"\n"), info.Log...)
		}
		if !info.HasTests {
			return fmt.Errorf("%s: package %s has no test files, so no benchmarks to compare", s.name, info.ImportPath)
		}
		s.pkgDir = info.Dir
		p.importPath = info.ImportPath
	}
	return nil
}

// runTests runs the package's own tests (-test.short) from each side's test binary.
func (p *pipeline) runTests(ctx context.Context) functionalRecord {
	var rec functionalRecord
	for _, s := range []*side{&p.base, &p.head} {
		p.logf("running %s tests", s.name)
		tctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		cmd := proc.Command(tctx, s.pkgDir, nil, s.bin, "-test.short", "-test.run=.", "-test.bench=^$",
			"-test.timeout="+p.cfg.Timeout.String())
		out, errb, err := proc.Run(cmd)
		cancel()
		all := append(out, errb...)
		p.writeLog("test-"+string(s.name)+".log", all)
		run := record.TestRun{Ran: true, Passed: err == nil}
		if err != nil {
			run.Output = proc.Tail(all, 40)
			if tctx.Err() == context.DeadlineExceeded {
				run.Output += fmt.Sprintf("\n(killed after %s)", p.cfg.Timeout)
			}
		}
		if s.name == bench.Base {
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

// checkDifferential runs the differential check and writes differential.json. Only a cancelled context or a
// results directory that cannot be written is an error: a check that perfgate cannot run has status error, which
// Decide makes the verdict's.
func (p *pipeline) checkDifferential(ctx context.Context) (record.Differential, error) {
	workDir := filepath.Join(p.work, "differential")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return record.Differential{}, err
	}
	// The differential names one package for both sides: relative to each module root when the sides agree on
	// it, else each side's package directory itself.
	baseDir, headDir, pkg := p.base.modDir, p.head.modDir, p.base.pkg
	if p.base.pkg != p.head.pkg {
		baseDir, headDir, pkg = p.base.pkgDir, p.head.pkgDir, "."
	}
	rep, err := differential.Check(ctx, differential.Config{
		BaseDir: baseDir, HeadDir: headDir, Pkg: pkg,
		Constructors: p.cfg.Constructors, Keys: p.cfg.Keys, Blocks: p.cfg.Blocks, Seed: p.cfg.Seed,
		MessageKeys: p.cfg.MessageKeys, MessageBlocks: p.cfg.MessageBlocks,
		Tags: p.cfg.Tags, Cache: p.cfg.Cache, Timeout: p.cfg.Timeout,
		WorkDir: workDir, Log: &linePrefixer{w: p.log, prefix: "perfgate: "},
	})
	if err != nil {
		if ctx.Err() != nil {
			return record.Differential{}, ctx.Err()
		}
		// perfgate could not run the check (a constructor named in the configuration that neither side has, a work
		// directory it cannot write): that is not a finding about the code, and the gate must not pass on it.
		return record.Differential{Status: record.DiffError, Reason: err.Error(), Seed: p.cfg.Seed, Ciphers: []record.Cipher{}}, nil
	}
	d := record.Differential(*rep)
	d.Package = p.cfg.Package // as the user named it, not as it was passed to one module
	return d, p.dir.WriteDifferential(&d)
}

// measureSizes measures the package in both test binaries and writes sizes.txt. A measurement that fails is
// reported in Sizes.Error, not as an error.
func (p *pipeline) measureSizes() record.Sizes {
	var got [2]*sizes.Sizes
	for i, s := range []*side{&p.base, &p.head} {
		sz, err := sizes.Measure(s.bin, p.importPath)
		if err != nil {
			return record.Sizes{Sections: []record.SectionSize{}, Symbols: []record.SymbolSize{}, Error: fmt.Sprintf("measuring %s: %v", s.name, err)}
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

// linePrefixer writes to w with prefix at the start of every line, so that a leaf package's progress lines read
// like perfgate's own.
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
