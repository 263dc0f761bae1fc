package perfgate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/record"
)

// Several packages and shards.
//
// A comparison that gates several packages (-pkg ./a,./b or a pattern such as ./cipher/...) or runs as a shard
// (-shard i/n) exports both revisions once, then runs each package in a pipeline of its own (forPackage), with
// exactly the phases of a single-package comparison (runPackage), and combines the packages' records (combine).
// Each package's files go to packages/PATH/ in the results directory; bench.txt and sizes.txt at the top
// concatenate them. A shard runs only its units of work (shardPlan): a package's checks (build, tests,
// differential, sizes) in exactly one shard, and each top-level benchmark in exactly one shard. perfgate merge
// combines the shards' results with the same combine.

// multi reports whether the comparison gates several packages, is a shard, or chooses its packages (changed).
func (p *pipeline) multi() bool {
	pkgs := p.cfg.Packages()
	return p.cfg.Shard.Sharded() || p.cfg.Changed || len(pkgs) > 1 || len(pkgs) == 1 && strings.Contains(pkgs[0], "...")
}

// runPackages lists the packages on base, splits the work when the comparison is a shard, and runs every
// package that has work in this shard. Whatever ran before an error is kept.
func (p *pipeline) runPackages(ctx context.Context) error {
	listed, err := bench.ListPackages(ctx, p.listConfig(&p.base), p.cfg.Packages())
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Several packages are listed from the directory perfgate runs in: patterns reach only into its module.
		return fmt.Errorf("base: %w", &ConfigError{Key: "package", Value: p.cfg.Package,
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
		p.packages = append(p.packages, pk.Rel)
	}
	if len(noTests) > 0 {
		p.build.notes = append(p.build.notes, "not gated, no test files: "+strings.Join(noTests, ", "))
	}
	if len(pkgs) == 0 {
		return &ConfigError{Key: "package", Value: p.cfg.Package, Want: "packages with test files on base"}
	}
	if p.cfg.Changed {
		same, err := p.unchangedPackages(ctx, p.packages)
		if err != nil {
			return err
		}
		if len(same) > 0 {
			p.build.notes = append(p.build.notes, "not gated, unchanged (changed: true; no file of theirs or of their dependencies in the module differs): "+strings.Join(same, ", "))
		}
		pkgs = slices.DeleteFunc(pkgs, func(pk bench.Package) bool { return slices.Contains(same, pk.Rel) })
		p.packages = slices.DeleteFunc(p.packages, func(rel string) bool { return slices.Contains(same, rel) })
		if len(pkgs) == 0 {
			p.logf("no gated package changed")
			return nil
		}
	}
	shard := 1
	if p.cfg.Shard.Sharded() {
		costs, err := readCosts(p.cfg.ShardCosts)
		if err != nil {
			return err
		}
		p.plan = planShards(pkgs, p.cfg.Shard.Count, costs)
		shard = p.cfg.Shard.Index
		p.logf("shard %s: %s", p.cfg.Shard, strings.Join(p.plan.unitsOf(shard), ", "))
	}
	defer p.gatherFiles()
	for _, pk := range pkgs {
		checks, tops := true, []string(nil)
		if p.plan != nil {
			checks, tops = p.plan.work(shard, pk.Rel)
			if !checks && len(tops) == 0 {
				continue
			}
		}
		q, err := p.forPackage(pk.Rel, !checks, tops)
		if err != nil {
			return err
		}
		p.logf("package %s", pk.Rel)
		p.parts = append(p.parts, q)
		if err := q.runPackage(ctx); err != nil {
			return fmt.Errorf("%s: %w", pk.Rel, err)
		}
		if q.bench.pinnedCPU >= 0 {
			p.bench.pinnedCPU = q.bench.pinnedCPU
		}
	}
	return nil
}

// forPackage returns the pipeline of one package of p: the same trees and configuration, its own work and
// results subdirectory, and no records yet.
func (p *pipeline) forPackage(rel string, skipChecks bool, tops []string) (*pipeline, error) {
	q := &pipeline{cfg: p.cfg, log: p.log, dir: p.dir.Package(rel), started: p.started, base: p.base, head: p.head,
		rel: p.rel, skipChecks: skipChecks, tops: tops}
	q.cfg.Package, q.cfg.Shard = rel, Shard{}
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
		s.built, s.listLog = false, nil
	}
	return q, nil
}

