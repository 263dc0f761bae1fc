package perfgate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/differential"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/sizes"
)

// side is one revision on its way through the pipeline.
type side struct {
	name   bench.Side
	rev    Revision
	tree   string // the exported tree's root
	modDir string // the module root inside the tree
	pkgDir string // the gated package's directory inside the tree
	bin    string // the test binary
	built  bool
}

// Compare runs the whole comparison of DESIGN.md for cfg and writes the results directory cfg.Out (except
// report.md, which package report renders from the Result). It returns the Result even when it also returns an
// error: whatever was gathered before the error is kept, and Result.Verdict says what the gate makes of it.
// An error means the comparison could not run (exit code 3); a failed gate is not an error.
func Compare(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	p := &pipeline{cfg: cfg, log: logw, res: &Result{
		Schema:     Schema,
		Package:    cfg.Package,
		Benchmarks: []Benchmark{},
		Started:    time.Now().UTC().Truncate(time.Second),
		Differential: Differential{
			Status: DiffSkipped, Seed: cfg.Seed, Ciphers: []DiffCipher{},
		},
		Sizes: Sizes{Sections: []SectionSize{}, Symbols: []SymbolSize{}},
		Method: Method{
			Rounds: cfg.Rounds, BenchTime: cfg.BenchTime, Threshold: cfg.Threshold, Alpha: cfg.Alpha,
			Estimator: "per round, log(mean head / mean base) of A–B–B–A, disturbed rounds left out; Student t-interval over rounds",
		},
	}}
	// What the user asked for, so that a report of a run stopped before both revisions resolved still names them.
	p.res.Base.Ref, p.res.Head.Ref = cfg.Base, cfg.Head
	if cfg.Base == "" {
		p.res.Base.Ref = "merge-base(HEAD, default branch)"
	}
	if cfg.Head == "" {
		p.res.Head.Ref = "working tree"
	}
	err := p.run(ctx)
	if ctx.Err() != nil {
		p.res.Incomplete = true
		if err == nil || errors.Is(err, ctx.Err()) && err.Error() == ctx.Err().Error() {
			err = fmt.Errorf("comparison interrupted: %w", ctx.Err())
		}
	}
	p.res.Duration = time.Since(p.res.Started).Round(time.Millisecond)
	cfg.Decide(p.res, p.headBuildFailed, err)
	if werr := p.writeResults(); werr != nil && err == nil {
		err = werr
	}
	return p.res, err
}

type pipeline struct {
	cfg             Config
	log             io.Writer
	res             *Result
	work            string // temporary directory: trees and binaries
	base, head      side
	headBuildFailed bool
	importPath      string
}

func (p *pipeline) logf(format string, args ...any) {
	fmt.Fprintf(p.log, "perfgate: "+format+"\n", args...)
}

