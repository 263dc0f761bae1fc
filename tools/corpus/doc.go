// Package corpus is perfgate's accuracy test: pairs of commits whose performance change is known,
// and the means to score a configuration of perfgate against them.
//
// Each pair is one txtar archive under pairs/. Its header says what the pair is (the change, the
// package to gate, where its code came from), its files under base/ form the base commit's tree and
// its files under head/ overlay that tree to form the head commit (a "delete:" line removes a
// path). A pair whose header says "demo: BASE HEAD" has no files: it is two commits of the
// internal/demo fixture history. Materialize turns a pair into a git repository with two commits,
// branches base and head, made with a fixed identity and clock.
//
// Beside each archive, pairs/NAME.truth holds the pair's truth: per benchmark, the head/base ratio
// of time per op measured by go test's own protocol, not by perfgate (the measure command's
// -coverage with -truth: go test -c binaries, rounds of base, head, head, base, each a process
// running the benchmark as go test -bench does, pinned, taken around perfgate runs), as the median
// of the rounds' ratios with the sign test's interval, which a few rounds disturbed by load move
// little; with the command that measured it, the date, the machine's load and notes on the noise.
// A truth whose interval contains 1 is "unchanged within ±X%".
//
// The pairs (kind: what they test):
//
//	mix-slower1          threshold: Mix runs 1% more serial rounds, half the default 2% threshold
//	mix-slower5/10/25/100  slower: 5, 10, 25 and 100% more rounds; Sum untouched in every mix pair
//	mix-faster3/10/50    faster: 3, 10 and 50% fewer rounds
//	mix-comment          neutral: comments only
//	mix-newtest          neutral: a test file added
//	layout-reorder       layout: Sum moved above Mix
//	layout-deadcode      layout: an exported function nothing calls, in a file compiled first
//	inline-div           inlining: reduce kept out of line, so x % M is a DIV: fewer instructions, more time
//	inline-mul           inlining: the reverse, more instructions, less time
//	alloc-sizeclass      alloc: a 4-byte field moves an allocation from the 256-byte size class to 288
//	demo-fold            the internal/demo history's base → folded (P folded into the S-boxes)
//	poly1305-limbs       golang.org/x/crypto: the generic poly1305 rewritten with 64-bit limbs
//	highwayhash-gospeed  minio/highwayhash: the generic Go code's critical path shortened
//	highwayhash-avx2     minio/highwayhash: an AVX2 finalize, a SIMD path
//	xxhash-asm           cespare/xxhash: the amd64 assembly reworked
//	xxhash-bce           cespare/xxhash: bounds checks removed from the pure-Go Sum64
//	xxhash-comments      cespare/xxhash: comment changes in the assembly, neutral
//	siphash-asm          dchest/siphash: the amd64 assembly's tail switch simplified
//	btree-seek           google/btree: iteration from a key seeks it by binary search; tests seed math/rand with
//	                     the time, Get stops its timer in the loop
//	btree-comment        google/btree: a doc comment fixed, neutral; Insert allocates, Get and Delete stop their
//	                     timers in the loop
//	httprouter-cleanpath julienschmidt/httprouter: CleanPath uses a stack buffer, no heap allocation; Allowed
//	                     (untouched) is a sub-µs operation
//	httprouter-comments  julienschmidt/httprouter: CleanPath's comments rewritten, neutral
//	bitset-rank          bits-and-blooms/bitset: Rank made inlinable (1–10 ns operations)
//	bitset-comment       bits-and-blooms/bitset: comments added, neutral (few-ns Set and Test, SetExpand allocates)
//	fastcache-get        VictoriaMetrics/fastcache: bucket fields reordered for cache locality (maps,
//	                     b.RunParallel; the gain was measured at 8 threads)
//	fastcache-jstags     VictoriaMetrics/fastcache: build constraints gain "js", same binary, neutral (a 32 MiB
//	                     cache saved to a file and loaded back)
//
// The pairs from btree on are ordinary code, chosen for what the cryptographic pairs lack. A pair
// whose truth could not yet be measured at low load is listed in awaitingTruth (corpus_test.go's
// companion file).
//
// Third-party pairs keep the package's files at the two commits, the repository's LICENSE, and its
// go.mod (or one the corpus adds, when the repository had none then); base/go.mod's comment says
// what was kept.
//
// The score command builds perfgate (or takes a binary), runs perfgate compare with the given flags
// on every pair, and compares the classes perfgate gives with the truth: direction errors, false
// failures, changes found, the settled share and the wall time. It is a benchmark run by hand; the
// package's tests only check that the corpus is well formed.
package corpus
