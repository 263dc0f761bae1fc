package samecode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
)

// The fixture is a module with one package p. Its benchmarks:
//
//	BenchmarkA (external test package p_test) reaches onlyA, the table (through lookup),
//	the assembly function asmMix, a closure passed to b.Run, a method value (adder.Add), and double;
//	BenchmarkB (internal test file) reaches onlyB, double, and sq.Area through an interface;
//	TestUnused reaches unused, which no benchmark reaches.
//
// A variant edits one spot of the base source; variants[name] gives the replacements.
const fixtureP = `package p

//go:noinline
func onlyA(x int) int { return x*3 + 1 }

//go:noinline
func onlyB(x int) int { return x ^ 0x55 }

//go:noinline
func unused(x int) int { return x - 7 }

//go:noinline
func double(x int) int { return x * 2 }

var table = [8]uint32{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}

//go:noinline
func lookup(i int) uint32 { return table[i&7] }

// Shape has an area.
type Shape interface{ Area() int }

type sq struct{ n int }

func (s sq) Area() int { return s.n * s.n }

// Shapes are called through the interface only.
var Shapes = []Shape{sq{3}, sq{4}}

type adder struct{ k int }

//go:noinline
func (a adder) Add(x int) int { return x + a.k }

// Op is set by A to a method value.
var Op func(int) int

// A is what BenchmarkA measures.
func A(x int) int {
	Op = adder{x}.Add
	return onlyA(x) + int(lookup(x)) + asmMix(x, 3) + double(x) + Op(1)
}

// B is what BenchmarkB measures.
func B(x int) int {
	s := 0
	for _, sh := range Shapes {
		s += sh.Area()
	}
	return onlyB(x) + double(s) + int(label[4+x&7])
}

const label = "the shapes of B"

`

const fixtureAsm = `#include "textflag.h"

// func asmMix(a, b int) int
TEXT ·asmMix(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	ADDQ BX, AX
	MOVQ AX, ret+16(FP)
	RET
`

const fixtureInternalTest = `package p

import "testing"

var sink int

func BenchmarkB(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += B(i)
	}
}

func TestUnused(t *testing.T) {
	if unused(8) != 1 {
		t.Fatal("unused")
	}
}
`

const fixtureExternalTest = `package p_test

import (
	"testing"

	"example.com/fx/p"
)

var sink int

func BenchmarkA(b *testing.B) {
	b.Run("sub", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += p.A(i) + 1
		}
	})
}
`

// variant is a head made from the base source by replacing old with new in one file.
type variant struct {
	file, old, new string
}

var variants = map[string][]variant{
	"base":      nil,
	"doc":       {{"p.go", "package p\n", "package p\n\n// Package p is a fixture.\n// It has a longer doc comment now,\n// which moves every line below it.\n"}},
	"onlyA":     {{"p.go", "return x*3 + 1", "return x*5 + 1"}},
	"unreached": {{"p.go", "return x - 7", "return x - 9"}, {"p_internal_test.go", "unused(8) != 1", "unused(10) != 1"}},
	// The compiler emits the same code for x*2 and x+x; the extra lines move the line table.
	"refactor": {{"p.go", "func double(x int) int { return x * 2 }", "func double(x int) int {\n\ty := x\n\treturn y + y\n}"}},
	"table":    {{"p.go", "0x66, 0x77", "0x66, 0x78"}},
	"closure":  {{"p_external_test.go", "p.A(i) + 1", "p.A(i) + 2"}},
	"iface":    {{"p.go", "return s.n * s.n", "return s.n * (s.n + 1)"}},
	"asm":      {{"p_amd64.s", "ADDQ BX, AX", "SUBQ BX, AX"}},
	"method":   {{"p.go", "return x + a.k", "return x - a.k"}},
	// The same length: only the bytes of the string data change, nothing moves.
	"string": {{"p.go", `"the shapes of B"`, `"the shapes of C"`}},
}

// fixtureFiles returns the files of the named variant.
func fixtureFiles(t *testing.T, name string) map[string]string {
	files := map[string]string{
		"go.mod":               "module example.com/fx\n\ngo 1.24\n",
		"p/p.go":               fixtureP,
		"p/p_amd64.s":          fixtureAsm,
		"p/p_amd64.go":         "package p\n\n// asmMix is written in assembly.\nfunc asmMix(a, b int) int\n",
		"p/p_other.go":         "//go:build !amd64\n\npackage p\n\nfunc asmMix(a, b int) int { return a + b }\n",
		"p/p_internal_test.go": fixtureInternalTest,
		"p/p_external_test.go": fixtureExternalTest,
	}
	vs, ok := variants[name]
	if !ok {
		t.Fatalf("no fixture variant %q", name)
	}
	for _, v := range vs {
		path := "p/" + v.file
		if !strings.Contains(files[path], v.old) {
			t.Fatalf("variant %s: %q not in %s", name, v.old, path)
		}
		files[path] = strings.Replace(files[path], v.old, v.new, 1)
	}
	return files
}

var (
	buildMu    sync.Mutex
	builtTests = map[string]string{}
	buildDir   string
)

// fixtureTest builds (once per test process) the test binary of the named variant with
// go test -c -trimpath and returns its path.
func fixtureTest(t *testing.T, name string) string {
	t.Helper()
	return fixtureTestArch(t, name, "amd64")
}

// fixtureTestArch is fixtureTest for another GOARCH.
func fixtureTestArch(t *testing.T, name, goarch string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds test binaries; skipped under -short")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	key := name + "-" + goarch
	if path, ok := builtTests[key]; ok {
		return path
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	src := t.TempDir()
	for rel, content := range fixtureFiles(t, name) {
		path := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(buildDir, key+".test")
	cmd := proc.Command(context.Background(), src,
		[]string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GOARCH=" + goarch, "GOOS=linux"},
		goTool, "test", "-c", "-trimpath", "-o", out, "./p")
	if _, _, err := proc.Run(cmd); err != nil {
		t.Fatalf("building fixture %s: %v", name, err)
	}
	builtTests[key] = out
	return out
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "samecode-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
