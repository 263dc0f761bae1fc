package sizes

import (
	"slices"
	"sort"

	"github.com/perfgate/perfgate/record"
)

// Diff compares base and head. Either may be nil, standing for a side without the package.
func Diff(base, head *Sizes) *record.Sizes {
	if base == nil {
		base = &Sizes{}
	}
	if head == nil {
		head = &Sizes{}
	}
	d := &record.Sizes{Package: head.Package}
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
		d.Packages = append(d.Packages, record.PackageSize{Path: p, Sections: diffSections(basePkgs[p], headPkgs[p])})
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
func diffSections(base, head []Section) []record.SectionSize {
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
	out := make([]record.SectionSize, 0, len(names))
	for _, name := range names {
		out = append(out, sectionDelta(name, b[name], h[name]))
	}
	return out
}

func sectionDelta(name string, base, head int64) record.SectionSize {
	d := record.SectionSize{Name: name, Base: base, Head: head, Delta: head - base}
	if base != 0 {
		d.DeltaPct = 100 * float64(d.Delta) / float64(base)
	}
	return d
}

// diffSymbols pairs symbols by name and section and keeps those whose size changed.
func diffSymbols(base, head []Symbol) []record.SymbolSize {
	type key struct{ name, section string }
	byKey := map[key]*record.SymbolSize{}
	var keys []key
	get := func(s Symbol) *record.SymbolSize {
		k := key{s.Name, s.Section}
		d, ok := byKey[k]
		if !ok {
			d = &record.SymbolSize{Name: s.Name, Section: s.Section, Package: s.Package}
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
	out := []record.SymbolSize{}
	for _, k := range keys {
		d := byKey[k]
		d.Delta = d.Head - d.Base
		switch {
		case d.Delta == 0:
			continue
		case d.Base == 0:
			d.Change = record.Added
		case d.Head == 0:
			d.Change = record.Removed
		case d.Delta > 0:
			d.Change = record.Grew
		default:
			d.Change = record.Shrank
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
