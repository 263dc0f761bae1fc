package perfgate

import (
	"encoding/hex"
	"math"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/differential"
	"github.com/perfgate/perfgate/sizes"
)

// fromComparisons turns package bench's statistics into the Result's benchmarks.
func fromComparisons(cmps []bench.Comparison) []Benchmark {
	out := make([]Benchmark, 0, len(cmps))
	for _, c := range cmps {
		b := Benchmark{
			Name:     c.Name,
			Unit:     c.Unit,
			Base:     fromSummary(c.Base),
			Head:     fromSummary(c.Head),
			DeltaPct: finite(c.DeltaPct),
			P:        finite(c.P),
			PHolm:    finite(c.PHolm),
			NoisePct: finite(c.NoisePct),
			MDEPct:   finite(c.MDEPct),
			Class:    string(c.Class),
			Note:     c.Note,
		}
		if c.Paired != nil {
			b.Paired = &Paired{Ratio: finite(c.Paired.Ratio), Lo: finite(c.Paired.Lo), Hi: finite(c.Paired.Hi)}
		}
		if b.Note == "" {
			b.Note = joinErrors(slices.Concat(c.Warnings, c.Base.Warnings, c.Head.Warnings))
		}
		out = append(out, b)
	}
	return out
}

// fromSummary converts a benchstat summary; an interval that benchmath could not compute (too few samples,
// ±Inf) is stored as 0, 0.
func fromSummary(s bench.Summary) Summary {
	out := Summary{Center: finite(s.Center), Lo: s.Lo, Hi: s.Hi, N: s.N}
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		out.Lo, out.Hi = 0, 0
	}
	return out
}

// finite maps NaN and ±Inf, which JSON cannot carry, to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func joinErrors(errs []error) string {
	seen := map[string]bool{}
	var parts []string
	for _, e := range errs {
		if e == nil || seen[e.Error()] {
			continue
		}
		seen[e.Error()] = true
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

// fromSizes turns package sizes' diff into the Result's sizes.
func fromSizes(d *sizes.Delta) Sizes {
	out := Sizes{Sections: []SectionSize{}, Symbols: []SymbolSize{}}
	for _, s := range d.Sections {
		out.Sections = append(out.Sections, SectionSize{Name: s.Name, Base: s.Base, Head: s.Head})
	}
	for _, s := range d.Symbols {
		out.Symbols = append(out.Symbols, SymbolSize{Name: s.Name, Section: s.Section, Base: s.Base, Head: s.Head})
	}
	return out
}

// fromDifferential turns package differential's report into the Result's differential section.
func fromDifferential(r *differential.Report) Differential {
	out := Differential{
		Status: r.Status, Reason: r.Reason, Seed: r.Seed, Ciphers: []DiffCipher{},
		Added: r.Added, Removed: r.Removed,
	}
	for _, c := range r.Ciphers {
		dc := DiffCipher{
			Name: c.Name, KeySizes: c.KeySizes, Keys: c.Keys, Blocks: c.Blocks, Methods: c.Methods,
			Mismatches: c.Mismatches, DigestBase: c.DigestBase, DigestHead: c.DigestHead,
		}
		for _, m := range c.Examples {
			dc.Examples = append(dc.Examples, Mismatch{
				KeySize: m.KeySize, Key: hex.EncodeToString(m.Key), Block: m.Block, Direction: m.Direction,
				Method: m.Method, Input: hex.EncodeToString(m.Input), Base: hex.EncodeToString(m.Base),
				Head: hex.EncodeToString(m.Head),
			})
		}
		out.Ciphers = append(out.Ciphers, dc)
	}
	return out
}
