package attribution

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/elfsym"
)

// buildMain builds the module example.com/xt from x.go (package xt) and a main package that calls
// it, with -trimpath as perfgate builds, and returns the binary's path.
func buildMain(t *testing.T, src []byte) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/xt\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "x.go"), src, 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "cmd"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "cmd", "main.go"), []byte(`package main

import "example.com/xt"

func main() {
	var c xt.Cipher
	b := make([]byte, 8)
	c.Encrypt(b, b)
	println(b[0])
}
`), 0o644))
	cmd := exec.Command("go", "build", "-trimpath", "-o", "bin", "./cmd")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "bin")
}

// funcAddrs returns the first address of every line table row inside the named function: a stand-in
// for the addresses a run executes, one count each.
func funcAddrs(t *testing.T, b *Binary, path string, fn string) Counts {
	t.Helper()
	f, err := elfsym.Open(path)
	must(t, err)
	defer f.Close()
	c := Counts{}
	if s, ok := f.Func(fn); ok {
		for _, r := range b.dbg.Lines {
			if r.Addr >= s.Lo && r.Addr < s.Hi && !r.End {
				c[r.Addr]++
			}
		}
	}
	if len(c) == 0 {
		t.Fatalf("no code of %s", fn)
	}
	return c
}

func TestLocateInlined(t *testing.T) {
	src, err := os.ReadFile("testdata/base.go.txt")
	must(t, err)
	path := buildMain(t, src)
	b, err := Open(path)
	must(t, err)
	const enc = "example.com/xt.(*Cipher).Encrypt"
	inlined, lines := false, map[int]bool{}
	for addr := range funcAddrs(t, b, path, enc) {
		l := b.Locate(addr)
		if l.Func != enc {
			t.Errorf("%#x: func %q, want %q", addr, l.Func, enc)
		}
		if l.File != "example.com/xt/x.go" {
			t.Errorf("%#x: file %q", addr, l.File)
		}
		lines[l.Line] = true
		if l.Inlined == "example.com/xt.(*Cipher).round" {
			inlined = true
			if l.Line != 6 {
				t.Errorf("%#x: inlined round at line %d, want 6 (round's body)", addr, l.Line)
			}
		}
	}
	if !inlined {
		t.Errorf("no address of Encrypt is attributed to the inlined round")
	}
	for _, want := range []int{10, 12, 15} {
		if !lines[want] {
			t.Errorf("no address of Encrypt on line %d; lines %v", want, lines)
		}
	}
	if l := b.Locate(0); l != (Loc{}) {
		t.Errorf("Locate(0) = %+v, want nothing", l)
	}
}

func TestAttributeAcrossBuilds(t *testing.T) {
	baseSrc, err := os.ReadFile("testdata/base.go.txt")
	must(t, err)
	headSrc, err := os.ReadFile("testdata/head.go.txt")
	must(t, err)
	bp, hp := buildMain(t, baseSrc), buildMain(t, headSrc)
	bb, err := Open(bp)
	must(t, err)
	hb, err := Open(hp)
	must(t, err)
	bc := funcAddrs(t, bb, bp, "example.com/xt.(*Cipher).Encrypt")
	hc := funcAddrs(t, hb, hp, "example.com/xt.(*Cipher).Encrypt")
	for a, n := range funcAddrs(t, hb, hp, "example.com/xt.(*Cipher).round") {
		hc[a] += 64 * n // head calls round out of line, 64 times per Encrypt
	}
	srcOf := func(b []byte) Sources {
		return func(f string) ([]byte, bool) { return b, f == "example.com/xt/x.go" }
	}
	a := Attribute(bb, hb, bc, hc, srcOf(baseSrc), srcOf(headSrc))
	if len(a.Lines) == 0 || len(a.Funcs) == 0 {
		t.Fatalf("nothing attributed: %+v", a)
	}
	if top := a.Funcs[0]; top.Func != "example.com/xt.(*Cipher).round" || top.Base != 0 || top.Head == 0 {
		t.Errorf("top function %+v, want round, head only", top)
	}
	// The top lines are round's changed lines 7–9 (the added mixing), in head only.
	for _, l := range a.Lines[:3] {
		if l.File != "example.com/xt/x.go" || l.BaseLine != 0 || l.Line < 7 || l.Line > 9 {
			t.Errorf("top line %+v, want one of head's changed lines 7–9", l)
		}
	}
	// Unchanged lines moved by the edit compare with base's: head's 14 is base's 10 ("v0, v1 :=
	// …").
	for _, l := range a.Lines {
		if l.Line == 14 && l.BaseLine != 10 {
			t.Errorf("head's line 14 matched base's %d, want 10", l.BaseLine)
		}
		if l.BaseLine == 0 && l.Base != 0 {
			t.Errorf("a head-only line with base counts: %+v", l)
		}
	}
	if s := a.Share(a.Head - a.Base); s != 1 {
		t.Errorf("share of the whole change %v, want 1", s)
	}
}

