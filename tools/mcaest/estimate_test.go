package mcaest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The fixture's two versions of one loop: base reduces by a constant modulus, which the compiler
// turns into a multiply by its reciprocal, a shift and a multiply-subtract; head reads the modulus
// from a variable, so the compiler must emit a DIV. Head runs fewer instructions, each iteration
// waiting on the DIV's latency, which on AMD's Zen 3 grows with the quotient's bits: the 64-bit
// inputs make it large. (Measured natively on the development machine, an AMD EPYC of Zen 3, at
// load 3.4 on 2 CPUs: base 2092–2214 ns/op, head 2485–2548, five runs each, interleaved; with
// 32-bit inputs the two were within their noise.)
const (
	fixtureBase = `package fix

const modulus = 1000003

func Sum(xs []uint64) uint64 {
	var s uint64
	for _, x := range xs {
		s = (s + x) % modulus
	}
	return s
}
`
	fixtureHead = `package fix

var modulus uint64 = 1000003

func Sum(xs []uint64) uint64 {
	m := modulus
	var s uint64
	for _, x := range xs {
		s = (s + x) % m
	}
	return s
}
`
	fixtureTest = `package fix

import "testing"

var sink uint64

func BenchmarkSum(b *testing.B) {
	xs := make([]uint64, 256)
	for i := range xs {
		xs[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	for b.Loop() {
		sink = Sum(xs)
	}
}
`
)

// buildFixture writes the fixture module with code as its fix.go into dir and builds its test
// binary.
func buildFixture(t *testing.T, dir, code string) string {
	t.Helper()
	files := map[string]string{"go.mod": "module example.com/fix\n\ngo 1.24\n", "fix.go": code,
		"fix_test.go": fixtureTest}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "fix.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fixture: %v\n%s", err, out)
	}
	return bin
}

// TestInversion is the case the estimate exists for: head executes fewer instructions per op and
// takes more cycles, which the estimate must see.
func TestInversion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs callgrind and llvm-mca")
	}
	for _, p := range []string{"valgrind", "go"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	if _, err := findMCA(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	var res [2]*Result
	for i, code := range []string{fixtureBase, fixtureHead} {
		bin := buildFixture(t, filepath.Join(dir, []string{"base", "head"}[i]), code)
		r, err := Estimate(context.Background(), Config{Binary: bin, Bench: "Sum", N: 200, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res[i] = r
		t.Logf("%s: %.1f instructions/op, %.1f est-mca cycles/op, %d blocks analyzed, %.2f unmodelled",
			[]string{"base", "head"}[i], r.Instructions, r.Cycles, len(r.Hot), r.Rejected)
	}
	base, head := res[0], res[1]
	if head.Instructions >= base.Instructions {
		t.Errorf("instructions/op: base %.1f, head %.1f; the fixture should have head run fewer", base.Instructions,
			head.Instructions)
	}
	// The loop runs 256 times an op; its DIV alone takes more cycles than base's whole iteration on
	// every model llvm-mca has of a recent x86 core, so head must cost at least a quarter more.
	if head.Cycles < 1.25*base.Cycles {
		t.Errorf("est-mca cycles/op: base %.1f, head %.1f; want head ≥ 1.25 × base", base.Cycles, head.Cycles)
	}
	// The loop itself is counted: 256 iterations of at least 4 instructions.
	if base.Instructions < 1024 || head.Instructions < 1024 {
		t.Errorf("instructions/op %.1f and %.1f: the loop of 256 iterations is not all counted",
			base.Instructions, head.Instructions)
	}
}
