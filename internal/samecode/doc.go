// Package samecode decides, for each benchmark of a pair of Go test binaries (base and head),
// whether head runs exactly the machine code base runs, so that a benchmark whose code did not
// change can be reported unchanged without timing it.
//
// The promise is one-sided: a benchmark reported Same reaches, in head, the same code and data as
// in base after normalising what moves when code only shifts. Calling same code changed is allowed;
// calling changed code same is not. Every place where the analysis cannot see is answered
// "changed".
//
// # Data flow
//
// Analyze reads both files. Byte-identical files are Identical and every benchmark is Same.
// Otherwise each file must be a 64-bit ELF amd64 Go executable with a symbol table, built by go1.24
// to go1.26 (the type-descriptor layout read here); anything else is a Fallback and every benchmark
// is changed.
//
// Each allocated section is cut into units: a symbol, a stretch between symbols (the compiler's
// static temporaries have no symbol), one function value of the go:funcdesc carrier, or one piece
// of the type descriptor carrier (a descriptor, a name, a method table …). Every unit's references
// are located:
//
//   - machine code is decoded instruction by instruction (golang.org/x/arch/x86/x86asm; VEX and
//     EVEX instructions are measured by vexLength, since x86asm misreads some). A PC-relative
//     operand (call, jump, RIP-relative data address) is blanked and becomes "unit+offset", or
//     "itself+offset" inside its own function. The whole function must decode, to its last byte, or
//     it is not analysable;
//   - data: every aligned 8-byte word whose value is an address inside a unit is a pointer, blanked
//     and turned into "unit+offset" — except in the carriers that hold only bytes (string data, GC
//     masks), and except a value deep inside zero-initialised data (4 KiB or more into a bss unit),
//     which is compared as a number (an itab's hash, eight bytes of a name, inside the 32 MiB
//     buffer of crypto/internal/fips140/drbg);
//   - in functions compiled from Go (their line table names a .go file), absolute operands are
//     constants: the Go toolchain takes every address PC-relative on amd64 (MOVQ $sym(SB) becomes
//     LEAQ), and only hand-written assembly indexes a symbol directly. Their bytes are compared,
//     and they refer to nothing;
//   - type descriptors are read field by field: method tables' text offsets (relative to
//     runtime.text) and name and type offsets (relative to runtime.types) become references too.
//
// From the roots every benchmark shares — the entry point, runtime.main, the test main's main.main,
// and every package's initialisation function and init task — and then from the benchmark function
// itself (pkg.BenchmarkX or pkg_test.BenchmarkX), the walk follows every reference of every unit it
// reaches: calls and jumps, any address materialised in code, pointers in data (itabs, function
// values, closures' descriptors, jump tables, method tables), a type's methods, its pointer type,
// the itabs the linker made for it (.itablink, which the runtime searches in dynamic conversions),
// and the types .typelink lists that are built from it (reflect.PointerTo(t), SliceOf(t), MapOf(k,
// e) … find those by their type string). Code that reads the whole .typelink list otherwise (a
// linkname to reflect.typelinks) reaches every type in it. A type descriptor that code refers to
// only as the type of an allocation (LEAQ type(IP), AX, then CALL runtime.newobject: new(T), &T{})
// is reached for its layout only: it is compared, and its GC mask followed, but not its methods,
// its pointer type or its fields' types. The allocator reads only the layout and keeps the
// descriptor for the garbage collector; no code can get it back from the object, so a benchmark
// that allocates a T reaches (*T).M only by some other reference (an interface's type word, a
// call). Stretches of data no symbol covers (the compiler's static temporaries) are cut wherever
// something points into them and each piece is named by its content, and so are the types' names
// before the first descriptor: named by their distance from a symbol, they changed names whenever
// head added a table before them. A piece reaches the piece after it (a static temporary is read
// forward from its start), compared when both sides have one. Sub-benchmarks are closures the
// benchmark function refers to. The test main's tables of tests and benchmarks are the one thing
// not followed: they would tie every benchmark to every other. Each reached unit is compared with
// the unit of the same name in head: same kind, size, normalised bytes, and the same references in
// the same order. The first difference, with the path that reached it, is the Reason.
//
// # Where the analysis is conservative
//
// These make it call same code changed; none can make it call changed code same:
//
//   - everything package initialisation reaches is reached by every benchmark, including function
//     values it only stores (a test file's table of constructors ties every benchmark to every
//     constructor);
//   - a type's methods are reached with the type, whether or not they are called;
//   - the string data (go:string.*), the GC masks of types (runtime.gcbits.*) and the other
//     carriers the symbol table does not split are compared whole: adding or changing any string
//     literal changes every benchmark that reaches any string. Strings cannot be cut at the
//     addresses code refers to, because the compiler refers into the middle of a literal (s[6:] of
//     a constant is go:string."…"+6), so a piece would not hold all a reference reads;
//   - an absolute address in an instruction (hand-written assembly's sym(SB)(R*8) operands,
//     immediates) is compared as it is, so it changes when its target moves;
//   - a unit that does not decode, or refers to an address outside every unit, is not analysable;
//   - renamed symbols (a closure renumbered, funcN) are missing in head.
//
// # What is not compared, and why that is sound
//
//   - Line tables and the rest of .gopclntab (function metadata: PC-to-line, stack maps, inline
//     trees, funcdata go:func.*), .typelink and .itablink (read as described above), the module
//     data (runtime.firstmoduledata), the GC bitmaps of globals (runtime.gcdata, gcbss) and build
//     information: they describe the code for the runtime and debuggers and are not executed. A
//     change that alters only them — a stack variable's pointer map, say — leaves the machine code
//     the same and is reported same.
//   - Zero-initialised data (.bss, .noptrbss) is compared by size: its contents are written by code
//     the walk reaches (package initialisation is a root).
//
// # Residual assumptions
//
//   - Without relocations an aligned data word cannot be told from a pointer: a word is read as one
//     when its value lies inside a unit. An integer that changed from base to head by exactly the
//     distance that the unit it seems to point into moved, landing at the same offset of the
//     same-named unit, would read as an unchanged pointer. This needs a constant chosen to equal a
//     link address of head.
//   - Code reaches only what it names: an address computed by arithmetic from another symbol's
//     address, other than the type text offsets read here, is not followed, and an access past the
//     end of a symbol reads bytes that belong to its neighbour. Compiled Go does neither;
//     hand-written assembly could.
//   - A number deep inside a bss unit (an operand of assembly, a data word) is taken for a number:
//     were it an address, the linker would have moved it with the unit, and its bytes, which are
//     compared, would differ. This misses only an offset in the source that changed by exactly the
//     distance the unit moved.
//   - Type descriptors are found from references, .typelink and the descriptors' own offsets. Tests
//     check this against DWARF's list of every descriptor (DW_AT_go_runtime_type).
//   - The decoder is trusted to find every PC-relative operand. Tests check it against GNU objdump
//     on every function of two real test binaries: the same instruction boundaries, the same
//     PC-relative targets.
//   - A test flips one byte at a time in units a benchmark reaches and requires "changed" every
//     time.
package samecode
