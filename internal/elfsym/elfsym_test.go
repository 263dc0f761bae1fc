package elfsym

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// prog is a tiny program whose function Sum starts on line 6 of main.go; //go:noinline keeps it a
// symbol of its own, and table is a data symbol of 64 bytes (8 uint64s).
const prog = `package main

var table = [8]uint64{1, 2, 3, 4, 5, 6, 7, 8}

//go:noinline
func Sum(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s += table[i%8]
	}
	return s
}

func main() { println(Sum(len(table))) }
`

// build writes prog into a module in a temporary directory and builds it with -trimpath, with
// extra go build flags.
func build(t *testing.T, flags ...string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs an ELF toolchain target")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/tiny\n\ngo 1.21\n", "main.go": prog} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "tiny")
	cmd := exec.Command("go", append(append([]string{"build", "-trimpath", "-o", out}, flags...), ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

func TestSymbolsAndLines(t *testing.T) {
	f, err := Open(build(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, ok := f.Func("main.Sum")
	if !ok {
		t.Fatal("Func(main.Sum): not found")
	}
	if sum.Hi <= sum.Lo {
		t.Errorf("main.Sum spans [%#x, %#x): empty", sum.Lo, sum.Hi)
	}
	// By address: every byte of Sum is Sum's, and the byte after it is not.
	for _, a := range []uint64{sum.Lo, sum.Hi - 1} {
		if s := f.Funcs.Find(a); s == nil || s.Name != "main.Sum" {
			t.Errorf("Funcs.Find(%#x) = %v, want main.Sum", a, s)
		}
	}
	if s := f.Funcs.Find(sum.Hi); s != nil && s.Name == "main.Sum" {
		t.Errorf("Funcs.Find(%#x), past the end, = main.Sum", sum.Hi)
	}
	// [8]uint64 is 64 bytes.
	tab := -1
	for _, s := range f.Data {
		if s.Name == "main.table" {
			tab = int(s.Hi - s.Lo)
		}
	}
	if tab != 64 {
		t.Errorf("main.table is %d bytes, want 64", tab)
	}
	if f.Static().Find(sum.Lo) != nil {
		t.Errorf("Static holds main.Sum's code")
	}
	code, err := f.Code()
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, c := range code {
		in = in || c.Addr <= sum.Lo && sum.Hi <= c.Addr+uint64(len(c.Bytes))
	}
	if !in {
		t.Error("no executable section holds main.Sum")
	}
	dbg, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	// Every byte of Sum is of main.go, lines 6 to 12, and the loop's body (line 9) is among them.
	lines := map[int]bool{}
	for a := sum.Lo; a < sum.Hi; a++ {
		file, line := dbg.Line(a)
		if file != "example.com/tiny/main.go" || line < 6 || line > 12 {
			t.Fatalf("Line(%#x) in main.Sum = %s:%d, want example.com/tiny/main.go:6-12", a, file, line)
		}
		lines[line] = true
	}
	if !lines[9] {
		t.Errorf("main.Sum's lines %v lack 9, the loop's body", lines)
	}
	if file, line := dbg.Line(0); file != "" || line != 0 {
		t.Errorf("Line(0) = %s:%d, want nothing", file, line)
	}
}

func TestStripped(t *testing.T) {
	if _, err := Open(build(t, "-ldflags=-s")); err == nil || !strings.Contains(err.Error(), "symbols") {
		t.Errorf("Open of a binary without symbols: %v, want an error about its symbols", err)
	}
	f, err := Open(build(t, "-ldflags=-w"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.DWARF(); err == nil {
		t.Error("DWARF of a binary linked with -w: no error")
	}
}

func TestFindInnermost(t *testing.T) {
	s := Spans{{10, 20, "inner"}, {0, 100, "outer"}, {10, 30, "middle"}, {200, 210, "far"}}
	s.Sort()
	for _, c := range []struct {
		a    uint64
		want string
	}{{5, "outer"}, {10, "inner"}, {25, "middle"}, {99, "outer"}, {100, ""}, {205, "far"}, {210, ""}} {
		got := ""
		if sp := s.Find(c.a); sp != nil {
			got = sp.Name
		}
		if got != c.want {
			t.Errorf("Find(%d) = %q, want %q", c.a, got, c.want)
		}
	}
}
