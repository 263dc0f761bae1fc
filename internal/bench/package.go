package bench

// PackageInfo describes the gated package in one side's tree.
type PackageInfo struct {
	// e.g. "github.com/perfgate/perfgate/cipher/des": the size measurement selects its symbols
	ImportPath string
	Name       string // the package name
	// the package's directory in the tree: the working directory of its test binary
	Dir string
	// it has _test.go files, internal or external; without them there is no test binary
	HasTests bool
	// Log is what go list printed on standard error: on a first build, the "go: downloading …"
	// lines of the modules it fetched, which belongs in the side's build log.
	Log []byte
}

// Package is one package that a pattern matched: its PackageInfo, its path relative to the module
// root, and the top-level benchmarks its test files declare.
type Package struct {
	PackageInfo
	Rel string // "./cipher/des"; "." for the module root's package
	// Benchmarks are the names of the BenchmarkXxx functions of its test files (without the
	// prefix), in file order. The test binary is the authority on what runs; this list only splits
	// work before anything is built.
	Benchmarks []string
}