func TestLineMap(t *testing.T) {
	base := []byte("a\nb\nc\nd\ne\n")
	head := []byte("a\nX\nb\nc\nY\ne\nf\n")
	got := lineMap(base, head)
	// head: a(1)=1, X(2) new, b(3)=2, c(4)=3, Y(5) new, e(6)=5, f(7) new
	want := []int{0, 1, 0, 2, 3, 0, 5, 0}
	if !bytesEqualInts(got, want) {
		t.Errorf("lineMap = %v, want %v", got, want)
	}
	// A file much longer than maxD edits still maps its common prefix and suffix.
	var bb, hb bytes.Buffer
	for i := 0; i < 3000; i++ {
		bb.WriteString("b" + strings.Repeat("x", i%7) + "\n")
		hb.WriteString("h" + strings.Repeat("y", i%5) + "\n")
	}
	big := lineMap(append([]byte("same\n"), bb.Bytes()...), append([]byte("same\n"), hb.Bytes()...))
	if big[1] != 1 {
		t.Errorf("common first line not mapped: %d", big[1])
	}
}

func bytesEqualInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fakeBinary is a Binary of the functions fns, each 0x100 bytes from 0x1000 on, every one of whose
// code addresses addr(fn, i) is on the line lines[fn][i]: a stand-in for a build, to rank lines
// without compiling.
func fakeBinary(fns []string, lines map[string][]lineOf) (*Binary, func(fn string, i int) uint64) {
	b := &Binary{dbg: &elfsym.Debug{}}
	start := map[string]uint64{}
	for i, fn := range fns {
		lo := uint64(0x1000 + 0x100*i)
		start[fn] = lo
		b.funcs = append(b.funcs, elfsym.Span{Lo: lo, Hi: lo + 0x100, Name: fn})
		for j, l := range lines[fn] {
			b.dbg.Lines = append(b.dbg.Lines, elfsym.Row{Addr: lo + uint64(0x10*j), File: l.file, Line: l.line})
		}
		b.dbg.Lines = append(b.dbg.Lines, elfsym.Row{Addr: lo + 0xff, End: true})
	}
	return b, func(fn string, i int) uint64 { return start[fn] + uint64(0x10*i) }
}

type lineOf struct {
	file string
	line int
}

// moduleSources has the files of example.com/m (forty numbered lines each) and nothing else.
func moduleSources(file string) ([]byte, bool) {
	if !strings.HasPrefix(file, "example.com/m/") {
		return nil, false
	}
	var b bytes.Buffer
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes(), true
}

