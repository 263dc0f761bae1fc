package pipeline

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/internal/consttime"
	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// The constant-time phase, in two steps like the differential: prepareConstantTime builds and seals
// both drivers (and compares their machine code) before any repository code runs; traceConstantTime
// runs them before the package's tests.

// constantTimeMode resolves the key constant-time: empty (the default) is report where valgrind is
// installed and off elsewhere, so that a machine without it pays nothing; metric auto's note on the
// missing valgrind says that nothing was traced (run).
func (p *pipeline) constantTimeMode() record.ConstantTimeMode {
	m := record.ConstantTimeMode(p.cfg.ConstantTime)
	if m != "" {
		return m
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		return record.CTOff
	}
	return record.CTReport
}

// prepareConstantTime discovers, builds and seals both sides' drivers: nil when the check is off.
// Only a cancelled context is an error: a check that cannot run is a status of the record that
// traceConstantTime returns.
func (p *pipeline) prepareConstantTime(ctx context.Context) (*consttime.Prepared, error) {
	if p.constantTimeMode() == record.CTOff {
		return nil, nil
	}
	workDir := filepath.Join(p.work, "consttime")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, err
	}
	// One package for both sides, as the differential check names it.
	baseDir, headDir, pkg := p.base.modDir, p.head.modDir, p.base.pkg
	if p.base.pkg != p.head.pkg {
		baseDir, headDir, pkg = p.base.pkgDir, p.head.pkgDir, "."
	}
	prep, err := consttime.Prepare(ctx, consttime.Config{
		Sides: subject.Sides{BaseDir: baseDir, HeadDir: headDir, Pkg: pkg, Tags: p.cfg.Tags,
			BaseBuild: p.cfg.BaseBuild, HeadBuild: p.cfg.HeadBuild, Cache: p.cfg.Cache,
			Sandbox: p.sandbox, Store: p.store, Timeout: max(p.cfg.Timeout, consttime.DefaultTimeout), WorkDir: workDir,
			Log: &linePrefixer{w: p.log, prefix: "perfgate: "}},
		BatchBlocks: p.cfg.ConstantTimeBlocks, Constructors: p.cfg.ConstantTimeConstructors,
	}, consttime.Options{SameCode: !p.cfg.TimeSameCode, Budget: p.cfg.ConstantTimeBudget})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.ct = &record.ConstantTime{Status: record.CTError, Reason: err.Error(), Operations: []record.CTOperation{}}
		return nil, nil
	}
	return prep, nil
}

// traceConstantTime traces what prepareConstantTime built and writes consttime.sarif. Only a
// cancelled context is an error.
func (p *pipeline) traceConstantTime(ctx context.Context, prep *consttime.Prepared) (*record.ConstantTime, error) {
	var ct *record.ConstantTime
	if prep == nil {
		ct = p.ct // an error of prepareConstantTime
	} else {
		var err error
		if ct, err = prep.Trace(ctx); err != nil {
			return nil, err
		}
	}
	if ct == nil {
		return nil, nil
	}
	ct.Mode = p.constantTimeMode()
	ct.Package = p.cfg.Package // as the user named it; several packages: this part's
	if rel, err := filepath.Rel(p.head.tree.Dir, p.head.pkgDir); err == nil {
		ct.Dir = filepath.ToSlash(rel)
	}
	if ct.Status == record.CTChecked {
		p.logf("constant time: traced %d constructors (%d operations) in %v of CPU; same code, not traced: %d; "+
			"left out by the %v budget: %d", len(ct.Traced()), len(ct.Operations), ct.CPU.Round(1e6),
			len(ct.LeftOut(record.CTSameCode)), ct.Budget, len(ct.LeftOut(record.CTBudget)))
	}
	return ct, evidence.WriteConstantTimeSARIF(p.dir, ct)
}

// finishConstantTime records the trace the scheduler held for after the benchmarks or ran beside
// the timing: a trace that ran beside the lanes is a phase of its own beside theirs (timePhase
// leaves what it read from the store out of theirs); a held one runs now. It does nothing the
// second time.
func (p *pipeline) finishConstantTime(ctx context.Context) error {
	res, held := p.sched.takeTrace(func() func() {
		p.logf("constant time: waiting for the trace that began beside the timing")
		return p.heartbeat("constant time", time.Now())
	})
	if res != nil {
		p.ct = res.ct
		p.recordBeside(record.Phase{Name: "constant time", Wall: res.wall, FromStore: int(res.hits)}, p.lanesPhase())
		return res.err
	}
	if held == nil {
		return nil
	}
	return p.timePhase("constant time", func() (err error) {
		p.ct, err = held(ctx)
		return err
	})
}
