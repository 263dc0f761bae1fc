package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/shard"
	"github.com/perfgate/perfgate/internal/version"
	"github.com/perfgate/perfgate/record"
)

// packagesRecord is what runPackages found and ran: the gated packages, the split of the work, each
// package's pipeline, and the CPU the packages' benchmarks were pinned to.
type packagesRecord struct {
	rels      []string    // every gated package, relative to the directory perfgate runs in (-C)
	plan      *shard.Plan // the split of the work when cfg.Shard is set
	parts     []*pipeline // the packages' pipelines, in the order they ran
	pinnedCPU int         // -1 when unpinned
	notes     []string
}

// multi reports whether the comparison gates several packages, is a shard, or chooses its packages
// (changed).
func (p *pipeline) multi() bool {
	pkgs := p.cfg.Packages()
	return p.cfg.Shard.Sharded() || p.cfg.Changed || len(pkgs) > 1 || len(pkgs) == 1 && strings.Contains(pkgs[0], "...")
}

// runPackages lists the packages on base, splits the work when the comparison is a shard, and runs
// every package that has work in this shard. A package whose pipeline fails does not stop the
// others: what they find stands above what could not run (gate.Stopped), so the errors are returned
// together (errors.Join), each naming its package, after every package ran. Only the context's end
// stops the run. Whatever ran is kept.
//
// A comparison that gates several packages (-pkg ./a,./b or a pattern such as ./cipher/...) or runs
// as a shard (-shard i/n) exports both revisions once, then runs each package in a pipeline of its
// own (forPackage), with exactly the phases of a single-package comparison (runPackage), and
// combines the packages' records (shard.Combine). Each package's files go to packages/PATH/ in the
// results directory; bench.txt and sizes.txt at the top concatenate them. A shard runs only its
// units of work (shard.NewPlan): a package's checks (build, tests, differential, sizes) in exactly
// one shard, and each top-level benchmark in exactly one shard. perfgate merge combines the shards'
// results with the same shard.Combine.
func (p *pipeline) runPackages(ctx context.Context) error {
	listed, err := gobuild.ListPackages(ctx, p.listConfig(&p.base), p.cfg.Packages())
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Several packages are listed from the directory perfgate runs in: patterns reach only into
		// its module.
		return fmt.Errorf("base: %w", &config.Error{Key: "package", Value: p.cfg.Package,
			Want: "packages or patterns of the module of the directory perfgate runs in (-C): " + err.Error()})
	}
	var pkgs []bench.Package
	var noTests []string
	for _, pk := range listed {
		if !pk.HasTests {
			noTests = append(noTests, pk.Rel)
			continue
		}
		pkgs = append(pkgs, pk)
		p.packages.rels = append(p.packages.rels, pk.Rel)
	}
	if len(noTests) > 0 {
		p.packages.notes = append(p.packages.notes, "not gated, no test files: "+strings.Join(noTests, ", "))
	}
	if len(pkgs) == 0 {
		return &config.Error{Key: "package", Value: p.cfg.Package, Want: "packages with test files on base"}
	}
	if p.cfg.Changed {
		same, err := p.unchangedPackages(ctx, p.packages.rels)
		if err != nil {
			return err
		}
		if len(same) > 0 {
			p.packages.notes = append(p.packages.notes, "not gated, unchanged (changed: true; no file of theirs or "+
				"of their dependencies in the module differs): "+strings.Join(same, ", "))
		}
		pkgs = slices.DeleteFunc(pkgs, func(pk bench.Package) bool { return slices.Contains(same, pk.Rel) })
		p.packages.rels = slices.DeleteFunc(p.packages.rels, func(rel string) bool { return slices.Contains(same, rel) })
		if len(pkgs) == 0 {
			p.logf("no gated package changed")
			return nil
		}
	}
	part := 1
	if p.cfg.Shard.Sharded() {
		costs, err := shard.ReadCosts(p.cfg.ShardCosts)
		if err != nil {
			return err
		}
		p.packages.plan = shard.NewPlan(pkgs, p.cfg.Shard.Count, costs)
		part = p.cfg.Shard.Index
		p.logf("shard %s: %s", p.cfg.Shard, strings.Join(p.packages.plan.UnitsOf(part), ", "))
	}
	defer p.gatherFiles()
	var errs []error
	for _, pk := range pkgs {
		checks, tops := true, []string(nil)
		if p.packages.plan != nil {
			checks, tops = p.packages.plan.Work(part, pk.Rel)
			if !checks && len(tops) == 0 {
				continue
			}
		}
		q, err := p.forPackage(pk.Rel, !checks, tops)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		p.logf("package %s", pk.Rel)
		p.packages.parts = append(p.packages.parts, q)
		if err := q.runPackage(ctx); err != nil {
			if ctx.Err() != nil {
				return errors.Join(append(errs, fmt.Errorf("%s: %w", pk.Rel, err))...)
			}
			p.logf("error: %s: %v; the other packages still run", pk.Rel, err)
			errs = append(errs, fmt.Errorf("%s: %w", pk.Rel, err))
		}
		if q.bench.pinnedCPU >= 0 {
			p.packages.pinnedCPU = q.bench.pinnedCPU
		}
	}
	return errors.Join(errs...)
}

