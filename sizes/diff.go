package sizes

import (
	"slices"
	"sort"

	"github.com/perfgate/perfgate/record"
)

// How a symbol changed between base and head (SymbolDelta.Change).
const (
	Grew    = record.Grew
	Shrank  = record.Shrank
	Added   = record.Added   // only in head
	Removed = record.Removed // only in base
)

// The comparison of two measurements is a record of package record, which result.json carries unchanged; the
// names below say what each is in this package.
type (
	Delta        = record.Sizes       // Diff's result
	SectionDelta = record.SectionSize // one section, base vs head
	PackageDelta = record.PackageSize // one package's sections
	SymbolDelta  = record.SymbolSize  // one symbol that grew, shrank, appeared or vanished
)

// Diff compares base and head. Either may be nil, standing for a side without the package.
func Diff(base, head *Sizes) *Delta {
	if base == nil {
		base = &Sizes{}
	}
	if head == nil {
		head = &Sizes{}
	}
	d := &Delta{Package: head.Package}
	if d.Package == "" {
		d.Package = base.Package
	}
	d.Sections = diffSections(base.Sections, head.Sections)

	basePkgs, headPkgs := map[string][]Section{}, map[string][]Section{}
	var paths []string
	for _, p := range base.Packages {
		basePkgs[p.Path] = p.Sections
		paths = append(paths, p.Path)
	}
	for _, p := range head.Packages {
		headPkgs[p.Path] = p.Sections
		if _, ok := basePkgs[p.Path]; !ok {
			paths = append(paths, p.Path)
		}
	}
	sort.Slice(paths, func(i, j int) bool {
		a, b := paths[i], paths[j]
		return a == d.Package || b != d.Package && a < b
	})
	for _, p := range paths {
		d.Packages = append(d.Packages, PackageDelta{Path: p, Sections: diffSections(basePkgs[p], headPkgs[p])})
	}

	if len(base.Tests) > 0 || len(head.Tests) > 0 {
		d.Tests = diffSections(sumSections(base.Tests), sumSections(head.Tests))
	}
	d.Symbols = diffSymbols(base.Symbols, head.Symbols)
	for _, n := range slices.Concat(base.Notes, head.Notes) {
		if !slices.Contains(d.Notes, n) {
			d.Notes = append(d.Notes, n)
		}
	}
	return d
}

// diffSections pairs sections by name, keeping Go's fixed order first.
func diffSections(base, head []Section) []SectionDelta {
	b, h := map[string]int64{}, map[string]int64{}
	var names []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, name := range goSections {
		add(name)
	}
	for _, s := range base {
		b[s.Name] += s.Size
		add(s.Name)
	}
	for _, s := range head {
		h[s.Name] += s.Size
		add(s.Name)
	}
	sort.SliceStable(names, func(i, j int) bool {
		ri, rj := sectionRank(names[i]), sectionRank(names[j])
		return ri < rj || ri == rj && ri == len(goSections) && names[i] < names[j]
	})
	out := make([]SectionDelta, 0, len(names))
	for _, name := range names {
		out = append(out, sectionDelta(name, b[name], h[name]))
	}
	return out
}

func sectionDelta(name string, base, head int64) SectionDelta {
	d := SectionDelta{Name: name, Base: base, Head: head, Delta: head - base}
	if base != 0 {
		d.DeltaPct = 100 * float64(d.Delta) / float64(base)
	}
	return d
}

// diffSymbols pairs symbols by name and section and keeps those whose size changed.
func diffSymbols(base, head []Symbol) []SymbolDelta {
	type key struct{ name, section string }
	byKey := map[key]*SymbolDelta{}
	var keys []key
	get := func(s Symbol) *SymbolDelta {
		k := key{s.Name, s.Section}
		d, ok := byKey[k]
		if !ok {
			d = &SymbolDelta{Name: s.Name, Section: s.Section, Package: s.Package}
			byKey[k] = d
			keys = append(keys, k)
		}
		return d
	}
	for _, s := range base {
		get(s).Base += s.Size
	}
	for _, s := range head {
		get(s).Head += s.Size
	}
	out := []SymbolDelta{}
	for _, k := range keys {
		d := byKey[k]
		d.Delta = d.Head - d.Base
		switch {
		case d.Delta == 0:
			continue
		case d.Base == 0:
			d.Change = Added
		case d.Head == 0:
			d.Change = Removed
		case d.Delta > 0:
			d.Change = Grew
		default:
			d.Change = Shrank
		}
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if abs(a.Delta) != abs(b.Delta) {
			return abs(a.Delta) > abs(b.Delta)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Section < b.Section
	})
	return out
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
