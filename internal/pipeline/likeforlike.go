package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/record"
)

// likeForLike decides what base's side times. When head's _test.go files differ from base's, it
// builds base's package with head's test files (gobuild.TestOverlay) into a third binary, which
// base's timing runs, in head's package directory so that the benchmarks read the same testdata;
// the package tests and the size measurement keep each side's own binary. When that build fails, or
// head adds or removes Benchmark functions (which are then reported as new or removed), each side
// times its own. Either way the benchmarks whose code differs are named in a note. Only a cancelled
// context is an error.
func (p *pipeline) likeForLike(ctx context.Context) (benchSourceRecord, error) {
	rec := benchSourceRecord{source: record.BenchSourceHead}
	baseFiles, err := gobuild.TestFiles(p.base.pkgDir)
	if err != nil {
		return rec, nil // the build read them; nothing to compare with
	}
	headFiles, err := gobuild.TestFiles(p.head.pkgDir)
	if err != nil || gobuild.SameFiles(baseFiles, headFiles) {
		return rec, nil
	}
	rec.changed = gobuild.ChangedBenchmarks(baseFiles, headFiles)
	if !slices.Equal(gobuild.BenchmarkFuncs(baseFiles), gobuild.BenchmarkFuncs(headFiles)) {
		// Head adds or removes benchmarks: those are reported as new or removed, which base built
		// with head's test files would hide.
		return p.eachOwn(rec, "head adds or removes benchmarks"), nil
	}
	overlay := filepath.Join(p.work, "head-tests-overlay.json")
	if err := gobuild.TestOverlay(overlay, p.base.pkgDir, p.head.pkgDir); err != nil {
		return p.eachOwn(rec, err.Error()), nil
	}
	cfg := p.buildConfig(&p.base)
	cfg.Out, cfg.Overlay = filepath.Join(p.work, "base-with-head-tests.test"), overlay
	p.logf("head changes the test files: building base with head's test files, so both sides time the same benchmark code")
	log, err := gobuild.Build(ctx, record.Base, cfg)
	p.writeLog("build-base-with-head-tests.log", log)
	if err != nil {
		if ctx.Err() != nil {
			return rec, ctx.Err()
		}
		return p.eachOwn(rec, "head's test files do not compile against base's package"), nil
	}
	rec.baseBin, rec.baseDir = cfg.Out, p.head.pkgDir
	if same, err := gobuild.SameBinary(rec.baseBin, p.head.bin); err == nil && same {
		// Only the tests changed: the timed binaries are identical, and any difference in time is
		// noise.
		rec.timedSame = true
		rec.notes = append(rec.notes, "base built with head's test files is byte-identical to head's test binary")
	}
	if len(rec.changed) > 0 {
		rec.notes = append(rec.notes, fmt.Sprintf("head changes the benchmark code of %s: both sides ran head's (base was "+
			"built with head's test files)",
			benchList(rec.changed)))
	}
	return rec, nil
}

// eachOwn is rec when each side times its own test files, with a note saying why and which
// benchmarks differ.
func (p *pipeline) eachOwn(rec benchSourceRecord, why string) benchSourceRecord {
	rec.source = record.BenchSourceEach
	note := "each side ran its own benchmark code (" + why + ")"
	if len(rec.changed) > 0 {
		note += fmt.Sprintf(": the code of %s differs, so their results compare different benchmarks", benchList(rec.changed))
	}
	rec.notes = append(rec.notes, note)
	p.logf("%s", note)
	return rec
}

// benchList is "BenchmarkA, BenchmarkB".
func benchList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("Benchmark" + n)
	}
	return b.String()
}
