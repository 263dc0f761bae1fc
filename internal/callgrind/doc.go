// Package callgrind reads what valgrind's callgrind tool counts in a Go test binary: the options
// of a counting run (Args), the dumps it writes (ReadDumps), and the instructions of the code under
// test that each benchmark result line timed (TimedCounts).
//
// Data flows through it in three steps. ReadSymtab names the functions of the binary's machine
// code from its symbol table (through package elfsym) and decodes the stack check each amd64
// function begins with. ReadDumps reads the files callgrind writes at the testing package's timer
// calls, one Segment each, attributing every instruction by its address: the Go runtime's and the
// testing package's machinery is left out, the runtime's copy and compare helpers count when the
// code under test calls them, and failed stack checks are taken off. TimedCounts adds up the
// segments each benchmark timed, one LeafCount per result line, and PerOpAddrs takes one
// operation's counts by address from the counts at N and 2N iterations.
package callgrind