// TestAttributeRanksModuleFirst: the code under test outranks the benchmark's own test file and
// code outside the module when their changes are of a size (inline-div in the corpus: the testing
// package's b.Loop line moved by 261 instructions/op, the benchmark's setup by 257, the changed
// reduce by 256), but not when the outside change is more than four times the module's (a change
// that makes the code allocate: mallocgc is the top function).
func TestAttributeRanksModuleFirst(t *testing.T) {
	const (
		bench = "example.com/m.BenchmarkSum"
		work  = "example.com/m.reduce"
		loop  = "testing.(*B).Loop"
		alloc = "runtime.mallocgc"
	)
	bin, addr := fakeBinary([]string{bench, work, loop, alloc}, map[string][]lineOf{
		bench: {{"example.com/m/m_test.go", 9}},
		work:  {{"example.com/m/m.go", 13}, {"example.com/m/m.go", 14}},
		loop:  {{"testing/benchmark.go", 515}},
		alloc: {{"runtime/malloc.go", 1000}, {"runtime/malloc.go", 1001}},
	})
	bc := Counts{addr(bench, 0): 300, addr(work, 0): 2304, addr(work, 1): 10, addr(loop, 0): 265}
	hc := Counts{addr(bench, 0): 43, addr(work, 0): 2048, addr(work, 1): 22, addr(loop, 0): 4,
		addr(alloc, 0): 100, addr(alloc, 1): 100}
	a := Attribute(bin, bin, bc, hc, moduleSources, moduleSources)
	var got []string
	for _, l := range a.Lines {
		got = append(got, fmt.Sprintf("%s:%d %+g", l.File, l.Line, l.Delta()))
	}
	want := []string{
		"example.com/m/m.go:13 -256",     // 256
		"example.com/m/m_test.go:9 -257", // 128.5
		"testing/benchmark.go:515 -261",  // 65.25
		"runtime/malloc.go:1000 +100",    // 25
		"runtime/malloc.go:1001 +100",    // 25
		"example.com/m/m.go:14 +12",      // 12
	}
	if !slices.Equal(got, want) {
		t.Errorf("lines ranked\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = nil
	for _, f := range a.Funcs {
		got = append(got, fmt.Sprintf("%s %+g", f.Func, f.Delta()))
	}
	want = []string{
		work + " -244",  // 244
		bench + " -257", // 128.5
		loop + " -261",  // 65.25
		alloc + " +200", // 50
	}
	if !slices.Equal(got, want) {
		t.Errorf("functions ranked\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.Replaced != nil {
		t.Errorf("replaced %+v, want nothing: the top function runs on both sides", a.Replaced)
	}
	// Allocating: the runtime's +800 outranks the module's +120, weighed a quarter.
	hc[addr(alloc, 0)], hc[addr(alloc, 1)] = 400, 400
	hc[addr(work, 0)] = 2304 + 120
	hc[addr(bench, 0)], hc[addr(loop, 0)] = 300, 265
	a = Attribute(bin, bin, bc, hc, moduleSources, moduleSources)
	if len(a.Funcs) == 0 || a.Funcs[0].Func != alloc {
		t.Errorf("functions %+v, want %s first", a.Funcs, alloc)
	}
	if len(a.Lines) == 0 || a.Lines[0].File != "example.com/m/m.go" || a.Lines[0].Line != 13 {
		t.Errorf("lines %+v, want m.go:13 (+120) before the runtime's lines (+400 each, weighed 100)", a.Lines)
	}
}

// TestAttributeReplaced: when the top function ran only in base, head's top head-only function is
// what replaced it (highwayhash-avx2 in the corpus: finalizeSSE4 172 → 0, finalizeAVX2 0 → 81,
// updateAVX2 0 → 33).
func TestAttributeReplaced(t *testing.T) {
	const (
		oldFin = "example.com/m.finalizeSSE4.abi0"
		oldUpd = "example.com/m.updateSSE4.abi0"
		newFin = "example.com/m.finalizeAVX2.abi0"
		newUpd = "example.com/m.updateAVX2.abi0"
		both   = "example.com/m.Sum64"
	)
	bin, addr := fakeBinary([]string{oldFin, oldUpd, newFin, newUpd, both}, map[string][]lineOf{
		oldFin: {{"example.com/m/sse.s", 10}},
		oldUpd: {{"example.com/m/sse.s", 20}},
		newFin: {{"example.com/m/avx.s", 10}, {"example.com/m/avx.s", 11}},
		newUpd: {{"example.com/m/avx.s", 20}},
		both:   {{"example.com/m/m.go", 5}},
	})
	bc := Counts{addr(oldFin, 0): 172, addr(oldUpd, 0): 62, addr(both, 0): 30}
	hc := Counts{addr(newFin, 0): 41, addr(newFin, 1): 40, addr(newUpd, 0): 33, addr(both, 0): 30}
	a := Attribute(bin, bin, bc, hc, moduleSources, moduleSources)
	r := a.Replaced
	if r == nil || r.Base.Func != oldFin || r.Base.Base != 172 || r.By.Func != newFin || r.By.Head != 81 {
		t.Fatalf("replaced %+v, want %s (172) by %s (81)", r, oldFin, newFin)
	}
	// Head runs the new code and still some of the old: nothing was replaced.
	hc[addr(oldFin, 0)] = 1
	if a := Attribute(bin, bin, bc, hc, moduleSources, moduleSources); a.Replaced != nil {
		t.Errorf("replaced %+v, want nothing: %s still runs in head", a.Replaced, oldFin)
	}
}
