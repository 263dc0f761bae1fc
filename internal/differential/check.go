// Package differential checks that two revisions of a cipher package compute byte-identical
// outputs: its block ciphers, AEADs, stream ciphers, hashes and MACs, and one-shot functions such
// as Sum256.
//
// Each kind of primitive is a family (family.go): one type that says how discovery recognises its
// constructors, the harness code that exercises them, the vectors they are fed and how the outputs
// compare. familyTable lists them: block.go, aead.go, stream.go, hash.go and sum.go; a new family
// is one file and one line there.
//
// Check works in four steps, each run for base and head side by side:
//
//  1. Discover. The gated package is loaded with golang.org/x/tools/go/packages in the side's
//     module, and its exported functions are matched by type against each family in turn
//     (Config.Constructors narrows the list): block ciphers, func(key []byte) (T, error) with T a
//     crypto/cipher.Block, with their batch methods such as EncryptBlocks; AEADs, func(key []byte)
//     (T, error) with T a crypto/cipher.AEAD, and every block cipher through crypto/cipher.NewGCM
//     ("NewCipher/GCM") when its blocks are 16 bytes; stream ciphers, func(key []byte) or func(key,
//     nonce []byte) returning T or (T, error) with T a crypto/cipher.Stream; hashes and MACs,
//     func() or func(key []byte) returning T or (T, error) with T a hash.Hash; one-shot functions,
//     a message []byte in and a [N]byte, uint32 or uint64 result or an out *[N]byte parameter, with
//     an optional *[K]byte, [K]byte or []byte key. T may also be a struct value whose methods have
//     pointer receivers.
//  2. Build. A harness main package that imports the gated package is generated (harnessFiles:
//     main.go and one file per family, whose source is package harness) and built with go build
//     -overlay: its files appear at a virtual path below the package's directory, so nothing is
//     written into the tree. The harness is compiled at the module's language version, so it is
//     written in the Go of go 1.12.
//  3. Probe. Each harness reports which key sizes (1..64 bytes; 0..64 for a MAC; with nonces of
//     0..32 bytes for a stream constructor that takes one) each constructor accepts, and what the
//     result says of itself (BlockSize, NonceSize, Overhead, Size).
//  4. Run and compare. All inputs come from Config.Seed; the same byte stream goes to both
//     harnesses on stdin. Block ciphers: for every key size both sides accept, Keys keys and for
//     each key Blocks random plaintexts and Blocks random ciphertexts; each harness encrypts and
//     decrypts every block one by one and in one call per batch method, out of place and in place
//     (dst == src), and for the first keys calls each batch method at 1 to 129 blocks
//     (batchLengths). The message families: for every size both accept (8 spread evenly in full,
//     the others with lightKeys keys; of the sizes at which a constructor reads only a prefix of
//     its key, only the largest), MessageKeys keys, the first of them with a message of every
//     length and every other key two of those lengths in turn (package vectors says which keys,
//     lengths and chunks). Messages are written in random chunks (some empty). An AEAD Seals each
//     message with a random nonce and additional data, Opens the result, and Opens it again with
//     one bit flipped, which must fail, then Seals and Opens in place; a stream cipher XORs the
//     message in one call and in the chunks, out of place and in place; a hash Writes the chunks,
//     Sums twice, Resets, Writes the message at once and Sums, and so does a new hash; a one-shot
//     function is called twice. perfgate compares the two output streams, hashes them (SHA-256 per
//     constructor and direction), and describes the first mismatches: the block, or what differed
//     (ciphertext, tag, length, keystream, a chunk boundary, digest, Reset, Size…). A side that
//     disagrees with itself (a batch method or an in-place call with the single-block method,
//     chunks or an in-place call with one call, Open with Seal, Reset with a new hash, a second
//     call with the first) is reported too, and an Open that accepts a tampered ciphertext on head
//     is a mismatch.
//
// With Config.Oracles, head's constructor is also checked against a reference
// (crypto/des.NewTripleDESCipher): head's harness runs the same jobs on the reference, and its
// outputs must equal head's (oracle.go).
//
// Constructors, key sizes and batch methods present on one side only are listed, not failed. A head
// that does not build, panics or hangs fails the check (Status "mismatch", HeadFailed); a base that
// does makes the check "not-comparable". A package without constructors of any of these shapes is
// "skipped", and the reason names the shapes looked for.
package differential

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
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
	// Sides are the two trees, the package, and how the check builds and runs its harnesses
	// (subject.Sides): Seed is the seed of every input (default DefaultSeed), Timeout the limit of
	// each harness run (default DefaultTimeout).
	subject.Sides
	// Constructors, if set, narrows the check to these constructors (still type-checked; a block
	// cipher's brings its GCM form); default: every one discovery finds.
	Constructors []string
	Keys         int // keys per constructor and key size; default DefaultKeys
	Blocks       int // blocks per key and direction; default DefaultBlocks
	// MessageKeys and MessageBlocks size the message families (AEAD, stream, hash, one-shot): keys
	// per key size, and the longest message in blocks; defaults DefaultMessageKeys and
	// DefaultMessageBlocks.
	MessageKeys, MessageBlocks int
	// Oracles names, per constructor, a reference by import path and function ("NewTripleEDE3":
	// "crypto/des.NewTripleDESCipher"): head's constructor is checked against it on the same
	// vectors, in head's harness, and the Cipher records the outcome. Default none.
	Oracles map[string]string
}

