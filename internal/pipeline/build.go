package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// buildBoth builds both test binaries with identical flags (but for each side's own build) and one
// cache, and adds what it found to rec, the record of inspect. A base that does not build is an
// error; a head that does not build fails the gate.
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
		Build: p.cfg.Build(s.name), Timeout: proc.BuildLimit(p.cfg.Timeout)}
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
