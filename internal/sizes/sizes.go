// Package sizes measures how many bytes one Go package's symbols occupy in a linked binary, per
// section, and compares two such measurements.
//
// Data flows in one direction: Measure opens an executable (ELF, Mach-O or PE), reads its symbol
// table, attributes each symbol to a package by its name, and sums the sizes of the gated package's
// symbols per section into a Sizes value. Diff compares the Sizes of a base and a head binary into
// a Delta (per section, and the symbols that grew, shrank, appeared or vanished). WriteBenchfmt
// writes both sides in Go benchmark format (sizes.txt) so that stock benchstat compares them too.
//
// # Sections
//
// Go's linker places a package's code and data in up to six sections, and all six are reported:
// .text (functions), .rodata (read-only data: itabs, generic dictionaries, static temporaries),
// .noptrdata (initialised variables without pointers, e.g. lookup tables), .data (initialised
// variables with pointers), .bss (zeroed variables with pointers) and .noptrbss (zeroed variables
// without pointers, e.g. tables filled at run time). These ELF names are the common vocabulary:
// Mach-O's __text, __rodata, __noptrdata, __data, __bss and __noptrbss map onto them one to one.
// PE has only .text, .rdata and .data: .rdata is reported as .rodata, and PE .data, which holds all
// four Go data sections, is split back into them by the linker's boundary symbols
// (runtime.noptrdata … runtime.enoptrbss); without those symbols it stays ".data".
//
// # Sizes
//
// ELF symbols carry their size. Mach-O and PE symbols do not: a symbol's size there is the gap to
// the next symbol's address in the same section (the last one ends at the section's end), so it
// includes the alignment padding after the symbol, and Mach-O or PE sizes run a little larger than
// ELF ones. Zero-sized symbols are ignored.
//
// # Attribution
//
// A symbol belongs to package P when its name starts with P's import path as a whole path, as
// debug/gosym reads names: functions "P.F", methods "P.(*T).M", closures "P.F.func1", generic
// instantiations "P.F[go.shape.int]" and their dictionaries "P..dict.F[int]", "P..stmp_0",
// "P.init", variables "P.table". Besides, "go:itab.*P.T,io.Reader" belongs to the package of the
// concrete type and "type:.eq.P.T" (a type's equality function) to the package of the named type.
// Type descriptors and string data are merged by the linker into the type:* and go:string.* blobs
// and cannot be attributed at all. Symbols that mention P but belong to no package of P, such as
// "other.F[P.T]", "go:itab.*other.T,P.I" or "type:.eq.[4]P.T", are listed as Unattributed, apart.
//
// Subpackages (P/internal/x) are attributed too: they count in the totals and are also shown per
// package. A test binary (go test -c) compiles P together with its in-package _test.go files.
// Functions whose source file, according to the binary's line table (pclntab), is a _test.go file
// are test code, and so is everything of the external test package P_test: those go to Tests, not
// to the totals. Variables declared in in-package _test.go files cannot be told apart (the line
// table covers only functions) and count as P's.
package sizes

