package pipeline

import (
	"context"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/differential"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

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
			BaseBuild: p.cfg.BaseBuild, HeadBuild: p.cfg.HeadBuild,
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
