package pipeline

import (
	"context"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/consttime"
	"github.com/perfgate/perfgate/record"
)

// checkConstantTime runs the constant-time check on both exported trees. Only a cancelled context is an error:
// a machine without valgrind, or a side that cannot be traced, is a status of the record, which Decide notes.
func (p *pipeline) checkConstantTime(ctx context.Context) (*record.ConstantTime, error) {
	workDir := filepath.Join(p.work, "consttime")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, err
	}
	// One package for both sides, as the differential check names it.
	baseDir, headDir, pkg := p.base.modDir, p.head.modDir, p.base.pkg
	if p.base.pkg != p.head.pkg {
		baseDir, headDir, pkg = p.base.pkgDir, p.head.pkgDir, "."
	}
	ct, err := consttime.Check(ctx, consttime.Config{
		BaseDir: baseDir, HeadDir: headDir, Pkg: pkg, Tags: p.cfg.Tags, Cache: p.cfg.Cache,
		BatchBlocks: p.cfg.ConstantTimeBlocks, Sandbox: p.sandbox,
		Timeout: max(p.cfg.Timeout, consttime.DefaultTimeout), WorkDir: workDir,
		Log: &linePrefixer{w: p.log, prefix: "perfgate: "},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &record.ConstantTime{Status: record.CTError, Reason: err.Error(), Operations: []record.CTOperation{}}, nil
	}
	ct.Package = p.cfg.Package // as the user named it; several packages: this part's
	if rel, err := filepath.Rel(p.head.tree.Dir, p.head.pkgDir); err == nil {
		ct.Dir = filepath.ToSlash(rel)
	}
	return ct, p.writeConstantTimeSARIF(ct)
}