import (
	"debug/gosym"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The sections every measurement reports, in this order, even when the package has no bytes in one.
var goSections = []string{".text", ".rodata", ".noptrdata", ".data", ".bss", ".noptrbss"}

// Sizes is the measurement of one package in one binary.
type Sizes struct {
	// Package is the import path that was measured.
	Package string
	// Format is the executable format: "elf", "macho" or "pe".
	Format string
	// Sections holds the bytes of the package's and its subpackages' symbols per section:
	// the six Go sections in a fixed order (.text, .rodata, .noptrdata, .data, .bss, .noptrbss),
	// then any other section that holds one of their symbols, by name. Tests are not included.
	Sections []Section
	// Packages breaks Sections down per package: Package itself first, then each subpackage
	// that has symbols, by path.
	Packages []PackageSizes
	// Symbols lists every attributed symbol (the package and its subpackages, not tests),
	// sorted by section, then name.
	Symbols []Symbol
	// Tests lists the symbols of test code: functions defined in the package's _test.go files
	// and all symbols of the external test package Package+"_test". Sorted like Symbols.
	Tests []Symbol
	// Unattributed lists symbols whose names mention the package but that belong to no package
	// of it (see the package documentation). Sorted like Symbols; Package is empty.
	Unattributed []Symbol
	// Notes explains limits of this measurement, e.g. when test functions could not be told apart.
	Notes []string
}

// Section is the number of bytes a package's symbols occupy in one section.
type Section struct {
	Name string // Go's section name, e.g. ".text" or ".noptrdata"
	Size int64  // bytes
}

// PackageSizes is the per-section size of one package (the measured package or a subpackage).
type PackageSizes struct {
	Path     string    // import path
	Sections []Section // same order and rules as Sizes.Sections
}

// Symbol is one symbol of the binary.
type Symbol struct {
	Name    string // the linker's name, e.g. "crypto/des.(*desCipher).Encrypt"
	Section string // Go's section name
	Package string // the import path the symbol is attributed to; "" when unattributed
	Size    int64  // bytes
}

// Measure reads the binary at path and returns the sizes of the symbols of package pkgPath
// (an import path such as "github.com/perfgate/perfgate/cipher/des", not a relative "./cipher/des")
// and its subpackages, per section. A binary without a symbol table gives an error wrapping
// ErrNoSymbols; a binary without a single symbol of pkgPath is an error too, since it almost always
// means a wrong import path or a wrong binary.
func Measure(path, pkgPath string) (*Sizes, error) {
	if pkgPath == "" || strings.HasPrefix(pkgPath, ".") || strings.HasPrefix(pkgPath, "/") || strings.HasSuffix(pkgPath,
		"/") {
		return nil, fmt.Errorf("measuring %s: package %q is not an import path", path, pkgPath)
	}
	bin, err := openBinary(path)
	if err != nil {
		return nil, fmt.Errorf("measuring %s: %w", path, err)
	}
	s := measure(bin, pkgPath)
	if len(s.Symbols) == 0 && len(s.Tests) == 0 {
		return nil, fmt.Errorf("measuring %s: no symbols of package %s in the binary: is it the package's test binary, and "+
			"the import path right?", path, pkgPath)
	}
	return s, nil
}

// measure attributes the binary's symbols to pkgPath and sums them.
func measure(bin *binary, pkgPath string) *Sizes {
	s := &Sizes{Package: pkgPath, Format: bin.format}
	testFile, note := testFunctions(bin)
	if note != "" {
		s.Notes = append(s.Notes, note)
	}
	for _, raw := range bin.syms {
		if raw.size <= 0 {
			continue
		}
		kind, owner := classify(raw.name, pkgPath)
		sym := Symbol{Name: raw.name, Section: raw.section, Package: owner, Size: raw.size}
		switch {
		case kind == ownExternalTest, kind == ownPackage && raw.section == ".text" && testFile[raw.addr]:
			s.Tests = append(s.Tests, sym)
		case kind == ownPackage:
			s.Symbols = append(s.Symbols, sym)
		case kind == ownMentions:
			s.Unattributed = append(s.Unattributed, sym)
		}
	}
	for _, list := range [][]Symbol{s.Symbols, s.Tests, s.Unattributed} {
		sortSymbols(list)
	}
	s.Sections = sumSections(s.Symbols)
	byPkg := map[string][]Symbol{pkgPath: nil}
	for _, sym := range s.Symbols {
		byPkg[sym.Package] = append(byPkg[sym.Package], sym)
	}
	for path, syms := range byPkg {
		s.Packages = append(s.Packages, PackageSizes{Path: path, Sections: sumSections(syms)})
	}
	sort.Slice(s.Packages, func(i, j int) bool {
		a, b := s.Packages[i].Path, s.Packages[j].Path
		return a == pkgPath || b != pkgPath && a < b
	})
	return s
}

// testFunctions returns the entry addresses of the functions whose source file is a _test.go file,
// from the binary's line table. When the line table cannot be read it returns a note saying so.
func testFunctions(bin *binary) (map[uint64]bool, string) {
	if bin.pclntab == nil {
		return nil, "no Go line table (pclntab) found: functions of _test.go files count as the package's"
	}
	tab, err := safeTable(bin.pclntab, bin.text)
	if err != nil {
		return nil, fmt.Sprintf("reading the Go line table: %v: functions of _test.go files count as the package's", err)
	}
	out := map[uint64]bool{}
	for _, fn := range tab.Funcs {
		// The entry instruction's file is the function's own: code inlined from elsewhere
		// comes after the prologue, and non-test code cannot call into _test.go files anyway.
		if file, _, _ := tab.PCToLine(fn.Entry); strings.HasSuffix(file, "_test.go") {
			out[fn.Entry] = true
		}
	}
	return out, ""
}

// safeTable is gosym.NewTable guarded against panics on a malformed line table.
func safeTable(pclntab []byte, text uint64) (tab *gosym.Table, err error) {
	defer func() {
		if r := recover(); r != nil {
			tab, err = nil, errors.New(fmt.Sprint(r))
		}
	}()
	return gosym.NewTable(nil, gosym.NewLineTable(pclntab, text))
}

// sumSections totals symbol sizes per section: the six Go sections always, in their fixed order,
// then other sections by name.
func sumSections(syms []Symbol) []Section {
	total := map[string]int64{}
	for _, s := range syms {
		total[s.Section] += s.Size
	}
	out := make([]Section, 0, len(goSections))
	for _, name := range goSections {
		out = append(out, Section{Name: name, Size: total[name]})
		delete(total, name)
	}
	var other []string
	for name := range total {
		other = append(other, name)
	}
	sort.Strings(other)
	for _, name := range other {
		out = append(out, Section{Name: name, Size: total[name]})
	}
	return out
}

// sortSymbols orders symbols by section (Go's order first), then name.
func sortSymbols(syms []Symbol) {
	sort.Slice(syms, func(i, j int) bool {
		a, b := syms[i], syms[j]
		if ra, rb := sectionRank(a.Section), sectionRank(b.Section); ra != rb {
			return ra < rb
		}
		if a.Section != b.Section {
			return a.Section < b.Section
		}
		return a.Name < b.Name
	})
}

// sectionRank places the six Go sections first, in their usual order.
func sectionRank(name string) int {
	for i, s := range goSections {
		if s == name {
			return i
		}
	}
	return len(goSections)
}
