package pipeline

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// The store (package internal/store) keeps what a side's checks produced between runs: a harness's
// outputs, a constant-time trace's analysis, a test run's result, each under a key of the sealed
// binary that produced it and its input. Timings are never kept: both sides are timed fresh, here
// and now.

// openStore opens the store the key cache names ("" for the user's cache directory, "off" for
// none). A store that cannot be opened costs time, not the comparison: a warning, and the run goes
// on without it.
func (p *pipeline) openStore() {
	if p.cfg.Store == store.Off {
		return
	}
	dir := p.cfg.Store
	if dir == "" {
		d, err := store.DefaultDir()
		if err != nil {
			p.logf("warning: no store of artifacts: %v", err)
			return
		}
		dir = d
	}
	if strings.HasPrefix(store.Program(), "unknown") {
		// perfgate's own digest is part of every key; without it an entry of another perfgate could
		// be read.
		p.logf("warning: no store of artifacts: perfgate cannot read its own executable (%s)", store.Program())
		return
	}
	var mu sync.Mutex
	st, err := store.Open(store.Config{Dir: dir, Warn: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		p.logf("warning: %s", msg)
		p.session.notes = append(p.session.notes, msg)
	}})
	if err != nil {
		p.logf("warning: no store of artifacts: %v", err)
		return
	}
	p.store = st
	p.logf("store of artifacts: %s", dir)
}

// testKey is the store's key of a side's test run: its sealed binary, the tree it runs in (tests
// read their testdata), the arguments and what the sandbox allows. A working tree's edits are not
// in a commit's name: its tests are not kept.
func (p *pipeline) testKey(s *side, args []string) (store.Key, bool) {
	if p.store == nil || s.sha == "" || s.rev.Dirty || s.rev.Commit == "" || s.tree == nil {
		return store.Key{}, false
	}
	if s.name == record.Head && p.cfg.Head == "" {
		return store.Key{}, false // the working tree: files git does not track can be read too
	}
	return store.NewKey("test-run", store.Program(), s.sha, s.rev.Commit, p.rel, strings.Join(args, "\x00"),
		p.buildKey(s), strconv.FormatBool(p.cfg.AllowNetwork), p.sandbox.Guarantee().String()), true
}

// storedTest is a test run kept in the store: only passing runs are kept (a failure is run again,
// so that a flaky one is not repeated from the store).
type storedTest struct {
	Passed bool   `json:"passed"`
	Output []byte `json:"output"`
}

// usedFeatures disassembles bins (test binaries sealed by this comparison), both at once, and
// returns for each a function that says which of a subset of features it has instructions of. What
// a binary uses of features is kept in the store under its digest: disassembling a test binary
// takes seconds, and nothing is timed meanwhile.
func (p *pipeline) usedFeatures(ctx context.Context, bins []string, features []string) ([]func([]string) []string, []error) {
	uses := make([]func([]string) []string, len(bins))
	errs := make([]error, len(bins))
	var wg sync.WaitGroup
	for i, bin := range bins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sha := p.sealedSHA(bin)
			// the patterns are perfgate's
			key := store.NewKey("uses-features", store.Program(), sha, strings.Join(features, ","))
			var used []string
			if sha == "" || !p.store.GetJSON(key, &used) {
				stdout, err := p.disassemble(ctx, bin)
				if err != nil {
					errs[i] = err
					return
				}
				used = valgrind.UsesFeatures(stdout, features)
				if used == nil {
					used = []string{}
				}
				if sha != "" {
					p.store.PutJSON(key, "features used by "+filepath.Base(bin), used)
				}
			}
			uses[i] = func(subset []string) []string {
				var out []string
				for _, f := range used {
					if slices.Contains(subset, f) {
						out = append(out, f)
					}
				}
				return out
			}
		}()
	}
	wg.Wait()
	return uses, errs
}

// sealedSHA returns the SHA-256 the comparison sealed path with, "" for a path it did not seal.
func (p *pipeline) sealedSHA(path string) string {
	switch path {
	case "":
		return ""
	case p.base.bin:
		return p.base.sha
	case p.head.bin:
		return p.head.sha
	case p.source.baseBin:
		return p.source.baseSHA
	}
	return ""
}

// decisions is the compiler's -m=2 report of the gated package on side s (gobuild.Decisions), kept
// in the store under the side's test binary's digest: the same binary is the same code, compiled
// the same way.
func (p *pipeline) decisions(ctx context.Context, s *side, limit time.Duration) ([]byte, error) {
	key := store.NewKey("compiler-decisions", store.Program(), s.sha, p.importPath, strings.Join(p.cfg.Tags, ","),
		p.buildKey(s))
	if s.sha != "" {
		if out, ok := p.store.Output(key); ok {
			return out, nil
		}
	}
	cfg := p.buildConfig(s)
	cfg.Timeout = limit
	out, err := gobuild.Decisions(ctx, cfg, p.importPath)
	if err == nil && s.sha != "" {
		p.store.PutOutput(key, string(s.name)+" compiler decisions", out)
	}
	return out, err
}
