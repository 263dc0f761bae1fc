package differential

import (
	"context"
	"fmt"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// oraclePrefix names an oracle's harness entries: "oracle:NewTripleEDE3", "oracle:NewCipher/GCM".
const oraclePrefix = "oracle:"

// loadOracles finds the reference constructors of cfg.Oracles in the module at dir (head's), and
// adds them to info as entries of its harness. A reference is "importpath.Func"; it must have the
// family of the constructor it stands beside. Every problem is an error of the configuration.
func loadOracles(ctx context.Context, cfg *Config, dir string, env []string, info *pkgInfo) error {
	for _, name := range slices.Sorted(maps.Keys(cfg.Oracles)) {
		spec := cfg.Oracles[name]
		c, err := loadOracle(ctx, cfg, dir, env, spec)
		if err != nil {
			return fmt.Errorf("oracle of %s: %w (want an import path and a function, such as "+
				"crypto/des.NewTripleDESCipher)", name, err)
		}
		h := findCtorOK(info, name)
		switch {
		case h == nil:
			return fmt.Errorf("oracle of %s: head has no constructor %s", name, name)
		case h.Family != c.Family:
			return fmt.Errorf("oracle of %s: %s is a %s constructor, %s a %s one", name, spec, c.Family, name,
				h.Family)
		}
		path := spec[:strings.LastIndex(spec, ".")]
		alias := -1
		for i, p := range info.Imports {
			if p == path {
				alias = i
			}
		}
		if alias < 0 {
			alias = len(info.Imports)
			info.Imports = append(info.Imports, path)
		}
		c.Func, c.Name, c.Alias = c.Name, oraclePrefix+name, fmt.Sprintf("oracle%d", alias)
		if c.Family == record.FamilyBlock {
			c.Batch, c.Emulate = h.Batch, true
		}
		info.Oracles = append(info.Oracles, c)
	}
	return nil
}

func loadOracle(ctx context.Context, cfg *Config, dir string, env []string, spec string) (ctor, error) {
	dot := strings.LastIndex(spec, ".")
	if dot <= 0 || dot == len(spec)-1 || strings.HasSuffix(spec[:dot], "/") {
		return ctor{}, fmt.Errorf("%q is not importpath.Func", spec)
	}
	path, fn := spec[:dot], spec[dot+1:]
	// Loaded as the package is (discover): through proc, so that the go command is tracked and dies
	// with perfgate.
	lp, err := subject.Load(ctx, dir, path, cfg.BuildFlags("head"), env)
	if err != nil {
		return ctor{}, err
	}
	if lp.Types == nil {
		return ctor{}, fmt.Errorf("%s is a command (package main): it has no function to import", path)
	}
	f, ok := lp.Types.Scope().Lookup(fn).(*types.Func)
	if !ok || !f.Exported() {
		return ctor{}, fmt.Errorf("%s has no exported function %s", path, fn)
	}
	c, why := asCtor(f)
	if why != "" {
		return ctor{}, fmt.Errorf("%s %s", spec, why)
	}
	return c, nil
}

func findCtorOK(info *pkgInfo, name string) *ctor {
	for i := range info.Ctors {
		if info.Ctors[i].Name == name {
			return &info.Ctors[i]
		}
	}
	return nil
}

// An oracleJob is a job of head's constructor run again on head's oracle entry of it.
type oracleJob struct {
	job
	of   string // the Cipher's name
	spec string
}

func (j oracleJob) ctorName() string { return oraclePrefix + j.of }

// oracleJobs returns, for each Cipher whose constructor has an oracle on head, the same jobs again
// for the oracle, and names the oracle in the Cipher.
func oracleJobs(cfg *Config, head *side, ciphers []record.Cipher, jobs []job) []oracleJob {
	has := map[string]bool{}
	for _, p := range head.probed {
		has[p.Name] = true
	}
	var out []oracleJob
	for i := range ciphers {
		c := &ciphers[i]
		base, _, _ := strings.Cut(c.Name, gcmSuffix)
		spec, ok := cfg.Oracles[base]
		if !ok || !has[oraclePrefix+c.Name] {
			continue
		}
		c.Oracle = spec
		if c.Name != base {
			c.Oracle += " through crypto/cipher.NewGCM"
		}
		for _, j := range jobs {
			if j.ctorName() == c.Name {
				out = append(out, oracleJob{job: j, of: c.Name, spec: c.Oracle})
			}
		}
	}
	return out
}

// compareOracles reads the oracle jobs' outputs from head's output r and compares each with head's
// own output of the same job (heads, by job), into the Ciphers' oracle fields.
func compareOracles(ciphers []record.Cipher, ojobs []oracleJob, heads map[job][]byte, r *outReader) error {
	scratch := map[string]*record.Cipher{}
	tallies := map[string]*tally{}
	for _, oj := range ojobs {
		if tallies[oj.of] == nil {
			for i := range ciphers {
				if ciphers[i].Name == oj.of {
					scratch[oj.of] = &record.Cipher{Name: oj.of}
					tallies[oj.of] = newTally(scratch[oj.of], familyOf(ciphers[i].Family).directions())
				}
			}
		}
		if err := oj.job.compare(tallies[oj.of], r, &outReader{side: "head", b: heads[oj.job]}); err != nil {
			return err
		}
	}
	for i := range ciphers {
		if s := scratch[ciphers[i].Name]; s != nil {
			ciphers[i].OracleMismatches, ciphers[i].OracleExamples = s.Mismatches, s.Examples
		}
	}
	return nil
}
