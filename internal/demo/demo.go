// Package demo holds the fixture history that `perfgate demo` and the
// end-to-end tests run on: a small DES module, example.com/minides, whose
// commits compare a textbook engine (base) with one that folds the P
// permutation into the S-boxes (folded), plus variants that are slower,
// larger, wrong, or that fail to build, test or benchmark.
//
// Data flows in one direction. Each commit is a txtar archive under
// history/, embedded in the binary; its header names the commit, its
// parent and its message, and its files replace or extend the parent's
// tree. loadHistory parses the archives and orders them parents first.
// Materialize replays that order into a fresh git repository with go-git
// (no git binary needed), using a fixed author, committer and timestamps,
// so every run produces the same commit SHAs. It then points branch main
// at folded, gives every commit a branch of its own name, tags base as
// v0.1.0 and checks main out in the work tree.
//
// Adding a variant means adding one history/<name>.txtar file; no code
// changes. The commits as shipped (children of base unless noted):
//
//	base        textbook DES/EDE3: S-box lookups, then P by a per-bit loop
//	folded      P folded into eight 64-entry uint32 SP tables; ~1.7x faster; branch main
//	broken      child of folded: one wrong SP entry; the fixture's own tests still pass
//	extraiter   child of folded: E through a 49-entry table, one more loop step per round;
//	            identical output
//	slower      identical output, encryption and decryption ~20% slower
//	bigtable    identical output; a 2 KiB table replaces the S-boxes, feistel is gone
//	tail        EncryptBlocks mishandles the blocks after 16 (with 17, only block 16)
//	parity      key schedule uses the parity bits; differs only if any is set
//	decrypt     one round key out of order when decrypting; encryption identical
//	panicbench  BenchmarkEncrypt/des panics "minides: boom"
//	hangbench   BenchmarkDecrypt/des never returns
//	nobuild     a type error in minides/block.go
//	nobench     minides/bench_test.go deleted
//	failtest    TestDeliberateFailure fails
//	envdump     BenchmarkKeySetup/des writes os.Environ() to $PERFGATE_ENVDUMP
//	weird       BenchmarkWeird/<b>x</b>|*y*_... : Markdown and HTML in a name
//	benchsize   child of folded: the benchmarks encrypt 32 blocks per operation instead of 8
//	benchapi    child of folded: adds Blocks, which the benchmarks now call, so its tests need
//	            head's package
package demo

import (
	"embed"
	"fmt"
	"sync"
)

// Module is the fixture's module path.
const Module = "example.com/minides"

// Package is the gated package, relative to the repository root.
const Package = "./minides"

// ImportPath is Module + "/minides".
const ImportPath = "example.com/minides/minides"

// Repo is a materialised fixture repository.
type Repo struct {
	// repository root (a git work tree checked out at branch main = "folded")
	Dir string
	// commit name → full 40-hex SHA, e.g. Commits["base"], Commits["folded"]
	Commits map[string]string
}

//go:embed history/*.txtar
var historyFS embed.FS

// history parses the embedded archives once.
var history = sync.OnceValues(func() ([]commit, error) {
	return loadHistory(historyFS, "history")
})

// Materialize writes the whole fixture history as a git repository in dir,
// which must not exist or be empty. Deterministic: fixed author, committer
// and timestamps, so SHAs are the same on every run.
func Materialize(dir string) (*Repo, error) {
	commits, err := history()
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	repo, err := writeRepo(dir, commits)
	if err != nil {
		return nil, fmt.Errorf("demo: materializing %s: %w", dir, err)
	}
	return repo, nil
}

// Names returns the commit names in creation order: every parent before
// its children, siblings in name order.
func Names() []string {
	commits, err := history()
	if err != nil {
		// The history is embedded at build time and checked by the tests.
		panic("demo: " + err.Error())
	}
	names := make([]string, len(commits))
	for i, c := range commits {
		names[i] = c.name
	}
	return names
}
