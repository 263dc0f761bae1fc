// Package differential checks that two revisions of a block-cipher package compute byte-identical outputs.
//
// Check works in four steps, each run for base and head side by side:
//
//  1. Discover. The gated package is loaded with golang.org/x/tools/go/packages in the side's module, and every
//     exported func(key []byte) (T, error) whose T implements crypto/cipher.Block is a cipher constructor
//     (Config.Constructors narrows the list). The exported methods func(dst, src []byte) of T named Encrypt… or
//     Decrypt… (other than Encrypt and Decrypt) are its batch methods, such as EncryptBlocks.
//  2. Build. A harness main package that imports the gated package is generated and built with go build -overlay:
//     its main.go appears at a virtual path below the package's directory, so nothing is written into the tree.
//  3. Probe. Each harness reports which key sizes (1..64 bytes) each constructor accepts.
//  4. Run and compare. For every constructor and key size both sides accept, perfgate generates Keys keys (the
//     weak, semi-weak and possibly weak DES keys, with and without parity bits, single-bit keys, degenerate
//     Triple-DES keys, random keys) and for each key Blocks random plaintexts and Blocks random ciphertexts, all
//     from Config.Seed. The same byte stream goes to both harnesses on stdin; each encrypts and decrypts every
//     block one by one and in one call per batch method, and writes the outputs to stdout. perfgate compares the
//     two streams block by block, hashes them (SHA-256 per constructor and direction) and describes the first
//     mismatches. A batch method that disagrees with the single-block method on the same side is reported too.
//
// Constructors, key sizes and batch methods present on one side only are listed, not failed. A head that does not
// build, panics or hangs fails the check (Status "mismatch", HeadFailed); a base that does makes the check
// "not-comparable". A package without cipher constructors is "skipped".
package differential

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
)

// Defaults of Config.
const (
	DefaultKeys    = 1024
	DefaultBlocks  = 17
	DefaultSeed    = 0x5045524647415445 // "PERFGATE"
	DefaultTimeout = 2 * time.Minute
)

// Config says what to compare and how.
type Config struct {
	BaseDir, HeadDir string        // module roots of the two trees; never written to
	Pkg              string        // the gated package, relative to the module root ("./cipher/des"); default "."
	Constructors     []string      // if set, only these constructors (still type-checked); default: discover
	Keys             int           // keys per constructor and key size; default DefaultKeys
	Blocks           int           // blocks per key and direction; default DefaultBlocks
	Seed             uint64        // seed of every input; 0 means DefaultSeed
	Tags             []string      // build tags, for loading and building both sides
	Cache            string        // GOCACHE for the go commands, shared by both sides; default inherited
	Timeout          time.Duration // limit of each harness run; default DefaultTimeout
	WorkDir          string        // where harness sources, overlays and binaries go; default a temporary directory
	Log              io.Writer     // build output and progress; default discarded
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format, args...)
	}
}

// fill applies the defaults and validates c.
func (c *Config) fill() error {
	if c.BaseDir == "" || c.HeadDir == "" {
		return errors.New("differential: BaseDir and HeadDir are required")
	}
	for _, d := range []*string{&c.BaseDir, &c.HeadDir} {
		abs, err := filepath.Abs(*d)
		if err != nil {
			return fmt.Errorf("differential: %w", err)
		}
		*d = abs
	}
	if c.Pkg == "" {
		c.Pkg = "."
	}
	if c.Keys < 0 || c.Blocks < 0 || c.Timeout < 0 {
		return fmt.Errorf("differential: Keys (%d), Blocks (%d) and Timeout (%v) must not be negative",
			c.Keys, c.Blocks, c.Timeout)
	}
	if c.Keys == 0 {
		c.Keys = DefaultKeys
	}
	if c.Blocks == 0 {
		c.Blocks = DefaultBlocks
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	return nil
}

// Check compares the cipher constructors of cfg.Pkg between cfg.BaseDir and cfg.HeadDir. Findings about the code,
// including a head or base that does not build or crashes, are in the Report; the error is for a bad Config, a
// cancelled ctx, or perfgate itself failing (a work directory it cannot write).
func Check(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "perfgate-differential-")
		if err != nil {
			return nil, fmt.Errorf("differential: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.WorkDir = dir
	}
	rep := &Report{Seed: cfg.Seed, Package: cfg.Pkg, Ciphers: []Cipher{}}
	cfg.logf("differential: seed %#x, %d keys × %d blocks\n", cfg.Seed, cfg.Keys, cfg.Blocks)
	err := check(ctx, &cfg, rep)
	var f *sideFailure
	switch {
	case errors.As(err, &f):
		rep.fail(f)
	case err != nil:
		return nil, fmt.Errorf("differential: %w", err)
	}
	cfg.logf("differential: %s%s\n", rep.Status, prefixed(": ", rep.Reason))
	return rep, nil
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// check runs the steps of the package doc. A *sideFailure return is a finding, recorded by Check.
func check(ctx context.Context, cfg *Config, rep *Report) error {
	var env []string
	if cfg.Cache != "" {
		env = append(env, "GOCACHE="+cfg.Cache)
	}
	sides := [2]*side{{name: "base", dir: cfg.BaseDir}, {name: "head", dir: cfg.HeadDir}}

	start := time.Now()
	err := both(sides, func(_ int, s *side) error {
		// Loading and building run go commands on the side's code: each phase gets proc.BuildLimit.
		lctx, cancel := context.WithTimeout(ctx, proc.BuildLimit(cfg.Timeout))
		defer cancel()
		info, err := discover(lctx, s.dir, cfg.Pkg, buildFlags(cfg.Tags), childEnv(env), cfg.Constructors)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.failure("package does not load: " + err.Error())
		}
		s.info = info
		if len(info.Ctors) == 0 {
			return nil
		}
		bctx, cancel := context.WithTimeout(ctx, proc.BuildLimit(cfg.Timeout))
		defer cancel()
		return s.build(bctx, cfg, env)
	})
	rep.BuildTime = time.Since(start)
	if err != nil {
		return err
	}
	rep.ImportPath = sides[1].info.ImportPath
	common, err := rep.matchConstructors(cfg, sides)
	if err != nil || len(common) == 0 {
		return err
	}

	start = time.Now()
	defer func() { rep.CheckTime = time.Since(start) }()
	if err := both(sides, func(_ int, s *side) error { return s.probe(ctx, cfg) }); err != nil {
		return err
	}
	var jobs []*job
	for _, name := range common {
		jobs = append(jobs, rep.plan(cfg, name, sides)...)
	}
	stdin := encodeJobs(jobs)
	var outs [2][]byte
	err = both(sides, func(i int, s *side) error {
		var err error
		outs[i], err = s.run(ctx, cfg, nil, stdin)
		return err
	})
	if err != nil {
		return err
	}
	return rep.diffOutputs(jobs, outs)
}

// both runs f for base and head at the same time. It returns a cancelled context or an error of perfgate
// first; otherwise the side failures of both sides merged into one.
func both(sides [2]*side, f func(i int, s *side) error) error {
	var errs [2]error
	var wg sync.WaitGroup
	for i, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i, s)
		}()
	}
	wg.Wait()
	merged := &sideFailure{}
	for _, err := range errs {
		var f *sideFailure
		switch {
		case errors.As(err, &f):
			merged.base += f.base
			merged.head += f.head
		case err != nil:
			return err
		}
	}
	if merged.base == "" && merged.head == "" {
		return nil
	}
	return merged
}