// listConfig is the go command's configuration for listing packages on side s: in the directory perfgate runs in
// (-C), where relative packages and patterns start, inside the side's tree.
func (p *pipeline) listConfig(s *side) bench.BuildConfig {
	c := p.buildConfig(s)
	c.Dir, c.Pkg = filepath.Join(s.tree.Dir, filepath.FromSlash(p.rel)), "."
	return c
}

// gatherFiles writes bench.txt and sizes.txt as the concatenation of the packages' files.
func (p *pipeline) gatherFiles() {
	dirs := make([]ResultsDir, len(p.parts))
	for i, q := range p.parts {
		dirs[i] = q.dir
	}
	for _, name := range []string{FileBench, FileSizes} {
		if err := p.dir.Concat(name, dirs); err != nil {
			p.logf("warning: %v", err)
		}
	}
}

// assembleParts is assemble for several packages or a shard: the packages' Results, combined.
func (p *pipeline) assembleParts(env Env, incomplete bool) Result {
	parts := make([]Result, 0, len(p.parts))
	for _, q := range p.parts {
		r := q.assemble(env, incomplete)
		if q.skipChecks {
			r.Functional, r.Differential, r.Sizes = Functional{}, Differential{}, Sizes{}
		}
		parts = append(parts, r)
	}
	r := combine(parts, p.statsOptions())
	r.Package, r.Packages = p.cfg.Package, p.packages
	if r.Packages == nil {
		r.Packages = []string{}
	}
	r.Base, r.Head, r.Env, r.Incomplete = p.base.rev, p.head.rev, env, incomplete
	r.Policy = p.cfg.PolicyOrigin
	if r.Policy.From == "" {
		r.Policy.From = record.Head // the configuration as given
	}
	r.HeadBuildFailed = r.HeadBuildFailed || p.build.headFailed
	r.Notes = slices.Concat(p.build.notes, r.Notes)
	r.Started, r.Duration = p.started, time.Since(p.started).Round(time.Millisecond)
	r.Method.Rounds, r.Method.Threshold, r.Method.Alpha = p.cfg.Rounds, p.cfg.Threshold, p.cfg.Alpha
	r.Method.BenchTime = cmp.Or(r.Method.BenchTime, p.cfg.BenchTime) // the shortest run a part's budget chose
	if r.Differential.Status == "" {
		r.Differential = Differential{Status: DiffSkipped, Seed: p.cfg.Seed, Ciphers: []DiffCipher{}}
		switch {
		case !p.cfg.Differential:
			r.Differential.Reason = "disabled by configuration"
		case p.plan != nil:
			r.Differential.Reason = "checked in another shard"
		}
	}
	if p.bench.pinnedCPU < 0 {
		r.Env.PinnedCPU, r.Env.Pinned = -1, false
	}
	if p.plan != nil {
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
		Units:    p.plan.unitsOf(p.cfg.Shard.Index),
		Plan:     p.plan.fingerprint(),
		Config:   configFingerprint(p.cfg),
		Perfgate: Version(),
		Policy:   string(policy),
	}
}

// configFingerprint is a digest of every setting that decides the numbers or the gate: the whole Config but the
// shard, where it runs and writes, and which revisions (merge compares the commits themselves).
func configFingerprint(c Config) string {
	c.Shard, c.ShardCosts, c.Out, c.Dir, c.Cache, c.Log, c.Base, c.Head = Shard{}, "", "", "", "", nil, "", ""
	data, err := json.Marshal(c)
	if err != nil {
		panic("perfgate: Config does not marshal: " + err.Error()) // it holds only plain values
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12])
}

// Version is this perfgate's version: its module version, else its VCS revision, else "devel".
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "devel"
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			v += " " + s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			v += " (modified)"
		}
	}
	return v
}

