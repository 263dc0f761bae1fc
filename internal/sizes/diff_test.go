package sizes

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// sampleSides are hand-made measurements: the seed's .text and .rodata numbers
// (2,617 → 2,302 B and 1,134 → 2,670 B), a subpackage that appears in head, and one
// symbol of each kind of change.
func sampleSides() (base, head *Sizes) {
	const p = "example.com/m/des"
	base = &Sizes{
		Package: p, Format: "elf",
		Sections: []Section{{".text", 2617}, {".rodata", 1134}, {".noptrdata", 512}, {".data", 0}, {".bss", 0}, {".noptrbss", 2048}},
		Packages: []PackageSizes{{Path: p, Sections: []Section{{".text", 2617}, {".rodata", 1134}, {".noptrdata", 512}, {".data", 0}, {".bss", 0}, {".noptrbss", 2048}}}},
		Symbols: []Symbol{
			{Name: p + ".encrypt", Section: ".text", Package: p, Size: 1000},
			{Name: p + ".permute", Section: ".text", Package: p, Size: 315},
			{Name: p + ".keep", Section: ".text", Package: p, Size: 1302},
			{Name: p + ".sBoxes", Section: ".noptrdata", Package: p, Size: 512},
			{Name: p + ".feistelBox", Section: ".noptrbss", Package: p, Size: 2048},
			{Name: p + "..stmp_0", Section: ".rodata", Package: p, Size: 1134},
		},
	}
	head = &Sizes{
		Package: p, Format: "elf",
		Sections: []Section{{".text", 2302}, {".rodata", 2670}, {".noptrdata", 2560}, {".data", 0}, {".bss", 0}, {".noptrbss", 2048}},
		Packages: []PackageSizes{
			{Path: p, Sections: []Section{{".text", 2302}, {".rodata", 2670}, {".noptrdata", 2048}, {".data", 0}, {".bss", 0}, {".noptrbss", 2048}}},
			{Path: p + "/internal/sp", Sections: []Section{{".text", 0}, {".rodata", 0}, {".noptrdata", 512}, {".data", 0}, {".bss", 0}, {".noptrbss", 0}}},
		},
		Symbols: []Symbol{
			{Name: p + ".encrypt", Section: ".text", Package: p, Size: 1000},
			{Name: p + ".keep", Section: ".text", Package: p, Size: 1302},
			{Name: p + ".spBoxes", Section: ".noptrdata", Package: p, Size: 2048},
			{Name: p + "/internal/sp.t", Section: ".noptrdata", Package: p + "/internal/sp", Size: 512},
			{Name: p + ".feistelBox", Section: ".noptrbss", Package: p, Size: 2048},
			{Name: p + "..stmp_0", Section: ".rodata", Package: p, Size: 2670},
		},
	}
	return base, head
}

func TestDiff(t *testing.T) {
	base, head := sampleSides()
	d := Diff(base, head)
	const p = "example.com/m/des"

	wantSections := []record.SectionSize{
		{Name: ".text", Base: 2617, Head: 2302, Delta: -315, DeltaPct: 100 * -315.0 / 2617},
		{Name: ".rodata", Base: 1134, Head: 2670, Delta: 1536, DeltaPct: 100 * 1536.0 / 1134},
		{Name: ".noptrdata", Base: 512, Head: 2560, Delta: 2048, DeltaPct: 400},
		{Name: ".data"},
		{Name: ".bss"},
		{Name: ".noptrbss", Base: 2048, Head: 2048},
	}
	if diff := cmp.Diff(wantSections, d.Sections); diff != "" {
		t.Errorf("Sections (-want +got):\n%s", diff)
	}
	// The subpackage exists only in head: its base is 0 and its percentage 0 (new).
	if len(d.Packages) != 2 || d.Packages[0].Path != p || d.Packages[1].Path != p+"/internal/sp" {
		t.Fatalf("Packages = %+v", d.Packages)
	}
	if got := d.Packages[1].Sections[2]; got != (record.SectionSize{Name: ".noptrdata", Head: 512, Delta: 512}) {
		t.Errorf("new subpackage .noptrdata = %+v", got)
	}

	// Largest |delta| first; unchanged symbols (encrypt, keep, feistelBox) omitted.
	wantSymbols := []record.SymbolSize{
		{Name: p + ".spBoxes", Section: ".noptrdata", Package: p, Head: 2048, Delta: 2048, Change: record.Added},
		{Name: p + "..stmp_0", Section: ".rodata", Package: p, Base: 1134, Head: 2670, Delta: 1536, Change: record.Grew},
		{Name: p + ".sBoxes", Section: ".noptrdata", Package: p, Base: 512, Delta: -512, Change: record.Removed},
		{Name: p + "/internal/sp.t", Section: ".noptrdata", Package: p + "/internal/sp", Head: 512, Delta: 512, Change: record.Added},
		{Name: p + ".permute", Section: ".text", Package: p, Base: 315, Delta: -315, Change: record.Removed},
	}
	if diff := cmp.Diff(wantSymbols, d.Symbols); diff != "" {
		t.Errorf("Symbols (-want +got):\n%s", diff)
	}
}

func TestDiffShrankAndOtherSections(t *testing.T) {
	base := &Sizes{Package: "p", Sections: []Section{{".text", 100}, {".go.extra", 8}},
		Symbols: []Symbol{{Name: "p.f", Section: ".text", Package: "p", Size: 100}}}
	head := &Sizes{Package: "p", Sections: []Section{{".text", 60}, {".a.other", 4}},
		Symbols: []Symbol{{Name: "p.f", Section: ".text", Package: "p", Size: 60}}}
	d := Diff(base, head)
	var names []string
	for _, s := range d.Sections {
		names = append(names, s.Name)
	}
	// The six Go sections always, then the others by name.
	if diff := cmp.Diff([]string{".text", ".rodata", ".noptrdata", ".data", ".bss", ".noptrbss", ".a.other", ".go.extra"}, names); diff != "" {
		t.Errorf("section order (-want +got):\n%s", diff)
	}
	want := []record.SymbolSize{{Name: "p.f", Section: ".text", Package: "p", Base: 100, Head: 60, Delta: -40, Change: record.Shrank}}
	if diff := cmp.Diff(want, d.Symbols); diff != "" {
		t.Errorf("Symbols (-want +got):\n%s", diff)
	}
	if d.Sections[0].DeltaPct != -40 {
		t.Errorf(".text DeltaPct = %v, want -40", d.Sections[0].DeltaPct)
	}

	// A nil side stands for a side without the package.
	d = Diff(nil, head)
	if d.Package != "p" || d.Symbols[0].Change != record.Added || d.Sections[0].Delta != 60 {
		t.Errorf("Diff(nil, head) = %+v", d)
	}
}
