// Package gobuild builds the test binaries perfgate measures and asks the go command about the
// gated packages.
//
// Build compiles one side's test binary with go test -c. Base and head get the same Config apart
// from their directories and output, and the same flags and environment whatever the user's
// environment says, so that the two binaries differ only by their source. Inspect, ListPackages
// and ModuleDeps ask go list about the packages; Decisions returns the compiler's -m=2 report of
// one package. TestFiles, SameFiles, TestOverlay and ChangedBenchmarks read and compare the two
// sides' test files, so that base can be built with head's benchmarks (like for like).
package gobuild