func (p *pipeline) run(ctx context.Context) error {
	if err := os.MkdirAll(p.cfg.Out, 0o755); err != nil {
		return fmt.Errorf("creating results directory: %w", err)
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
	if err := p.inspect(ctx); err != nil {
		return err
	}
	if err := p.build(ctx); err != nil {
		return err
	}
	if p.headBuildFailed {
		return nil // the gate fails; nothing else can run on head
	}
	p.functional(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if p.cfg.Differential {
		if err := p.differential(ctx); err != nil {
			return err
		}
	} else {
		p.res.Differential.Reason = "disabled by configuration"
	}
	p.sizes()
	return p.benchmarks(ctx)
}

// export resolves both revisions and writes their trees into the work directory.
func (p *pipeline) export(ctx context.Context) error {
	repo, err := gitsrc.Open(p.cfg.Dir)
	if err != nil {
		return err
	}
	var baseCommit *gitsrc.Commit
	if p.cfg.Base == "" {
		c, branch, err := repo.DefaultBase()
		if err != nil {
			return err
		}
		baseCommit = c
		p.base.rev = Revision{Ref: "merge-base(HEAD, " + branch + ")"}
	} else {
		c, err := repo.Resolve(p.cfg.Base)
		if err != nil {
			return err
		}
		baseCommit = c
		p.base.rev = Revision{Ref: p.cfg.Base}
	}
	p.base.rev.Commit, p.base.rev.Subject = baseCommit.SHA, baseCommit.Subject
	p.base.name, p.head.name = bench.Base, bench.Head

	var headCommit *gitsrc.Commit
	if p.cfg.Head == "" {
		if headCommit, err = repo.Head(); err != nil {
			return err
		}
		p.head.rev = Revision{Ref: "working tree"}
	} else {
		if headCommit, err = repo.Resolve(p.cfg.Head); err != nil {
			return err
		}
		p.head.rev = Revision{Ref: p.cfg.Head}
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
	p.res.Base, p.res.Head = p.base.rev, p.head.rev
	for _, st := range []struct {
		s *side
		t *gitsrc.Tree
	}{{&p.base, bt}, {&p.head, ht}} {
		st.s.tree, st.s.modDir = st.t.Dir, st.t.Module
		st.s.pkgDir = filepath.Join(st.s.modDir, filepath.FromSlash(p.cfg.Package))
		st.s.bin = filepath.Join(p.work, string(st.s.name)+".test")
	}
	return nil
}

// build builds both test binaries with identical flags and one cache. A base that does not build is an error;
// a head that does not build fails the gate.
func (p *pipeline) build(ctx context.Context) error {
	for _, s := range []*side{&p.base, &p.head} {
		if s.name == bench.Head && p.headBuildFailed {
			break
		}
		p.logf("building %s test binary", s.name)
		log, err := bench.Build(ctx, s.name, p.buildConfig(s))
		p.writeFile("build-"+string(s.name)+".log", log)
		if err != nil {
			if s.name == bench.Head && ctx.Err() == nil && !errors.Is(err, bench.ErrNoTests) {
				p.headBuildFailed = true
				p.res.Notes = append(p.res.Notes, "head does not build: "+err.Error())
				return nil
			}
			return err
		}
		s.built = true
	}
	if same, err := bench.SameBinary(p.base.bin, p.head.bin); err == nil && same {
		p.res.Method.BinariesSame = true
		p.res.Notes = append(p.res.Notes, "base and head test binaries are byte-identical: timing differences can only be noise")
	}
	return nil
}

func (p *pipeline) buildConfig(s *side) bench.BuildConfig {
	return bench.BuildConfig{Dir: s.modDir, Root: s.tree, Pkg: p.cfg.Package, Out: s.bin, Tags: p.cfg.Tags, Cache: p.cfg.Cache}
}

// inspect finds the gated package in both trees: its import path (for the size measurement) and its directory
// (the working directory of its test binary). A package without tests cannot be compared.
func (p *pipeline) inspect(ctx context.Context) error {
	if err := p.packageExists(); err != nil {
		return err
	}
	for _, s := range []*side{&p.base, &p.head} {
		info, err := bench.Inspect(ctx, p.buildConfig(s))
		if err != nil {
			if s.name == bench.Head {
				p.headBuildFailed = true
				p.res.Notes = append(p.res.Notes, "head: "+err.Error())
				return nil
			}
			return fmt.Errorf("base: %w", err)
		}
		if !info.HasTests {
			return fmt.Errorf("%s: package %s has no test files, so no benchmarks to compare", s.name, info.ImportPath)
		}
		s.pkgDir = info.Dir
		p.importPath = info.ImportPath
	}
	p.res.ImportPath = p.importPath
	return nil
}

// packageExists checks that a relative package directory exists on at least one side. On neither side it is
// almost surely a typo in -pkg: a configuration error, not a failed comparison.
func (p *pipeline) packageExists() error {
	if !strings.HasPrefix(p.cfg.Package, ".") {
		return nil // an import path: go list decides
	}
	for _, s := range []*side{&p.base, &p.head} {
		if st, err := os.Stat(s.pkgDir); err == nil && st.IsDir() {
			return nil
		}
	}
	return &ConfigError{Key: "package", Value: p.cfg.Package,
		Want: "a package directory relative to the module root that exists in base or head, such as ./cipher/des"}
}

// functional runs the package's own tests (-test.short) from each side's test binary.
func (p *pipeline) functional(ctx context.Context) {
	for _, s := range []*side{&p.base, &p.head} {
		p.logf("running %s tests", s.name)
		tctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		cmd := proc.Command(tctx, s.pkgDir, nil, s.bin, "-test.short", "-test.run=.", "-test.bench=^$",
			"-test.timeout="+p.cfg.Timeout.String())
		out, errb, err := proc.Run(cmd)
		cancel()
		all := append(out, errb...)
		p.writeFile("test-"+string(s.name)+".log", all)
		run := TestRun{Ran: true, Passed: err == nil}
		if err != nil {
			run.Output = proc.Tail(all, 40)
			if tctx.Err() == context.DeadlineExceeded {
				run.Output += fmt.Sprintf("\n(killed after %s)", p.cfg.Timeout)
			}
		}
		if s.name == bench.Base {
			p.res.Functional.Base = run
			if !run.Passed {
				p.res.Notes = append(p.res.Notes, "base's tests fail; this does not block the gate")
			}
		} else {
			p.res.Functional.Head = run
		}
	}
}

func (p *pipeline) differential(ctx context.Context) error {
	workDir := filepath.Join(p.work, "differential")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	rep, err := differential.Check(ctx, differential.Config{
		BaseDir: p.base.modDir, HeadDir: p.head.modDir, Pkg: p.cfg.Package,
		Constructors: p.cfg.Constructors, Keys: p.cfg.Keys, Blocks: p.cfg.Blocks, Seed: p.cfg.Seed,
		Tags: p.cfg.Tags, Cache: p.cfg.Cache, Timeout: p.cfg.Timeout,
		WorkDir: workDir, Log: &linePrefixer{w: p.log, prefix: "perfgate: "},
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p.res.Differential.Status = DiffNotComparable
		p.res.Differential.Reason = err.Error()
		return nil
	}
	if werr := rep.WriteJSON(filepath.Join(p.cfg.Out, "differential.json")); werr != nil {
		return werr
	}
	p.res.Differential = fromDifferential(rep)
	return nil
}

func (p *pipeline) sizes() {
	var got [2]*sizes.Sizes
	for i, s := range []*side{&p.base, &p.head} {
		sz, err := sizes.Measure(s.bin, p.importPath)
		if err != nil {
			p.res.Sizes.Error = fmt.Sprintf("measuring %s: %v", s.name, err)
			return
		}
		got[i] = sz
	}
	p.res.Sizes = fromSizes(sizes.Diff(got[0], got[1]))
	f, err := os.Create(filepath.Join(p.cfg.Out, "sizes.txt"))
	if err != nil {
		p.res.Sizes.Error = err.Error()
		return
	}
	defer f.Close()
	if err := sizes.WriteBenchfmt(f, got[0], got[1], p.base.rev.Commit, p.head.rev.Commit); err != nil {
		p.res.Sizes.Error = err.Error()
	}
}

func (p *pipeline) benchmarks(ctx context.Context) error {
	f, err := os.Create(filepath.Join(p.cfg.Out, "bench.txt"))
	if err != nil {
		return err
	}
	defer f.Close()
	var filter *regexp.Regexp
	if p.cfg.Bench != "" && p.cfg.Bench != "." {
		filter = regexp.MustCompile(p.cfg.Bench) // validated
	}
	p.logf("timing: %d rounds of A–B–B–A, %s per run", p.cfg.Rounds, p.cfg.BenchTime)
	start := time.Now()
	run, err := bench.RunABBA(ctx, bench.RunConfig{
		Base:      bench.Binary{Path: p.base.bin, Dir: p.base.pkgDir, Commit: p.base.rev.Commit},
		Head:      bench.Binary{Path: p.head.bin, Dir: p.head.pkgDir, Commit: p.head.rev.Commit},
		Filter:    filter,
		Rounds:    p.cfg.Rounds,
		BenchTime: p.cfg.BenchTime,
		CPU:       p.cfg.CPU,
		NoPin:     p.cfg.NoPin,
		Timeout:   p.cfg.Timeout,
		Progress:  p.log,
		BenchTxt:  f,
	})
	p.res.Method.TimedPhase = time.Since(start).Round(time.Millisecond)
	if run != nil {
		var headTops []string
		if err == nil {
			headTops, err = p.headBenchmarks(ctx)
		}
		p.applyRun(run, headTops)
	}
	return err
}

// headBenchmarks lists head's top-level benchmarks (nil when they cannot be listed) and notes those that only
// head has: the schedule comes from base's benchmarks, so those were not run. A benchmark of base's that head
// lacks is removed, not broken (applyRun). Only a cancelled context is an error.
func (p *pipeline) headBenchmarks(ctx context.Context) ([]string, error) {
	list := func(s *side) ([]string, error) {
		lctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		defer cancel()
		names, err := bench.List(lctx, bench.Binary{Path: s.bin, Dir: s.pkgDir}, nil)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return names, err
	}
	headTops, err := list(&p.head)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		p.res.Notes = append(p.res.Notes, "head: "+err.Error())
		return nil, nil
	}
	if headTops == nil {
		headTops = []string{}
	}
	baseTops, err := list(&p.base)
	if err != nil {
		return headTops, nil
	}
	onBase := map[string]bool{}
	for _, t := range baseTops {
		onBase[t] = true
	}
	var added []string
	for _, t := range headTops {
		if !onBase[t] {
			added = append(added, "Benchmark"+t)
		}
	}
	if len(added) > 0 {
		p.res.Notes = append(p.res.Notes, fmt.Sprintf("new on head, so not compared (base has nothing to compare with): %s",
			strings.Join(added, ", ")))
	}
	return headTops, nil
}

// applyRun turns what RunABBA gathered into the Result's benchmarks, failures and notes. headTops are the
// top-level benchmarks the head binary lists (nil when unknown): a head run with no result of a benchmark head does
// not have is recorded as a Failure of kind FailureRemoved, and its empty comparison rows are dropped.
func (p *pipeline) applyRun(run *bench.Run, headTops []string) {
	cpu := -1
	if run.Pinning.Pinned {
		cpu = run.Pinning.CPU
	} else if run.Pinning.Reason != "" {
		p.res.Notes = append(p.res.Notes, "benchmarks ran unpinned: "+run.Pinning.Reason)
	}
	p.res.Env.PinnedCPU, p.res.Env.Pinned = cpu, cpu >= 0
	for _, w := range run.Warnings {
		p.res.Notes = append(p.res.Notes, "benchmarks: "+w)
	}
	onHead := map[string]bool{}
	for _, t := range headTops {
		onHead[t] = true
	}
	removed := map[string]bool{}
	for _, f := range run.Failures {
		// bench counts rounds from 0 and calibration as -1; people count rounds from 1, as the progress log does.
		rf := Failure{Name: f.Name, Side: string(f.Side), Round: f.Round + 1, Kind: f.Kind, Message: f.Message}
		top, _, _ := strings.Cut(f.Name, "/")
		if headTops != nil && f.Side == bench.Head && f.Kind == "no-result" && !onHead[top] {
			rf.Kind, rf.Message = FailureRemoved, "head has no Benchmark"+top+" (removed or renamed): not compared"
			removed[f.Name] = true
		}
		p.res.Failures = append(p.res.Failures, rf)
	}
	if len(removed) > 0 {
		names := sortedKeys(removed)
		p.res.Notes = append(p.res.Notes, fmt.Sprintf("%d of base's benchmarks are not in head (removed or renamed), so not compared: %s",
			len(names), strings.Join(names, ", ")))
	}
	if len(run.Samples) == 0 && len(run.Failures) == 0 {
		p.res.Notes = append(p.res.Notes, "no benchmarks matched: the package has none, or -bench selects none")
	}
	opt := bench.DefaultStatsOptions
	opt.Alpha, opt.ThresholdPct = p.cfg.Alpha, p.cfg.Threshold
	cmps, err := bench.Compare(run.Samples, opt)
	if err != nil {
		p.res.Notes = append(p.res.Notes, "statistics: "+err.Error())
	}
	p.res.Benchmarks = fromComparisons(cmps)
	if len(removed) > 0 {
		kept := p.res.Benchmarks[:0]
		for _, b := range p.res.Benchmarks {
			if !removed[b.Name] {
				kept = append(kept, b)
			}
		}
		p.res.Benchmarks = kept
	}
	sortBenchmarks(p.res.Benchmarks)
	var noise, mde []float64
	for _, b := range p.res.Benchmarks {
		if b.Unit == GatedUnit && b.Class != ClassFailed {
			noise = append(noise, b.NoisePct)
			mde = append(mde, b.MDEPct)
		}
	}
	p.res.Method.NoiseFloor, p.res.Method.MedianMDE = median(noise), median(mde)
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
