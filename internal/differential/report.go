package differential

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Report is the outcome of Check, written as differential.json. Its fields are
// record.Differential's, which result.json carries: record.Differential(*r) is the whole report. It
// is a type of its own for the methods that build it.
type Report record.Differential

// fail records a side failure: a failing base makes the check not comparable, a failing head a
// mismatch. The Ciphers of a check cut short would show no mismatches and no digests, so they are
// dropped.
func (r *Report) fail(f *sideFailure) {
	r.Ciphers = []record.Cipher{}
	r.HeadFailed = f.head != ""
	if f.base != "" {
		r.Status = record.DiffNotComparable
	} else {
		r.Status = record.DiffMismatch
	}
	r.Reason = f.Error()
}

// matchConstructors fills Added and Removed and returns the constructors both sides have. With
// none, the check is skipped; an explicitly named constructor that neither side has is an error.
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
		r.Reason = fmt.Sprintf("no cipher constructor in %s (none returns a crypto/cipher.Block, crypto/cipher.AEAD, "+
			"crypto/cipher.Stream or hash.Hash; no one-shot Sum)", cfg.Pkg)
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

func findCtor(info *pkgInfo, name string) *ctor {
	for i := range info.Ctors {
		if info.Ctors[i].Name == name {
			return &info.Ctors[i]
		}
	}
	panic("differential: constructor " + name + " vanished")
}

// plan returns the Ciphers and jobs of the constructors both sides have (common): every instance
// each family makes of them, sorted by name, and a setup mismatch for each constructor whose family
// differs between the sides.
func plan(cfg *Config, sides [2]*side, common []string) ([]record.Cipher, []job) {
	var probes [2]map[string]map[sizeKey]probeSize
	for i, s := range sides {
		probes[i] = map[string]map[sizeKey]probeSize{}
		for _, p := range s.probed {
			m := map[sizeKey]probeSize{}
			for _, z := range p.Sizes {
				m[sizeKey{z.Key, z.Nonce}] = z
			}
			probes[i][p.Name] = m
		}
	}
	var ciphers []record.Cipher
	var jobs []job
	for _, n := range common {
		b, h := findCtor(sides[0].info, n), findCtor(sides[1].info, n)
		if b.Family != h.Family {
			ciphers = append(ciphers, familyChange(b, h))
			continue
		}
		for _, f := range familyTable {
			for _, in := range f.instances(b, h) {
				c, js := f.plan(cfg, in, [2]map[sizeKey]probeSize{probes[0][in.name], probes[1][in.name]})
				if c != nil {
					c.Notes = collapseNotes(c.Notes)
					ciphers = append(ciphers, *c)
					jobs = append(jobs, js...)
				}
			}
		}
	}
	sort.SliceStable(ciphers, func(i, j int) bool { return ciphers[i].Name < ciphers[j].Name })
	return ciphers, jobs
}

// familyChange returns the Cipher of a constructor whose family differs between the sides (a block
// cipher on base that returns a stream on head): a setup mismatch, as nothing of it can be
// compared.
func familyChange(b, h *ctor) record.Cipher {
	n := h.Name
	note := fmt.Sprintf("base returns %s (%s), head returns %s (%s)", b.Type, b.Family, h.Type, h.Family)
	return record.Cipher{Name: n, Family: h.Family, Type: h.Type, KeySizes: []int{}, Mismatches: 1,
		Examples: []record.Mismatch{{Constructor: n, Block: -1, Direction: "setup", Method: n, Part: "setup", Note: note}},
		Notes:    []string{"the constructor changed family: nothing compared"}}
}

// compareOutputs reads both sides' outputs job by job into the ciphers, then head's oracle jobs
// against head's own outputs of the same jobs.
func compareOutputs(ciphers []record.Cipher, jobs []job, ojobs []oracleJob, outs [2][]byte) error {
	base, head := &outReader{side: "base", b: outs[0]}, &outReader{side: "head", b: outs[1]}
	tallies := map[string]*tally{}
	for i := range ciphers {
		tallies[ciphers[i].Name] = newTally(&ciphers[i], familyOf(ciphers[i].Family).directions())
	}
	heads := map[job][]byte{}
	for _, j := range jobs {
		start := head.b
		if err := j.compare(tallies[j.ctorName()], base, head); err != nil {
			return err
		}
		heads[j] = start[:len(start)-len(head.b)]
	}
	if err := compareOracles(ciphers, ojobs, heads, head); err != nil {
		return err
	}
	if len(jobs) > 0 {
		for _, r := range []*outReader{base, head} {
			if err := r.end(); err != nil {
				return err
			}
		}
	}
	for i := range ciphers {
		tallies[ciphers[i].Name].finish(familyOf(ciphers[i].Family).directions())
	}
	return nil
}

// addCiphers sets the report's Ciphers and settles its status: a mismatch anywhere is a mismatch;
// head's inconsistencies are named in the reason.
func (r *Report) addCiphers(cs []record.Cipher) {
	r.Ciphers = cs
	r.Status = record.DiffIdentical
	var bad, inconsistent []string
	// blocks on which head's batch or in-place calls disagree with its single-block calls
	batch := 0
	for _, c := range cs {
		if c.Mismatches > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d", c.Name, c.Mismatches))
		}
		switch {
		case c.InconsistentHead == 0:
		case c.Family == record.FamilyBlock:
			batch += c.InconsistentHead
		default:
			var parts []string
			for _, in := range c.Inconsistencies {
				if in.Side == record.Head && !slices.Contains(parts, in.Part) {
					parts = append(parts, in.Part)
				}
			}
			inconsistent = append(inconsistent, fmt.Sprintf("%s: %d, %s", c.Name, c.InconsistentHead,
				strings.Join(parts, ", ")))
		}
	}
	var reasons []string
	if len(bad) > 0 {
		r.Status = record.DiffMismatch
		reasons = append(reasons, "outputs differ ("+strings.Join(bad, ", ")+")")
	}
	if batch > 0 {
		reasons = append(reasons, fmt.Sprintf("head's batch or in-place calls disagree with its single-block calls "+
			"on %d blocks", batch))
	}
	if len(inconsistent) > 0 {
		reasons = append(reasons, "head disagrees with itself ("+strings.Join(inconsistent, "; ")+")")
	}
	var oracle []string
	for _, c := range cs {
		if c.OracleMismatches > 0 {
			oracle = append(oracle, fmt.Sprintf("%s: %d against %s", c.Name, c.OracleMismatches, c.Oracle))
		}
	}
	if len(oracle) > 0 {
		r.Status = record.DiffMismatch
		reasons = append(reasons, "head disagrees with its oracle ("+strings.Join(oracle, "; ")+")")
	}
	r.Reason = strings.Join(reasons, "; ")
}

// collapseNotes writes a note that repeats as one line with a count: "… (×16)".
func collapseNotes(notes []string) []string {
	count := map[string]int{}
	var out []string
	for _, n := range notes {
		if count[n]++; count[n] == 1 {
			out = append(out, n)
		}
	}
	for i, n := range out {
		if count[n] > 1 {
			out[i] = fmt.Sprintf("%s (×%d)", n, count[n])
		}
	}
	return out
}
