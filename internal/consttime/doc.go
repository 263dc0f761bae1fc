// Package consttime checks whether a cipher package's code branches on, or indexes memory by, its
// secrets: for each constructor and operation (key setup, Encrypt, Decrypt and batch methods of
// block ciphers; Seal and Open of AEADs; XORKeyStream of stream ciphers), on base and on head.
//
// Check works in four steps, for both sides at once:
//
//  1. Discover. The package is loaded with golang.org/x/tools/go/packages and its exported
//     constructors are found by the methods of what they return: block ciphers and AEADs func(key
//     []byte) (T, error), stream ciphers func(key[, nonce] []byte) T or (T, error), with T a
//     pointer or an interface.
//  2. Build. A driver main package (driver.go) is generated and built inside the side's module with
//     go build -overlay, at the module's language version, with -trimpath and its symbols and DWARF
//     kept.
//  3. Trace. The driver runs under valgrind's lackey (--tool=lackey --trace-mem=yes), which prints
//     every instruction and data access. For every operation it makes a warm-up call, one call per
//     random secret (a random key and a random input of equal length, copied into the same buffers)
//     and a re-run of the first secret, each between calls of two marker functions whose addresses
//     the symbol table gives: only what lies between them counts. Of that, only the package's own
//     instructions are kept: the symbol ranges of its functions, and the ranges DWARF gives for
//     copies of them inlined into other functions.
//  4. Compare. Each secret's run is compared with the first's, position by position. Where the
//     instruction sequences differ, the instructions with several successors taken a different
//     number of times, and the last before the first difference, are secret-dependent branches. Up
//     to that point, the k-th memory access of two runs is compared by 64-byte line: of the address
//     in the binary's static data, of the offset into the value the constructor returned (each run
//     has its own), or of the address elsewhere; an instruction whose accesses go to a different
//     line is a secret-indexed access site. A site that also differs on the re-run of the same
//     secret moves for another reason (a fresh allocation, say) and is counted as unstable instead.
//     Every site is named by function, offset, inlined function and file:line, an access site also
//     by the table it reads (the data symbol, "object" or "heap") and the distinct lines it
//     touched, in all and per lookup.
//
// Keyed hashes and MACs are traced too, the key as the secret (keyed.go): a constructor func(key
// []byte) T or (T, error) with T a hash.Hash gets KeySetup and Sum, a keyed one-shot function Sum.
//
// A machine without valgrind gets status unavailable, never a clean result. The cost is lackey's:
// it writes a line per instruction and access, some 10 s of CPU per side for cipher/des's five
// constructors. Prepare and Trace (prepared.go) split the check for a pipeline that builds
// everything before running anything, and make it cheap enough to run by default: the drivers'
// functions BenchmarkCT<Name> are compared with package samecode, a constructor whose code is the
// same on both sides is not traced, and the rest are traced one at a time within a budget.
package consttime