// forPackage returns the pipeline of one package of p: the same trees and configuration, its own
// work and results subdirectory, and no records yet.
func (p *pipeline) forPackage(rel string, skipChecks bool, tops []string) (*pipeline, error) {
	q := &pipeline{cfg: p.cfg, log: p.log, dir: p.dir.Package(rel), started: p.started, base: p.base, head: p.head,
		rel: p.rel, skipChecks: skipChecks, tops: tops, sandbox: p.sandbox, store: p.store, phases: &phases{},
		valgrind: p.valgrind}
	q.cfg.Package, q.cfg.Shard, q.cfg.Changed = rel, config.Shard{}, false
	q.bench.pinnedCPU = -1
	q.work = filepath.Join(p.work, "packages", filepath.FromSlash(strings.TrimPrefix(rel, "./")))
	if err := os.MkdirAll(q.work, 0o755); err != nil {
		return nil, err
	}
	if err := q.dir.Create(); err != nil {
		return nil, err
	}
	for _, s := range []*side{&q.base, &q.head} {
		s.bin = filepath.Join(q.work, string(s.name)+".test")
		s.built, s.listLog, s.sha = false, nil, ""
	}
	return q, nil
}

// listConfig is the go command's configuration for listing packages on side s: in the directory
// perfgate runs in (-C), where relative packages and patterns start, inside the side's tree.
func (p *pipeline) listConfig(s *side) gobuild.Config {
	c := p.buildConfig(s)
	c.Dir, c.Pkg = filepath.Join(s.tree.Dir, filepath.FromSlash(p.rel)), "."
	return c
}

// gatherFiles writes bench.txt and sizes.txt as the concatenation of the packages' files.
func (p *pipeline) gatherFiles() {
	dirs := make([]results.Dir, len(p.packages.parts))
	for i, q := range p.packages.parts {
		dirs[i] = q.dir
	}
	for _, name := range []string{results.FileBench, results.FileSizes} {
		if err := p.dir.Concat(name, dirs); err != nil {
			p.logf("warning: %v", err)
		}
	}
}

// assembleParts is assemble for several packages or a shard: the packages' Results, combined.
func (p *pipeline) assembleParts(env record.Env, incomplete bool) record.Result {
	parts := make([]record.Result, 0, len(p.packages.parts))
	for _, q := range p.packages.parts {
		r := q.assemble(env, incomplete)
		if q.skipChecks {
			r.Functional, r.Differential, r.Sizes = record.Functional{}, record.Differential{}, record.Sizes{}
		}
		parts = append(parts, r)
	}
	r := shard.Combine(parts, p.statsOptions())
	r.Package, r.Packages = p.cfg.Package, p.packages.rels
	if r.Packages == nil {
		r.Packages = []string{}
	}
	r.Base, r.Head, r.Env, r.Incomplete = p.base.rev, p.head.rev, env, incomplete
	r.Notes = slices.Concat(p.session.notes, p.packages.notes, r.Notes)
	r.Started, r.Duration = p.started, time.Since(p.started).Round(time.Millisecond)
	r.Method.Rounds, r.Method.Threshold, r.Method.Alpha = p.cfg.Rounds, p.cfg.Threshold, p.cfg.Alpha
	// the shortest run a part's budget chose
	r.Method.BenchTime = cmp.Or(r.Method.BenchTime, p.cfg.BenchTime.Duration)
	r.Method.BenchIters = p.cfg.BenchTime.Iters
	p.fillDefaults(&r)
	if p.packages.plan != nil {
		r.Shard = p.shardRecord()
	}
	return r
}

func (p *pipeline) statsOptions() bench.StatsOptions {
	opt := bench.DefaultStatsOptions
	opt.Alpha, opt.ThresholdPct = p.cfg.Alpha, p.cfg.Threshold
	return opt
}

// shardRecord is what the shard's result says about the shard, for perfgate merge to check.
func (p *pipeline) shardRecord() *record.Shard {
	policy, _ := json.Marshal(p.cfg.Policy())
	return &record.Shard{
		Index:    p.cfg.Shard.Index,
		Count:    p.cfg.Shard.Count,
		Units:    p.packages.plan.UnitsOf(p.cfg.Shard.Index),
		Plan:     p.packages.plan.Fingerprint(),
		Config:   configFingerprint(p.cfg),
		Perfgate: version.String(),
		Policy:   string(policy),
	}
}

// configFingerprint is a digest of every setting that decides the numbers or the gate: the whole
// Config but the shard, where it runs and writes, and which revisions (merge compares the commits
// themselves).
func configFingerprint(c config.Config) string {
	c.Shard, c.ShardCosts, c.Out, c.Dir, c.Cache, c.Log, c.Base, c.Head = config.Shard{}, "", "", "", "", nil, "", ""
	data, err := json.Marshal(c)
	if err != nil {
		panic("perfgate: Config does not marshal: " + err.Error()) // it holds only plain values
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12])
}
