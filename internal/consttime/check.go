package consttime

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// Defaults of Config.
const (
	DefaultSecrets = 6
	// DefaultBatchSecrets and DefaultBatchBlocks: a batch method gets 64 blocks, so that a
	// bitsliced engine of 64 lanes runs full, under fewer secrets, since each secret's trace is 64
	// blocks long and holds 64 random plaintexts.
	DefaultBatchSecrets = 2
	DefaultBatchBlocks  = 64
	DefaultSeed         = 0x6374696d65 // "ctime"
	DefaultTimeout      = 5 * time.Minute
)

// Config says what to trace and how.
type Config struct {
	// Sides are the two trees, the package, and how the check builds and runs its drivers
	// (subject.Sides): Seed is the seed of the secrets (default DefaultSeed), Timeout the limit of
	// one side's traced run (default DefaultTimeout); Sandbox confines both drivers and valgrind,
	// which runs them.
	subject.Sides
	// random secrets per operation (at least 2), besides the re-run; default DefaultSecrets
	Secrets      int
	BatchSecrets int    // Secrets of batch methods (EncryptBlocks…); default DefaultBatchSecrets
	BatchBlocks  int    // blocks per batch call; default DefaultBatchBlocks
	Valgrind     string // the valgrind program; default "valgrind" in PATH
	// Constructors, if set, narrows the check to these constructors (the others are not traced, nor
	// listed); default: every one discovery finds.
	Constructors []string

	tool    string   // valgrind's version, once found
	godebug []string // valgrind.Host.Off: what every traced driver runs with (findValgrind)
}

func (c *Config) fill() error {
	if err := c.Resolve(); err != nil {
		return fmt.Errorf("consttime: %w", err)
	}
	switch {
	case c.Secrets == 0:
		c.Secrets = DefaultSecrets
	case c.Secrets < 2:
		return fmt.Errorf("consttime: Secrets is %d; at least 2 secrets are needed to compare", c.Secrets)
	}
	switch {
	case c.BatchSecrets == 0:
		c.BatchSecrets = DefaultBatchSecrets
	case c.BatchSecrets < 2:
		return fmt.Errorf("consttime: BatchSecrets is %d; at least 2 secrets are needed to compare", c.BatchSecrets)
	}
	if c.BatchBlocks <= 0 {
		c.BatchBlocks = DefaultBatchBlocks
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.Seed = cmp.Or(c.Seed, DefaultSeed)
	c.Valgrind = cmp.Or(c.Valgrind, "valgrind")
	return nil
}

// findValgrind resolves cfg.Valgrind and asks it for its version.
func findValgrind(ctx context.Context, cfg *Config) (string, error) {
	vg, err := valgrind.Find(ctx, cfg.Valgrind, "the constant-time check traces with valgrind's lackey")
	if err != nil {
		return "", err
	}
	cfg.Valgrind, cfg.tool = vg.Path, vg.Version
	// The drivers are Go programs: they run with the CPU features valgrind cannot run here turned
	// off.
	host, err := valgrind.Probe(ctx, vg.Path, os.TempDir())
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		cfg.Logf("consttime: the CPU features valgrind cannot run here are unknown (%v): tracing without turning any off\n", err)
	}
	cfg.godebug = host.Off
	return vg.Version, nil
}

// sideResult is one side's traced operations, in the driver's order.
type sideResult struct {
	name    string
	bin     string         // the driver
	sealed  sandbox.Binary // its hash right after the build
	b       *binary
	ops     []opKey
	sides   map[opKey]*record.CTSide
	family  map[string]record.Family
	skipped map[string]string
	err     error
	cpu     time.Duration // valgrind's CPU time, over the side's traced runs
	targets []string      // the constructors discovery found, in the driver's order
}

type opKey struct{ ctor, op string }

// Check traces the constructors of cfg.Pkg in cfg.BaseDir and cfg.HeadDir and compares each side's
// runs under different secrets. Findings are in the result; so are a machine without valgrind
// (status unavailable) and a side that cannot be traced (status error, with the reason). The error
// is for a bad Config or a cancelled ctx.
func Check(ctx context.Context, cfg Config) (*record.ConstantTime, error) {
	start := time.Now()
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	ct := &record.ConstantTime{Secrets: cfg.Secrets, BatchSecrets: cfg.BatchSecrets, BatchBlocks: cfg.BatchBlocks,
		Seed: cfg.Seed, Operations: []record.CTOperation{}}
	version, err := findValgrind(ctx, &cfg)
	if err != nil {
		ct.Status, ct.Reason = record.CTUnavailable, err.Error()
		return ct, nil
	}
	ct.Tool = version + " lackey"
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "perfgate-consttime-")
		if err != nil {
			return nil, fmt.Errorf("consttime: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.WorkDir = dir
	}
	var base, head *sideResult
	var wg sync.WaitGroup
	wg.Add(2)
	// Both drivers are built and sealed before either runs.
	go func() { defer wg.Done(); base = prepare(ctx, &cfg, cfg.BaseDir, "base") }()
	go func() { defer wg.Done(); head = prepare(ctx, &cfg, cfg.HeadDir, "head") }()
	wg.Wait()
	wg.Add(2)
	go func() { defer wg.Done(); base.trace(ctx, &cfg) }()
	go func() { defer wg.Done(); head.trace(ctx, &cfg) }()
	wg.Wait()
	ct.Duration = time.Since(start)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	combine(ct, base, head)
	return ct, nil
}

