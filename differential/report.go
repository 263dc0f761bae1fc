package differential

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Report is the outcome of Check, written as differential.json. Its fields are record.Differential's, which
// result.json carries: record.Differential(*r) is the whole report. It is a type of its own for the methods that
// build it.
type Report record.Differential

// The parts of a Report are records of package record.
type (
	Cipher        = record.Cipher        // one constructor's comparison
	Digest        = record.Digest        // the SHA-256 of one direction's output on each side
	Mismatch      = record.Mismatch      // one output block that differs between base and head
	Inconsistency = record.Inconsistency // a batch method that disagrees with the single-block method
	Hex           = record.Hex           // bytes that JSON shows in hexadecimal
)

// fail records a side failure: a failing base makes the check not comparable, a failing head a mismatch. The
// Ciphers of a check cut short would show no mismatches and no digests, so they are dropped.
func (r *Report) fail(f *sideFailure) {
	r.Ciphers = []Cipher{}
	r.HeadFailed = f.head != ""
	if f.base != "" {
		r.Status = record.DiffNotComparable
	} else {
		r.Status = record.DiffMismatch
	}
	r.Reason = f.Error()
}

// matchConstructors fills Added and Removed and returns the constructors both sides have. With none, the check
// is skipped; an explicitly named constructor that neither side has is an error.
func (r *Report) matchConstructors(cfg *Config, sides [2]*side) ([]string, error) {
	var names [2]map[string]bool
	for i, s := range sides {
		names[i] = map[string]bool{}
		for _, c := range s.info.Ctors {
			names[i][c.Name] = true
		}
	}
	for _, n := range cfg.Constructors {
		if !names[0][n] && !names[1][n] {
			return nil, fmt.Errorf("constructor %s: base: %s; head: %s", n,
				skipReason(sides[0].info, n), skipReason(sides[1].info, n))
		}
	}
	var common []string
	for _, c := range sides[0].info.Ctors {
		if names[1][c.Name] {
			common = append(common, c.Name)
		} else {
			r.Removed = append(r.Removed, c.Name)
		}
	}
	for _, c := range sides[1].info.Ctors {
		if !names[0][c.Name] {
			r.Added = append(r.Added, c.Name)
		}
	}
	if len(common) == 0 {
		r.Status, r.NoConstructors = record.DiffSkipped, true
		r.Reason = fmt.Sprintf("no cipher constructor in %s (no exported func returning a %s)", cfg.Pkg, familyNames)
		if sides[0].info.Main && sides[1].info.Main {
			r.Reason = fmt.Sprintf("no cipher constructor in %s on both sides: it is a command (package main), "+
				"which nothing can import", cfg.Pkg)
		}
		if len(r.Added)+len(r.Removed) > 0 {
			r.Reason += fmt.Sprintf(" (base has %d, head has %d)", len(sides[0].info.Ctors), len(sides[1].info.Ctors))
		}
	}
	return common, nil
}

func skipReason(info *pkgInfo, name string) string {
	for _, s := range info.Skipped {
		if strings.HasPrefix(s, name+": ") {
			return strings.TrimPrefix(s, name+": ")
		}
	}
	return "not found"
}

// plan adds the Cipher of the constructor name, compares what the two sides accept, and returns the jobs of the
// key sizes both accept with the same block size.
func (r *Report) plan(cfg *Config, name string, sides [2]*side) []*job {
	var ct [2]ctor
	var sizes [2]map[int]probeSize
	for i, s := range sides {
		ct[i] = *findCtor(s.info, name)
		sizes[i] = map[int]probeSize{}
		for _, p := range s.probed {
			if p.Name == name {
				for _, z := range p.Sizes {
					sizes[i][z.Size] = z
				}
			}
		}
	}
	c := Cipher{Name: name, Family: FamilyBlock, Type: ct[1].Type, Keys: cfg.Keys, Blocks: cfg.Blocks, KeySizes: []int{}}
	var batch []string
	for _, m := range ct[0].Batch {
		if slices.Contains(ct[1].Batch, m) {
			batch = append(batch, m)
		} else {
			c.MethodsRemoved = append(c.MethodsRemoved, m)
		}
	}
	for _, m := range ct[1].Batch {
		if !slices.Contains(ct[0].Batch, m) {
			c.MethodsAdded = append(c.MethodsAdded, m)
		}
	}
	c.Methods = append([]string{"Encrypt", "Decrypt"}, batch...)

	var jobs []*job
	for size := 1; size <= maxKeySize; size++ {
		b, inB := sizes[0][size]
		h, inH := sizes[1][size]
		switch {
		case !inB && !inH:
		case b.Panic != "" && h.Panic != "":
			c.Notes = append(c.Notes, fmt.Sprintf("%d-byte key panics on both sides: %s", size, h.Panic))
		case inB && inH && (b.Panic != "" || h.Panic != "" || b.BlockSize != h.BlockSize):
			c.Mismatches++
			c.Examples = append(c.Examples, Mismatch{Constructor: name, KeySize: size, Block: -1,
				Direction: "setup", Method: name, Note: "base: " + probeText(b) + "; head: " + probeText(h)})
		case !inH || h.Panic != "":
			c.KeySizesRemoved = append(c.KeySizesRemoved, size)
		case !inB || b.Panic != "":
			c.KeySizesAdded = append(c.KeySizesAdded, size)
		default:
			c.KeySizes = append(c.KeySizes, size)
			jobs = append(jobs, newJob(cfg.Seed, name, size, b.BlockSize, cfg.Keys, cfg.Blocks, batch))
		}
	}
	if len(c.KeySizes) == 0 {
		c.Notes = append(c.Notes, "no key size accepted by both sides: nothing compared")
	}
	r.Ciphers = append(r.Ciphers, c)
	return jobs
}

func findCtor(info *pkgInfo, name string) *ctor {
	for i := range info.Ctors {
		if info.Ctors[i].Name == name {
			return &info.Ctors[i]
		}
	}
	panic("differential: constructor " + name + " vanished")
}

func probeText(p probeSize) string {
	if p.Panic != "" {
		return "panic: " + p.Panic
	}
	return fmt.Sprintf("accepted, block size %d", p.BlockSize)
}

// diffOutputs reads both harness outputs job by job into the Ciphers and sets the status.
func (r *Report) diffOutputs(jobs []*job, outs [2][]byte) error {
	base, head := &outReader{side: "base", b: outs[0]}, &outReader{side: "head", b: outs[1]}
	tallies := map[string]*tally{}
	for i := range r.Ciphers {
		tallies[r.Ciphers[i].Name] = newTally(&r.Ciphers[i])
	}
	for _, j := range jobs {
		if err := tallies[j.ctor].diffJob(j, base, head); err != nil {
			return err
		}
	}
	for _, rd := range []*outReader{base, head} {
		if err := rd.end(); err != nil {
			return err
		}
	}
	var bad []string
	inconsistent := 0
	for i := range r.Ciphers {
		c := &r.Ciphers[i]
		tallies[c.Name].finish()
		if c.Mismatches > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d", c.Name, c.Mismatches))
		}
		inconsistent += c.InconsistentHead
	}
	sort.Strings(bad)
	r.Status = record.DiffIdentical
	if len(bad) > 0 {
		r.Status = record.DiffMismatch
		r.Reason = "outputs differ (" + strings.Join(bad, ", ") + ")"
	}
	if inconsistent > 0 {
		if r.Reason != "" {
			r.Reason += "; "
		}
		r.Reason += fmt.Sprintf("head's batch methods disagree with its single-block "+
			"methods on %d blocks", inconsistent)
	}
	return nil
}
