package sizes

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// TestMeasureCrossFormats cross-compiles the fixture's command for macOS and Windows and checks
// that Measure finds the package's symbols in the right Go sections with plausible sizes. Mach-O
// and PE sizes come from address gaps, so they may include alignment padding: a data symbol's size
// is at least its declared size and less than its declared size plus 32 (Go aligns data to at
// most 32 bytes).
func TestMeasureCrossFormats(t *testing.T) {
	testenv.Long(t) // cross-compiles the runtime for two targets
	dir := writeFixture(t, false)
	for _, target := range []struct{ goos, goarch, format string }{
		{"darwin", "arm64", "macho"},
		{"windows", "amd64", "pe"},
	} {
		t.Run(target.format, func(t *testing.T) {
			env := []string{"GOOS=" + target.goos, "GOARCH=" + target.goarch}
			bin := filepath.Join(t.TempDir(), "fx")
			goBuild(t, dir, bin, env, "build", "-trimpath")
			s, err := Measure(bin, gatedPkg)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != target.format {
				t.Errorf("Format = %q, want %q", s.Format, target.format)
			}
			for _, fn := range []string{"Lookup", "Fill", "Count"} {
				sym := find(t, s.Symbols, gatedPkg+"."+fn)
				if sym.Section != ".text" || sym.Size <= 0 || sym.Size > 1024 {
					t.Errorf("%+v: want .text, 0 < size ≤ 1024", sym)
				}
			}
			// Both targets are 64-bit: pointers are 8 bytes.
			for _, want := range []Symbol{
				{Name: gatedPkg + ".small", Section: ".noptrdata", Package: gatedPkg, Size: 32},
				{Name: gatedPkg + ".names", Section: ".data", Package: gatedPkg, Size: 24},
				{Name: gatedPkg + ".last", Section: ".bss", Package: gatedPkg, Size: 8},
				{Name: gatedPkg + ".scratch", Section: ".noptrbss", Package: gatedPkg, Size: 256},
				{Name: subPkg + ".Tab", Section: ".noptrdata", Package: subPkg, Size: 32},
			} {
				got := find(t, s.Symbols, want.Name)
				if got.Section != want.Section || got.Package != want.Package || got.Size < want.Size || got.Size >= want.Size+32 {
					t.Errorf("%+v, want section %s, package %s, %d ≤ size < %d", got, want.Section, want.Package, want.Size, want.Size+32)
				}
			}
			if len(s.Packages) != 2 || s.Packages[1].Path != subPkg {
				t.Errorf("Packages = %+v, want %s and %s", s.Packages, gatedPkg, subPkg)
			}

			stripped := filepath.Join(t.TempDir(), "fx-stripped")
			goBuild(t, dir, stripped, env, "build", "-trimpath", "-ldflags=-s")
			if _, err := Measure(stripped, gatedPkg); !errors.Is(err, ErrNoSymbols) {
				t.Errorf("stripped %s binary: err = %v, want ErrNoSymbols", target.format, err)
			}
		})
	}
}

func TestSizeByGaps(t *testing.T) {
	// Two file sections; in section 1, a marker shares its address with a real symbol,
	// and the last symbol runs to the section's end.
	placed := []placedSym{
		{name: "p.b", addr: 0x120, secIndex: 1, secName: ".text", secEnd: 0x200},
		{name: "runtime.text", addr: 0x100, secIndex: 1, secName: ".text", secEnd: 0x200},
		{name: "p.a", addr: 0x100, secIndex: 1, secName: ".text", secEnd: 0x200},
		{name: "p.c", addr: 0x1f0, secIndex: 1, secName: ".text", secEnd: 0x200},
		{name: "p.d", addr: 0x300, secIndex: 2, secName: ".noptrdata", secEnd: 0x340},
	}
	got := map[string]int64{}
	for _, s := range sizeByGaps(placed) {
		got[s.name] = s.size
	}
	want := map[string]int64{"runtime.text": 0, "p.a": 0x20, "p.b": 0xd0, "p.c": 0x10, "p.d": 0x40}
	for name, size := range want {
		if got[name] != size {
			t.Errorf("%s size = %#x, want %#x", name, got[name], size)
		}
	}
}
