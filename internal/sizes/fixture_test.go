package sizes

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testmod"
)

// The fixture module, written into t.TempDir() for each side. The gated package is
// example.com/fixture/tbl; tbl/internal/sub is its subpackage; example.com/fixture/tblx is a
// sibling whose path starts with the gated path's text and must not be attributed to it.
const fixtureModule = "example.com/fixture"

const (
	gatedPkg   = fixtureModule + "/tbl"
	subPkg     = gatedPkg + "/internal/sub"
	siblingPkg = fixtureModule + "/tblx"
)

// fixtureFiles returns the module's files for one side. head adds the 2 KiB initialised table
// big (512 × uint32 = 2048 bytes, used by Lookup so that the linker keeps it) and removes the
// function Removed.
func fixtureFiles(head bool) map[string]string {
	lookup := "small[i&7] ^ uint32(sub.Tab[i&15])"
	removed := "\n//go:noinline\nfunc Removed(x int) int { return x*x*x + 7*x + 3 }\n"
	useRemoved := " || Removed(2) == 0"
	big := ""
	if head {
		lookup += " ^ big[i&511]"
		removed, useRemoved = "", ""
		var vals []string
		for i := range 512 {
			vals = append(vals, fmt.Sprintf("%#x", uint32(i)*2654435761+1))
		}
		big = "\n// big is the 2 KiB table head adds.\nvar big = [512]uint32{" + strings.Join(vals, ", ") + "}\n"
	}
	return map[string]string{
		"go.mod": testmod.GoMod(fixtureModule, "1.26"),
		"tbl/tbl.go": `// Package tbl is the gated fixture package.
package tbl

import (
	"example.com/fixture/tbl/internal/sub"
	"example.com/fixture/tblx"
)

// small is an initialised table without pointers: .noptrdata.
var small = [8]uint32{0x9e3779b9, 0x7f4a7c15, 0xf39cc060, 0x5ced1fb3, 0x1b873593, 0xcc9e2d51, 0x85ebca6b, 0xc2b2ae35}

// scratch is filled at run time: .noptrbss.
var scratch [256]byte

// names holds pointers: .data.
var names = []string{"alpha", "beta"}

// last is a zeroed pointer: .bss.
var last *Pair

// Pair is a type another package instantiates a generic function with.
type Pair struct {
	K string
	V int
}
` + big + `
//go:noinline
func Lookup(i int) uint32 { return ` + lookup + ` }
` + removed + `
//go:noinline
func Fill(seed byte) byte {
	for i := range scratch {
		scratch[i] = seed + byte(i)
	}
	return scratch[seed]
}

//go:noinline
func Count(ps []Pair) int { last = &ps[0]; return tblx.Count(ps) + len(names) }
`,
		"tbl/internal/sub/sub.go": `package sub

// Tab is 16 × uint16 = 32 bytes of .noptrdata.
var Tab = [16]uint16{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
`,
		"tblx/tblx.go": `package tblx

var tblxTable = [64]uint32{1: 7, 63: 9}

//go:noinline
func Count[T any](xs []T) int { return len(xs) + int(tblxTable[len(xs)&63]) }
`,
		"tbl/tbl_test.go": `package tbl

import "testing"

func TestAll(t *testing.T) {
	if Lookup(3) == 0 || Fill(1) == 0 || Count([]Pair{{"a", 1}}) == 0` + useRemoved + ` {
		t.Fatal("fixture broken")
	}
}
`,
		"tbl/x_test.go": `package tbl_test

import (
	"testing"

	"example.com/fixture/tbl"
)

func TestExternal(t *testing.T) {
	if tbl.Lookup(5) == 0 {
		t.Fatal("fixture broken")
	}
}
`,
		"cmd/fx/main.go": `package main

import "example.com/fixture/tbl"

func main() { println(tbl.Lookup(1), tbl.Fill(2), tbl.Count([]tbl.Pair{{"x", 1}})) }
`,
	}
}

// writeFixture writes one side's module into a new temporary directory.
func writeFixture(t *testing.T, head bool) string {
	t.Helper()
	return testmod.Temp(t, fixtureFiles(head))
}

// goBuild runs the go command in dir with the default (shared) GOCACHE, writing the binary to out:
// "go test -c … -o out ./tbl" or "go build … -o out ./cmd/fx". env adds to the environment
// (e.g. GOOS=darwin).
func goBuild(t *testing.T, dir, out string, env []string, args ...string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	args = append(args[:len(args):len(args)], "-o", out)
	pkg := "./tbl"
	if args[0] == "build" {
		pkg = "./cmd/fx"
	}
	cmd := exec.Command(goTool, append(args, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v in %s: %v\n%s", cmd.Args, dir, err, stderr.Bytes())
	}
}

// fixtureCache maps a fixtureBinary key to the binary already built.
var fixtureCache = map[string]string{}

// fixtureBinary builds (once per process) the fixture's test binary for a side, with extra
// ldflags when given. The binaries live in a directory removed at the end of TestMain.
func fixtureBinary(t *testing.T, head bool, ldflags string) string {
	t.Helper()
	key := fmt.Sprint(head, ldflags)
	if path, ok := fixtureCache[key]; ok {
		return path
	}
	args := []string{"test", "-c", "-trimpath"}
	if ldflags != "" {
		args = append(args, "-ldflags="+ldflags)
	}
	out := filepath.Join(sharedDir, fmt.Sprintf("fixture-%d.test", len(fixtureCache)))
	goBuild(t, writeFixture(t, head), out, nil, args...)
	fixtureCache[key] = out
	return out
}

// sharedDir holds binaries shared between tests; TestMain creates and removes it.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sizes-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
