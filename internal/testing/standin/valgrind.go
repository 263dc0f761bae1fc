// Package standin makes stand-ins for measuring tools that fail the way they fail on hosts this
// project does not have, so that tests can show that a tool's failure is never taken for the
// code's.
package standin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Mode says how a stand-in valgrind fails when it runs a test binary (a command line with
// -test.bench).
type Mode string

// The modes.
const (
	// Crash fails every run as valgrind 3.19 does on a host without RDTSCP: vex's message, the
	// runtime's SIGILL traceback in runtime.cputicks, exit status 2.
	Crash Mode = "crash"
	// CrashMatching crashes as Crash, only the runs whose command line contains the match string
	// (one side).
	CrashMatching Mode = "crash-matching"
	// CrashRandom crashes as Crash in 30% of runs, at random.
	CrashRandom Mode = "crash-random"
	// Truncate runs the real valgrind, then cuts every callgrind output file it wrote in half.
	Truncate Mode = "truncate"
)

// crashOutput is what a run of a Go test binary under valgrind 3.19 printed on a host without
// RDTSCP (abridged).
const crashOutput = `vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20 0x48 0x1 0xD0
==4242== valgrind: Unrecognised instruction at address 0x48e649.
==4242==    at 0x48E649: runtime.cputicks.abi0 (asm_amd64.s:1261)
==4242==    by 0x4155D4: runtime.lock2 (lock_spinbit.go:235)
SIGILL: illegal instruction
PC=0x48e649 m=0 sigcode=2

goroutine 0 gp=0xc000002000 m=0 mp=0x856000 [idle]:
runtime.cputicks()
	/usr/local/go/src/runtime/asm_amd64.s:1261 +0x9
`

// Valgrind writes a stand-in named valgrind into a new directory and returns the directory, to put
// first in PATH. It wraps the real valgrind (which must be installed: the caller skips without it):
// its version, the runs that are not of a test binary (perfgate's CPU probe) and the runs the mode
// spares go to the real one.
func Valgrind(t testing.TB, mode Mode, match string) string {
	t.Helper()
	real, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("the stand-in wraps valgrind, which is not installed")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crash.txt"), []byte(crashOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	crash := `cat '` + filepath.Join(dir, "crash.txt") + `' >&2; exit 2`
	var fail string
	switch mode {
	case Crash:
		fail = crash
	case CrashMatching:
		fail = `case "$*" in *'` + strings.ReplaceAll(match, "'", "") + `'*) ` + crash + `;; esac`
	case CrashRandom:
		fail = `r=$(od -An -N1 -tu1 /dev/urandom | tr -d ' '); if [ $((r % 10)) -lt 3 ]; then ` + crash + `; fi`
	case Truncate:
		fail = `out=""; for a in "$@"; do case "$a" in --callgrind-out-file=*) out="${a#--callgrind-out-file=}";; esac; done
"` + real + `" "$@"; rc=$?
for f in "$out" "$out".*; do [ -f "$f" ] && truncate -s $(( $(wc -c < "$f") / 2 )) "$f"; done
exit $rc`
	default:
		t.Fatalf("stand-in valgrind: unknown mode %q", mode)
	}
	script := `#!/bin/sh
# A stand-in valgrind (` + string(mode) + `), made by package standin.
case "$*" in
*-test.bench=*)
` + fail + `
;;
esac
exec "` + real + `" "$@"
`
	if err := os.WriteFile(filepath.Join(dir, "valgrind"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
