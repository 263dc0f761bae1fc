package record

// Sizes compares the bytes one package occupies in base's and head's binaries. Package sizes
// computes it.
type Sizes struct {
	// Package is head's (else base's) measured import path.
	Package string `json:"package,omitempty"`
	// Sections compares the package's bytes per section: the six Go sections in their fixed order
	// (.text, .rodata, .noptrdata, .data, .bss, .noptrbss), then any other section either side has,
	// by name. Test code is not included.
	Sections []SectionSize `json:"sections"`
	// Packages breaks Sections down: the measured package first, then every subpackage either side
	// has, by path.
	Packages []PackageSize `json:"packages,omitempty"`
	// Tests compares the bytes of test code (the package's _test.go functions and its external test
	// package) per section, in the order of Sections.
	Tests []SectionSize `json:"tests,omitempty"`
	// Symbols lists the attributed symbols whose size differs, largest absolute change first (ties
	// by name, then section). A symbol that moved section shows as removed from one and added to
	// the other.
	Symbols []SymbolSize `json:"symbols"`
	// Notes are the measurements' notes on their limits, e.g. when test functions could not be told
	// apart.
	Notes []string `json:"notes,omitempty"`
	// Error says why the sizes could not be measured; the other fields are then empty.
	Error string `json:"error,omitempty"`
}

// SectionSize compares the bytes in one section.
type SectionSize struct {
	Name  string `json:"name"`
	Base  int64  `json:"base"`  // bytes
	Head  int64  `json:"head"`  // bytes
	Delta int64  `json:"delta"` // Head − Base, bytes
	// 100 × Delta / Base; 0 when Base is 0 (the section is new: show Head instead)
	DeltaPct float64 `json:"delta_pct"`
	// Package is the gated package the row belongs to, as Benchmark.Package; set in Sizes.Sections
	// when a comparison gates several packages or runs as shards.
	Package string `json:"package,omitempty"`
}

// PackageSize compares one package's sections.
type PackageSize struct {
	Path     string        `json:"path"`
	Sections []SectionSize `json:"sections"`
}

// How a symbol changed between base and head (SymbolSize.Change).
const (
	Grew    = "grew"
	Shrank  = "shrank"
	Added   = "added"   // only in head
	Removed = "removed" // only in base
)

// SymbolSize is one symbol that grew, shrank, appeared or vanished.
type SymbolSize struct {
	Name    string `json:"name"`
	Section string `json:"section"`
	Package string `json:"package,omitempty"`
	Base    int64  `json:"base"`   // bytes; 0 on the side where the symbol does not exist
	Head    int64  `json:"head"`   // bytes
	Delta   int64  `json:"delta"`  // Head − Base, bytes
	Change  string `json:"change"` // Grew, Shrank, Added or Removed
}
