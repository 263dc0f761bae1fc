// Package harness holds the source of the program the differential check generates inside the
// gated module, one file per family and main.go (Main), with the table entries that name each
// constructor (Entry). The program reads its jobs from stdin and writes each job's outputs, ended
// by Trailer; with -probe it prints the key and nonce sizes each entry accepts, up to MaxKeySize
// and MaxNonceSize.
//
// The harness draws no random numbers: every input comes from perfgate, so both sides see the same
// bytes. It is compiled at the gated module's language version, so its code is written in the Go
// that go 1.12 accepts: no generics, any, clear, min, max, range over an int, and nothing that
// depends on per-iteration loop variables (go 1.22).
package harness