// combine fills ct from the two sides: every operation either side traced, base's order first.
func combine(ct *record.ConstantTime, base, head *sideResult) {
	var errs []string
	for _, s := range []struct {
		name string
		r    *sideResult
	}{{"base", base}, {"head", head}} {
		if s.r.err != nil {
			errs = append(errs, s.name+": "+s.r.err.Error())
		}
	}
	if len(errs) > 0 {
		ct.Status, ct.Reason = record.CTError, strings.Join(errs, "; ")
		return
	}
	seen := map[opKey]bool{}
	for _, r := range []*sideResult{base, head} {
		for _, k := range r.ops {
			if seen[k] {
				continue
			}
			seen[k] = true
			fam := base.family[k.ctor]
			if fam == "" {
				fam = head.family[k.ctor]
			}
			ct.Operations = append(ct.Operations, record.CTOperation{Constructor: k.ctor, Family: fam,
				Operation: k.op, Base: base.sides[k], Head: head.sides[k]})
		}
	}
	if len(ct.Operations) == 0 {
		ct.Status, ct.Reason = record.CTSkipped, "no block cipher, AEAD, stream cipher or keyed hash to trace"+
			skips(base, head)
		return
	}
	ct.Status = record.CTChecked
}

func skips(base, head *sideResult) string {
	var s []string
	for name, why := range head.skipped {
		s = append(s, name+": "+why)
	}
	if len(s) == 0 {
		return ""
	}
	return " (" + strings.Join(s, "; ") + ")"
}

// prepare discovers and builds one side's driver and seals it; it runs no code of the repository.
func prepare(ctx context.Context, cfg *Config, dir, side string) *sideResult {
	res := &sideResult{name: side, sides: map[opKey]*record.CTSide{}, family: map[string]record.Family{}}
	// proc.Command scrubs the environment; cfg.BuildEnv(side) is what it adds: the side's toolchain
	// and build-time variables.
	p, err := discoverTargets(ctx, dir, cfg.Pkg, cfg.BuildFlags(side), cfg.BuildEnv(side))
	if err != nil {
		res.err = err
		return res
	}
	if len(cfg.Constructors) > 0 {
		p.Targets = slices.DeleteFunc(p.Targets, func(t target) bool { return !slices.Contains(cfg.Constructors, t.Name) })
	}
	for _, t := range p.Targets {
		res.family[t.Name] = t.Family
		res.targets = append(res.targets, t.Name)
	}
	if len(p.Targets) == 0 {
		return res
	}
	if res.bin, err = build(ctx, cfg, dir, side, p); err != nil {
		res.err = err
		return res
	}
	if res.sealed, err = sandbox.Seal(res.bin); err != nil {
		res.err = err
		return res
	}
	res.b, res.err = readBinary(res.bin, p.ImportPath)
	return res
}

// trace runs the side's driver, once both sides are built, on the constructors only names (all when
// empty), and analyses its runs; it adds valgrind's CPU time to res.cpu.
func (res *sideResult) trace(ctx context.Context, cfg *Config, only ...string) {
	if res.err != nil || res.bin == "" {
		return
	}
	key := res.storeKey(cfg, only)
	if res.fromStore(cfg, key) {
		return
	}
	before := len(res.ops)
	defer func() {
		if res.err == nil && cfg.Store != nil {
			res.keep(cfg, key, before)
		}
	}()
	t0 := time.Now()
	runs, lines, cpu, err := traceDriver(ctx, cfg, res.b, res.bin, res.sealed, only)
	res.cpu += cpu
	if err != nil {
		res.err = err
		return
	}
	cfg.Logf("consttime: %s: traced %d calls in %v\n", res.name, len(runs), time.Since(t0).Round(time.Millisecond))
	segs, skipped, err := parseSegLines(lines)
	if err != nil {
		res.err = err
		return
	}
	if res.skipped == nil {
		res.skipped = map[string]string{}
	}
	for k, v := range skipped {
		res.skipped[k] = v
	}
	res.err = res.analyse(res.b, runs, segs)
}

// analyse groups the runs by operation (consecutive calls of one constructor and operation) and
// compares each group's runs.
func (res *sideResult) analyse(b *binary, runs []*run, segs []segLine) error {
	if len(runs) != len(segs) {
		return fmt.Errorf("the driver traced %d calls and described %d", len(runs), len(segs))
	}
	for i := 0; i < len(segs); {
		j := i
		for j < len(segs) && segs[j].Ctor == segs[i].Ctor && segs[j].Op == segs[i].Op {
			if s := segs[j]; s.Index != j || s.Run != j-i {
				return fmt.Errorf("the driver's calls are out of order at %d (%s %s run %d)", j, s.Ctor, s.Op, s.Run)
			}
			j++
		}
		if j-i < 4 {
			return fmt.Errorf("the driver traced %s %s %d times, fewer than 4", segs[i].Ctor, segs[i].Op, j-i)
		}
		g := &group{ctor: segs[i].Ctor, op: segs[i].Op, segs: segs[i:j], runs: runs[i:j]}
		k := opKey{g.ctor, g.op}
		res.ops = append(res.ops, k)
		res.sides[k] = (&analyzer{b: b, g: g}).side(j - i - 2)
		i = j
	}
	return nil
}
