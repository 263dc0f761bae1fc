// Package elfsym reads what perfgate needs of an ELF binary: its function and data symbols (by
// name, by address, with their sizes), its sections and their bytes, and from its DWARF the line
// table and the ranges of inlined calls.
//
// Open reads the symbol table and the section headers; Code reads the machine code and DWARF the
// debugging information, each when asked. Addresses map to names through Spans, sorted ranges
// whose Find returns the innermost range holding an address.
package elfsym