// fill applies the defaults and validates c.
func (c *Config) fill() error {
	if err := c.Resolve(); err != nil {
		return fmt.Errorf("differential: %w", err)
	}
	if c.Keys < 0 || c.Blocks < 0 || c.Timeout < 0 || c.MessageKeys < 0 || c.MessageBlocks < 0 {
		return fmt.Errorf("differential: Keys (%d), Blocks (%d), MessageKeys (%d), MessageBlocks (%d) and "+
			"Timeout (%v) must not be negative", c.Keys, c.Blocks, c.MessageKeys, c.MessageBlocks, c.Timeout)
	}
	c.MessageKeys = cmp.Or(c.MessageKeys, DefaultMessageKeys)
	c.MessageBlocks = cmp.Or(c.MessageBlocks, DefaultMessageBlocks)
	c.Keys = cmp.Or(c.Keys, DefaultKeys)
	c.Blocks = cmp.Or(c.Blocks, DefaultBlocks)
	c.Seed = cmp.Or(c.Seed, DefaultSeed)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	return nil
}

// Check compares the cipher constructors of cfg.Pkg between cfg.BaseDir and cfg.HeadDir. Findings
// about the code, including a head or base that does not build or crashes, are in the Report. So is
// perfgate's own failure to run the check, as status "error": a generated harness that does not
// compile against a package that does, or a package that loads on neither side. The error is for a
// bad Config, a cancelled ctx, a constructor named in cfg.Constructors that neither side has, or
// perfgate failing in itself (a work directory it cannot write).
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
	rep := &Report{Seed: cfg.Seed, Package: cfg.Pkg, Ciphers: []record.Cipher{}}
	cfg.Logf("differential: seed %#x; block ciphers: %d keys × %d blocks; AEADs, stream ciphers, hashes, "+
		"one-shot functions: %d keys × messages up to %d blocks\n", cfg.Seed, cfg.Keys, cfg.Blocks, cfg.MessageKeys,
		cfg.MessageBlocks)
	err := check(ctx, &cfg, rep)
	var f *sideFailure
	var own *ownFailure
	switch {
	case errors.As(err, &f):
		rep.fail(f)
	case errors.As(err, &own) && ctx.Err() == nil:
		rep.Ciphers, rep.Status, rep.Reason = []record.Cipher{}, record.DiffError, own.msg
	case err != nil:
		return nil, fmt.Errorf("differential: %w", err)
	}
	counted := ""
	if len(rep.Ciphers) > 0 {
		counted = " (" + report.CountFamilies(rep.Ciphers) + ")"
	}
	cfg.Logf("differential: %s%s%s\n", rep.Status, counted, prefixed(": ", rep.Reason))
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
	sides := [2]*side{{name: "base", dir: cfg.BaseDir}, {name: "head", dir: cfg.HeadDir}}

	start := time.Now()
	err := both(sides, func(_ int, s *side) error {
		// Loading and building run go commands on the side's code: each phase gets proc.BuildLimit.
		lctx, cancel := context.WithTimeout(ctx, proc.BuildLimit(cfg.Timeout))
		defer cancel()
		// Each side's go commands take its own build: toolchain, variables, flags.
		env := cfg.BuildEnv(s.name)
		info, err := discover(lctx, s.dir, cfg.Pkg, cfg.BuildFlags(s.name), env, cfg.Constructors)
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
		if s.name == "head" {
			if err := loadOracles(lctx, cfg, s.dir, env, info); err != nil {
				return err
			}
		}
		bctx, cancel := context.WithTimeout(ctx, proc.BuildLimit(cfg.Timeout))
		defer cancel()
		return s.build(bctx, cfg, env)
	})
	rep.BuildTime = time.Since(start)
	var f *sideFailure
	if errors.As(err, &f) && f.base != "" && f.head != "" {
		// Neither side loads or builds: nothing can be compared, and the code is rarely at fault (a
		// go line newer than the toolchain, a module that cannot be downloaded, …).
		return &ownFailure{"neither side's package loads and builds: " + f.Error()}
	}
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
	ciphers, jobs := plan(cfg, sides, common)
	ojobs := oracleJobs(cfg, sides[1], ciphers, jobs)
	var outs [2][]byte
	if len(jobs) > 0 {
		stdin := [2][]byte{encodeJobs(jobs), encodeJobs(jobs, ojobs...)}
		err = both(sides, func(i int, s *side) error {
			var err error
			outs[i], err = s.run(ctx, cfg, nil, stdin[i])
			return err
		})
		if err != nil {
			return err
		}
	}
	if err := compareOutputs(ciphers, jobs, ojobs, outs); err != nil {
		return err
	}
	rep.addCiphers(ciphers)
	return nil
}

// both runs f for base and head at the same time. It returns a cancelled context or an error of
// perfgate first; otherwise the side failures of both sides merged into one.
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
