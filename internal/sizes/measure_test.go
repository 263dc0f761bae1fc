package sizes

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// ptrSize is the pointer size of the machine the fixtures are built for (the host).
const ptrSize = strconv.IntSize / 8

// find returns the symbol called name in syms.
func find(t *testing.T, syms []Symbol, name string) Symbol {
	t.Helper()
	for _, s := range syms {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no symbol %s", name)
	return Symbol{}
}

func sections(ss []Section) map[string]int64 {
	m := map[string]int64{}
	for _, s := range ss {
		m[s.Name] = s.Size
	}
	return m
}

func TestMeasureFixture(t *testing.T) {
	s, err := Measure(fixtureBinary(t, false, ""), gatedPkg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "elf" && s.Format != "macho" && s.Format != "pe" {
		t.Errorf("Format = %q", s.Format)
	}
	if s.Package != gatedPkg {
		t.Errorf("Package = %q, want %q", s.Package, gatedPkg)
	}
	var paths []string
	for _, p := range s.Packages {
		paths = append(paths, p.Path)
	}
	if diff := cmp.Diff([]string{gatedPkg, subPkg}, paths); diff != "" {
		t.Errorf("Packages (-want +got):\n%s", diff)
	}

	// The data sizes follow from the fixture's declarations; .text and .rodata depend on the
	// compiler.
	want := map[string]int64{
		".noptrdata": 8 * 4,       // small [8]uint32
		".data":      3 * ptrSize, // names []string: a slice header
		".bss":       ptrSize,     // last *Pair
		".noptrbss":  256,         // scratch [256]byte
	}
	got := sections(s.Packages[0].Sections)
	for name, size := range want {
		if got[name] != size {
			t.Errorf("%s %s = %d, want %d", gatedPkg, name, got[name], size)
		}
	}
	if got[".text"] <= 0 {
		t.Errorf("%s .text = %d, want > 0", gatedPkg, got[".text"])
	}
	// sub.Tab is [16]uint16: 32 bytes, the subpackage's only symbol.
	wantSub := []Section{{".text", 0}, {".rodata", 0}, {".noptrdata", 32}, {".data", 0}, {".bss", 0}, {".noptrbss", 0}}
	if diff := cmp.Diff(wantSub, s.Packages[1].Sections); diff != "" {
		t.Errorf("%s sections (-want +got):\n%s", subPkg, diff)
	}
	// The totals are the sum of both packages.
	total := sections(s.Sections)
	for _, name := range goSections {
		if sum := sections(s.Packages[0].Sections)[name] + sections(s.Packages[1].Sections)[name]; total[name] != sum {
			t.Errorf("total %s = %d, want %d", name, total[name], sum)
		}
	}

	for _, sym := range []struct{ name, section, pkg string }{
		{gatedPkg + ".Lookup", ".text", gatedPkg},
		{gatedPkg + ".Removed", ".text", gatedPkg},
		{"type:.eq." + gatedPkg + ".Pair", ".text", gatedPkg},
		{gatedPkg + ".small", ".noptrdata", gatedPkg},
		{subPkg + ".Tab", ".noptrdata", subPkg},
	} {
		got := find(t, s.Symbols, sym.name)
		if got.Section != sym.section || got.Package != sym.pkg || got.Size <= 0 {
			t.Errorf("%s = %+v, want section %s, package %s", sym.name, got, sym.section, sym.pkg)
		}
	}
	for _, sym := range s.Symbols {
		if strings.Contains(sym.Name, siblingPkg) || strings.Contains(sym.Name, "Test") {
			t.Errorf("attributed %+v: a sibling's or a test's symbol", sym)
		}
	}
	// Test code goes apart: the in-package test function (tbl_test.go) and the external test
	// package.
	find(t, s.Tests, gatedPkg+".TestAll")
	if got := find(t, s.Tests, gatedPkg+"_test.TestExternal"); got.Package != gatedPkg+"_test" {
		t.Errorf("TestExternal package = %q", got.Package)
	}
	// tblx.Count[tbl.Pair] needs a dictionary naming tbl.Pair; it belongs to tblx, so it is
	// unattributed.
	find(t, s.Unattributed, siblingPkg+"..dict.Count["+gatedPkg+".Pair]")
	for _, sym := range s.Unattributed {
		if sym.Package != "" || !strings.Contains(sym.Name, gatedPkg) {
			t.Errorf("unattributed %+v", sym)
		}
	}
}

func TestDiffFixture(t *testing.T) {
	base, err := Measure(fixtureBinary(t, false, ""), gatedPkg)
	if err != nil {
		t.Fatal(err)
	}
	head, err := Measure(fixtureBinary(t, true, ""), gatedPkg)
	if err != nil {
		t.Fatal(err)
	}
	d := Diff(base, head)

	removed := find(t, base.Symbols, gatedPkg+".Removed")
	var added, gone, other []record.SymbolSize
	for _, s := range d.Symbols {
		switch s.Change {
		case record.Added:
			added = append(added, s)
		case record.Removed:
			gone = append(gone, s)
		default:
			other = append(other, s)
		}
	}
	// Head adds exactly one symbol, big: 512 × uint32 = 2048 bytes of .noptrdata.
	wantAdded := []record.SymbolSize{{Name: gatedPkg + ".big", Section: ".noptrdata", Package: gatedPkg, Head: 2048, Delta: 2048, Change: record.Added}}
	if diff := cmp.Diff(wantAdded, added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	// and removes exactly one, the function Removed, whose base size it gives back.
	wantGone := []record.SymbolSize{{Name: removed.Name, Section: ".text", Package: gatedPkg, Base: removed.Size, Delta: -removed.Size, Change: record.Removed}}
	if diff := cmp.Diff(wantGone, gone); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	// The only other change is Lookup, which now reads big too.
	var lookupDelta int64
	for _, s := range other {
		if s.Name != gatedPkg+".Lookup" || s.Section != ".text" {
			t.Errorf("unexpected change %+v", s)
		}
		lookupDelta = s.Delta
	}
	if d.Symbols[0].Name != gatedPkg+".big" {
		t.Errorf("largest change first: got %s first", d.Symbols[0].Name)
	}

	baseNoptr := sections(base.Sections)[".noptrdata"]
	wantSections := map[string]record.SectionSize{
		".noptrdata": {Name: ".noptrdata", Base: baseNoptr, Head: baseNoptr + 2048, Delta: 2048, DeltaPct: 100 * 2048 / float64(baseNoptr)},
		".data":      {Name: ".data", Base: 3 * ptrSize, Head: 3 * ptrSize},
		".bss":       {Name: ".bss", Base: ptrSize, Head: ptrSize},
		".noptrbss":  {Name: ".noptrbss", Base: 256, Head: 256},
	}
	for _, sd := range d.Sections {
		if want, ok := wantSections[sd.Name]; ok {
			if diff := cmp.Diff(want, sd); diff != "" {
				t.Errorf("section %s (-want +got):\n%s", sd.Name, diff)
			}
		}
		if sd.Name == ".text" && sd.Delta != lookupDelta-removed.Size {
			t.Errorf(".text delta = %d, want Lookup %+d and Removed −%d = %d", sd.Delta, lookupDelta, removed.Size, lookupDelta-removed.Size)
		}
	}
	// The subpackage did not change.
	for _, sd := range d.Packages[1].Sections {
		if d.Packages[1].Path != subPkg || sd.Delta != 0 {
			t.Errorf("%s %+v changed", d.Packages[1].Path, sd)
		}
	}
}

func TestMeasureStripped(t *testing.T) {
	path := fixtureBinary(t, false, "-s")
	_, err := Measure(path, gatedPkg)
	if !errors.Is(err, ErrNoSymbols) {
		t.Fatalf("Measure of a -ldflags=-s binary: err = %v, want ErrNoSymbols", err)
	}
	for _, part := range []string{path, "no symbol table", "-ldflags=-s", "stripped"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not mention %q", err, part)
		}
	}
}

func TestMeasureErrors(t *testing.T) {
	bin := fixtureBinary(t, false, "")
	notBinary := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notBinary, []byte("hello, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, pkg, want string }{
		{bin, "./tbl", "not an import path"},
		{bin, "", "not an import path"},
		{bin, fixtureModule + "/nope", "no symbols of package"},
		// a prefix of the path is not the package
		{bin, fixtureModule + "/tb", "no symbols of package"},
		{notBinary, gatedPkg, "not an ELF, Mach-O or PE"},
		{filepath.Join(t.TempDir(), "missing"), gatedPkg, "no such file"},
	} {
		_, err := Measure(tc.path, tc.pkg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Measure(%s, %q) error = %v, want it to contain %q", filepath.Base(tc.path), tc.pkg, err, tc.want)
		}
	}
}

// TestMeasureStdlibDES measures Go's own crypto/des in its test binary. The data sizes are facts of
// $(go env GOROOT)/src/crypto/des: block.go declares feistelBox [8][64]uint32 (2048 bytes, filled
// at run time: .noptrbss), const.go declares sBoxes [8][4][16]uint8 (512 bytes) and
// initialPermutation [64]byte (64 bytes), initialised: .noptrdata.
func TestMeasureStdlibDES(t *testing.T) {
	if testing.Short() {
		t.Skip("builds crypto/des's test binary; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "des.test")
	cmd := exec.Command(goTool, "test", "-c", "-trimpath", "-o", bin, "crypto/des")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	s, err := Measure(bin, "crypto/des")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Symbol{
		{Name: "crypto/des.feistelBox", Section: ".noptrbss", Package: "crypto/des", Size: 2048},
		{Name: "crypto/des.sBoxes", Section: ".noptrdata", Package: "crypto/des", Size: 512},
		{Name: "crypto/des.initialPermutation", Section: ".noptrdata", Package: "crypto/des", Size: 64},
	} {
		if got := find(t, s.Symbols, want.Name); got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	// internal_test.go's TestInitialPermute is in package des, but it is test code.
	find(t, s.Tests, "crypto/des.TestInitialPermute")
	for _, sym := range s.Symbols {
		if strings.HasPrefix(sym.Name, "crypto/des.Test") {
			t.Errorf("test function %s attributed to the package", sym.Name)
		}
	}
	t.Logf("crypto/des sections: %v", s.Sections)
}
