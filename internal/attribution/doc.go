// Package attribution says why a benchmark changed: where, base → head, its instructions moved, and
// what the compiler decided differently.
//
// Data flows through it in two independent steps:
//
//  1. Attribute takes the instruction-count lane's per-address counts of one benchmark on each side
//     (Counts: the instructions per op of the code under test, by code address) and the two test
//     binaries. Locate (locate.go) names each address's function from the ELF symbol table and its
//     source file, line and innermost inlined function from DWARF; the counts are summed per line
//     and per function, and head's lines are matched to base's by a diff of the two versions of
//     each source file (linemap.go), so that neither the addresses, which differ between the
//     builds, nor line numbers moved by edits get in the way. The result lists the lines and
//     functions whose counts changed, largest change first (the code under test before test files
//     and code outside the module, by weight), each with its share of the benchmark's change, and,
//     when the top code ran only in base, the head-only function that replaced it.
//  2. ParseDecisions reads the compiler's -gcflags=-m=2 output of each side (inlining and escape
//     analysis), placing each decision in the function declared around it, and DiffDecisions words
//     the decisions that differ: "(*Cipher).round is no longer inlined into (*Cipher).Encrypt (cost
//     151 > 80)".
//
// Everything here reads files the pipeline already has; it runs no process of the repository's.
// Names and file names come from the repository: whoever renders them escapes them.
package attribution
