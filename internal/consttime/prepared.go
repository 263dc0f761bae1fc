package consttime

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/samecode"
	"github.com/perfgate/perfgate/record"
)

// The check in two steps, for a pipeline that builds everything before any repository code runs:
// Prepare discovers, builds and seals both drivers (and compares their machine code); Trace runs
// them later. Options make it cheap enough to run by default: constructors whose code did not
// change are not traced, and the tracing has a budget.

// Options are what a check run by default adds to Config.
type Options struct {
	// SameCode leaves out the constructors whose driver function (BenchmarkCT<Name>) reaches the
	// same machine code in both drivers (package samecode): their traces would be the same. They
	// are listed in NotTraced.
	SameCode bool
	// Budget bounds the tracing's CPU time per side: valgrind's user and system time, which a
	// loaded machine does not inflate as it does wall time (building is not counted). The
	// constructors are traced one at a time, both sides at once; once either side has used Budget,
	// the rest are listed in NotTraced. The constructor running when it runs out finishes
	// (Config.Timeout bounds it). 0 means no budget.
	Budget time.Duration
}

// Prepared is both sides' drivers, discovered, built and sealed; nothing of the repository has run.
type Prepared struct {
	cfg        Config
	opt        Options
	ct         *record.ConstantTime
	base, head *sideResult
	start      time.Time
	removeWork bool // cfg.WorkDir is Prepare's own
	done       bool // ct is final (valgrind missing)
}

// Prepare discovers the constructors of cfg.Pkg on both sides and builds and seals both drivers, at
// once. A machine without valgrind gets a Prepared whose Trace returns status unavailable. The
// error is for a bad Config or a cancelled ctx; call Close when done.
func Prepare(ctx context.Context, cfg Config, opt Options) (*Prepared, error) {
	p := &Prepared{opt: opt, start: time.Now()}
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	p.ct = &record.ConstantTime{Secrets: cfg.Secrets, BatchSecrets: cfg.BatchSecrets, BatchBlocks: cfg.BatchBlocks,
		Seed: cfg.Seed, Operations: []record.CTOperation{}, Budget: opt.Budget}
	version, err := findValgrind(ctx, &cfg)
	if err != nil {
		p.ct.Status, p.ct.Reason, p.done = record.CTUnavailable, err.Error(), true
		p.cfg = cfg
		return p, nil
	}
	p.ct.Tool = version + " lackey"
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "perfgate-consttime-")
		if err != nil {
			return nil, fmt.Errorf("consttime: %w", err)
		}
		cfg.WorkDir, p.removeWork = dir, true
	}
	p.cfg = cfg
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.base = prepare(ctx, &p.cfg, cfg.BaseDir, "base") }()
	go func() { defer wg.Done(); p.head = prepare(ctx, &p.cfg, cfg.HeadDir, "head") }()
	wg.Wait()
	if ctx.Err() != nil {
		p.Close()
		return nil, ctx.Err()
	}
	return p, nil
}

// Close removes the work directory Prepare made.
func (p *Prepared) Close() {
	if p.removeWork {
		os.RemoveAll(p.cfg.WorkDir)
		p.removeWork = false
	}
}

