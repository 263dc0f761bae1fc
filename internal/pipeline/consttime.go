package pipeline

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/consttime"
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
	ct := p.ct // an error of prepareConstantTime
	if prep != nil {
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
	return ct, p.writeConstantTimeSARIF(ct)
}
