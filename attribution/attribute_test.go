package attribution

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildMain builds the module example.com/xt from x.go (package xt) and a main package that calls it, with
// -trimpath as perfgate builds, and returns the binary's path.
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

// funcAddrs returns the first address of every line table row inside the named function: a stand-in for the
// addresses a run executes, one count each.
func funcAddrs(t *testing.T, b *Binary, path string, fn string) Counts {
	t.Helper()
	f, err := elf.Open(path)
	must(t, err)
	defer f.Close()
	syms, err := f.Symbols()
	must(t, err)
	c := Counts{}
	for _, s := range syms {
		if s.Name != fn {
			continue
		}
		for _, r := range b.lines {
			if r.addr >= s.Value && r.addr < s.Value+s.Size && !r.end {
				c[r.addr]++
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
	// Unchanged lines moved by the edit compare with base's: head's 14 is base's 10 ("v0, v1 := …").
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
