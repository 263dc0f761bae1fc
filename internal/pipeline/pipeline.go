package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/consttime"
	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/hostenv"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/internal/valgrind"
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
	// build is how the side is built, its toolchain as the go command names it ("go1.25.5"); the
	// zero value when both sides are built perfgate's default way (checkBuilds)
	build record.Build
}

// binary is the side's test binary as bench runs it: sealed, running in the package's directory.
func (s *side) binary(commit string) benchrun.Binary {
	return benchrun.Binary{Path: s.bin, Dir: s.pkgDir, Commit: commit, SHA256: s.sha}
}

// Run is RunWith without reports: the results directory gets the evidence and result.json, not
// report.md or report.html.
func Run(ctx context.Context, cfg config.Config) (*record.Result, error) {
	return RunWith(ctx, cfg, evidence.Options{})
}

// RunWith runs the whole comparison for cfg: it exports both revisions, builds their test binaries,
// runs the package's tests, the differential check, the size measurement and the A–B–B–A
// benchmarks, and writes the results directory cfg.Out: each phase's evidence as it runs, then the
// Result through evidence.Write, with the reports opt asks for. Each phase returns its own record
// and assemble puts them into the Result, whose Verdict is gate.Judge's.
//
// RunWith returns the Result even when it also returns an error: whatever was gathered before the
// error is kept, and Result.Verdict says what the gate makes of it. An error means the comparison
// could not run (ExitCode(err)), or its results could not be written; a failed gate is not an
// error.
func RunWith(ctx context.Context, cfg config.Config, opt evidence.Options) (*record.Result, error) {
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
	p.base.name, p.head.name = record.Base, record.Head
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
	env := hostenv.Collect(context.Background(), p.pinnedCPU())
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
	res = gate.Judge(res, cfg.Policy(), config.ExitCode(err), err)
	opt.Env, opt.Checks, opt.Shards = &env, p.multi(), nil
	if werr := evidence.Write(p.dir, &res, opt); werr != nil && err == nil {
		err = werr
	}
	return &res, err
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
	// says which job runs on which CPU and when (scheduler.go); made once the binaries are sealed
	sched *scheduler

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
			if p.cfg.ConstantTime == "" {
				// The check's default is off where valgrind is missing: say so where the
				// count's absence is said, so that nobody reads its silence as a pass.
				p.autoHint = "metric auto: valgrind not found, so wall time alone classes the benchmarks and " +
					"nothing is traced for constant time; install valgrind for the instruction count that " +
					"settles what wall time leaves open and for the constant-time check"
			}
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
	if err := p.checkBuilds(ctx); err != nil {
		return err
	}
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
func (p *pipeline) runPackage(ctx context.Context) (err error) {
	err = p.timePhase("build", func() error {
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
	p.sched = p.schedule(ctx)
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
		if ctPrep != nil && p.sched.plan.Tracing.When != whenBefore {
			// Traced on the count lane's CPU once the count is in and the timing still runs, or
			// after the benchmarks (scheduler.go); on every way out of here.
			p.sched.hold(func(ctx context.Context) (*record.ConstantTime, error) {
				return p.traceConstantTime(ctx, ctPrep)
			})
			defer func() {
				if ferr := p.finishConstantTime(ctx); err == nil {
					err = ferr
				}
			}()
		} else {
			err = p.timePhase("constant time", func() (err error) {
				p.ct, err = p.traceConstantTime(ctx, ctPrep)
				return err
			})
			if err != nil {
				return err
			}
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
	if ferr := p.finishConstantTime(ctx); err == nil {
		err = ferr
	}
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