// Trace runs the drivers Prepare built, one constructor at a time (both sides at once), leaves out
// what Options say, and compares the runs. Only a cancelled ctx is an error.
func (p *Prepared) Trace(ctx context.Context) (*record.ConstantTime, error) {
	ct := p.ct
	if p.done {
		return ct, nil
	}
	cfg := &p.cfg
	names := p.constructors()
	left := map[string]record.CTNotTracedReason{}
	if p.opt.SameCode {
		for n := range p.sameCode(names) {
			left[n] = record.CTSameCode
		}
	}
	for _, n := range names {
		if left[n] != "" || p.base.err != nil || p.head.err != nil {
			continue
		}
		if p.opt.Budget > 0 && max(p.base.cpu, p.head.cpu) >= p.opt.Budget {
			left[n] = record.CTBudget
			continue
		}
		only := []string{n}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); p.base.trace(ctx, cfg, only...) }()
		go func() { defer wg.Done(); p.head.trace(ctx, cfg, only...) }()
		wg.Wait()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if n := len(left); n > 0 && p.opt.Budget > 0 && max(p.base.cpu, p.head.cpu) >= p.opt.Budget {
		cfg.Logf("consttime: the budget of %v of CPU per side ran out\n", p.opt.Budget)
	}
	ct.Duration = time.Since(p.start)
	ct.CPU = p.base.cpuOf() + p.head.cpuOf()
	combine(ct, p.base, p.head)
	for _, n := range names {
		if r := left[n]; r != "" {
			ct.NotTraced = append(ct.NotTraced, record.CTNotTraced{Constructor: n, Reason: r})
		}
	}
	if ct.Status == record.CTSkipped && len(ct.NotTraced) > 0 {
		// Every constructor was left out: by the same-code proof (checked: the code is base's, and
		// base's findings stand), or by the budget (skipped, and the reason says so).
		ct.Status, ct.Reason = record.CTChecked, ""
		if len(ct.LeftOut(record.CTBudget)) > 0 {
			ct.Status, ct.Reason = record.CTSkipped, fmt.Sprintf("the budget (%v of CPU per side) ran out before "+
				"any constructor was traced", p.opt.Budget)
		}
	}
	return ct, nil
}

// constructors returns the constructors of both sides, base's order first.
func (p *Prepared) constructors() []string {
	var out []string
	for _, s := range []*sideResult{p.base, p.head} {
		for _, n := range s.targets {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// sameCode returns the constructors of both sides whose driver functions reach the same machine
// code. An analysis that cannot run (or fails) leaves every constructor to be traced.
func (p *Prepared) sameCode(names []string) map[string]bool {
	same := map[string]bool{}
	if p.base.bin == "" || p.head.bin == "" || p.base.err != nil || p.head.err != nil {
		return same
	}
	var roots []string
	for _, n := range names {
		if slices.Contains(p.base.targets, n) && slices.Contains(p.head.targets, n) {
			roots = append(roots, driverRoot+n)
		}
	}
	if len(roots) == 0 {
		return same
	}
	if err := p.base.sealed.Verify(); err != nil {
		return same
	}
	if err := p.head.sealed.Verify(); err != nil {
		return same
	}
	rep, err := analyzeDrivers(p.base.bin, p.head.bin, roots)
	if err != nil || (rep.Fallback != "" && !rep.Identical) {
		why := "the analysis failed"
		if err != nil {
			why = err.Error()
		} else if rep != nil {
			why = rep.Fallback
		}
		p.cfg.Logf("consttime: machine code of the drivers not compared (%s): tracing every constructor\n", why)
		return same
	}
	for _, n := range names {
		if v, ok := rep.Benchmarks[driverRoot+n]; ok && v.Same {
			same[n] = true
		} else if ok {
			p.cfg.Logf("consttime: %s: code changed: %s\n", n, v.Reason)
		}
	}
	return same
}

// driverRoot prefixes a constructor's name in its driver function's: BenchmarkCT<Name>, which
// samecode knows as the benchmark CT<Name>.
const driverRoot = "CT"

// analyzeDrivers is samecode.Analyze with a panic turned into an error: the drivers hold head's
// code.
func analyzeDrivers(baseBin, headBin string, roots []string) (rep *samecode.Report, err error) {
	defer func() {
		if v := recover(); v != nil {
			rep, err = nil, fmt.Errorf("the analysis failed: %v", v)
		}
	}()
	return samecode.Analyze(baseBin, headBin, roots)
}

func (res *sideResult) cpuOf() time.Duration {
	if res == nil {
		return 0
	}
	return res.cpu
}