// A shardUnit is one indivisible part of the work: a package's checks (top "") or one top-level benchmark.
type shardUnit struct {
	pkg, top string
	cost     float64
	shard    int // 1-based
}

func (u shardUnit) String() string {
	if u.top == "" {
		return u.pkg
	}
	return u.pkg + " Benchmark" + u.top
}

// shardPlan is the split of a comparison's work over count shards. Every shard computes it from the same base
// tree, so they agree on it without talking to each other.
type shardPlan struct {
	units []shardUnit
	count int
}

// planShards splits the packages' units over count shards: costliest first, each to the shard with the least work
// so far (lowest index on ties). A top-level benchmark costs its number of leaf benchmarks in costs (an earlier
// run's: every leaf takes one calibration and 4×rounds runs of benchtime, however fast the code is), else 1; a
// package's checks (one build, one test run, one differential check) cost 1.
func planShards(pkgs []bench.Package, count int, costs map[string]float64) *shardPlan {
	pl := &shardPlan{count: count}
	for _, pk := range pkgs {
		pl.units = append(pl.units, shardUnit{pkg: pk.Rel, cost: 1})
		for _, top := range pk.Benchmarks {
			u := shardUnit{pkg: pk.Rel, top: top, cost: 1}
			if c, ok := costs[u.String()]; ok {
				u.cost = c
			}
			pl.units = append(pl.units, u)
		}
	}
	order := make([]int, len(pl.units))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch ca, cb := pl.units[a].cost, pl.units[b].cost; {
		case ca > cb:
			return -1
		case ca < cb:
			return 1
		}
		return 0
	})
	load := make([]float64, count)
	for _, i := range order {
		best := 0
		for s := range load {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += pl.units[i].cost
		pl.units[i].shard = best + 1
	}
	return pl
}

// work returns what shard does of package pkg: its checks, and which top-level benchmarks (non-nil).
func (pl *shardPlan) work(shard int, pkg string) (checks bool, tops []string) {
	tops = []string{}
	for _, u := range pl.units {
		if u.pkg != pkg || u.shard != shard {
			continue
		}
		if u.top == "" {
			checks = true
		} else {
			tops = append(tops, u.top)
		}
	}
	return checks, tops
}

// unitsOf names the units of shard, in plan order.
func (pl *shardPlan) unitsOf(shard int) []string {
	out := []string{}
	for _, u := range pl.units {
		if u.shard == shard {
			out = append(out, u.String())
		}
	}
	return out
}

// fingerprint is a digest of the whole plan: every unit and its shard.
func (pl *shardPlan) fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", pl.count)
	for _, u := range pl.units {
		fmt.Fprintf(h, "%d\t%s\n", u.shard, u)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// readCosts reads the cost of every top-level benchmark from an earlier run's results (a directory or its
// result.json), by shardUnit name: its leaf benchmarks in the gated unit, each weighted by (1 + head/base) / 2,
// since head runs base's iteration count. "" reads nothing.
func readCosts(path string) (map[string]float64, error) {
	if path == "" {
		return nil, nil
	}
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	r, err := ResultsDir(dir).ReadResult(maxResultFile)
	if err != nil {
		return nil, &ConfigError{Key: "shard-costs", Value: path, Want: "a results directory or its result.json (" + err.Error() + ")"}
	}
	costs := map[string]float64{}
	for _, b := range r.Benchmarks {
		if b.Unit != GatedUnit {
			continue
		}
		pkg := b.Package
		if pkg == "" {
			pkg = r.Package
		}
		top, _, _ := strings.Cut(b.Name, "/")
		// A leaf runs base's calibrated iteration count on both sides: half its runs last benchtime, the other
		// half benchtime × head/base.
		ratio := 1.0
		if b.Base.Center > 0 && b.Head.Center > 0 {
			ratio = b.Head.Center / b.Base.Center
		}
		costs[shardUnit{pkg: pkg, top: top}.String()] += (1 + ratio) / 2
	}
	return costs, nil
}
