package pipeline

import (
	"bufio"
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/attribution"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/why"
	"github.com/perfgate/perfgate/record"
)

// The time the why phase may take for the -m=2 builds and the profiling runs.
const (
	// whyShare is the part of the comparison's wall time so far that the extra work (the -m=2
	// builds, the profiling runs) may take.
	whyShare = 0.15
	// whyFloor is the least time they get: a quick comparison of a few seconds would otherwise
	// leave under a second, too little for one -m=2 build or two profiling runs.
	whyFloor = 10 * time.Second
)

// explain builds the Why of every changed benchmark of rec (why.Explain). rc is what the lanes ran
// with: its binaries are the ones the counts' addresses belong to.
func (p *pipeline) explain(ctx context.Context, rec benchRecord, rc benchrun.RunConfig) []record.Why {
	m := record.Method{Metric: p.cfg.Metric, Threshold: p.cfg.Threshold}
	if p.cfg.CountsInstructions() {
		m.InstrThreshold = p.cfg.InstrThreshold
	}
	return why.Explain(ctx, why.Config{
		Benchmarks: rec.benchmarks,
		Policy:     p.cfg.Policy(),
		Method:     m,
		Counted:    p.cfg.CountsInstructions(),
		Addrs:      rec.addrs,
		Iters:      rec.iters,
		Run:        rc,
		ImportPath: p.importPath,
		Sources:    [2]attribution.Sources{p.sources(&p.base), p.sources(&p.head)},
		Symbols:    p.sizes.Symbols,
		Decisions: func(ctx context.Context, s record.Side, limit time.Duration) ([]byte, error) {
			if s == record.Base {
				return p.decisions(ctx, &p.base, limit)
			}
			return p.decisions(ctx, &p.head, limit)
		},
		Budget: max(time.Duration(whyShare*float64(time.Since(p.started))), whyFloor),
		Dir:    p.dir,
		Rel:    p.resultsName(""),
		Logf:   p.logf,
	})
}

// resultsName is the name of a file of p's results directory relative to the comparison's own (a
// package's directory, when the comparison gates several, is under packages/).
func (p *pipeline) resultsName(name string) string {
	if rel, err := filepath.Rel(p.cfg.Out, string(p.dir)); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return path.Join(filepath.ToSlash(rel), name)
	}
	return name
}

// sources returns the source files of side s by the names its binaries record for them (with
// -trimpath, the module path and the file's path in the module: "example.com/xtea/xtea.go"), read
// from the exported tree; a file of another module (the standard library's, a dependency's) is not
// found.
func (p *pipeline) sources(s *side) attribution.Sources {
	modPath := modulePath(filepath.Join(s.modDir, "go.mod"))
	cache := map[string][]byte{}
	return func(file string) ([]byte, bool) {
		if b, ok := cache[file]; ok {
			return b, b != nil
		}
		var b []byte
		if rel, ok := strings.CutPrefix(file, modPath+"/"); ok && modPath != "" && !strings.Contains(rel, "..") {
			b, _ = os.ReadFile(filepath.Join(s.modDir, filepath.FromSlash(rel)))
		}
		cache[file] = b
		return b, b != nil
	}
}

// modulePath reads the module path from the go.mod file at path, "" when there is none.
func modulePath(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(strings.SplitN(strings.TrimSpace(rest), "//", 2)[0]), `"`)
		}
	}
	return ""
}
