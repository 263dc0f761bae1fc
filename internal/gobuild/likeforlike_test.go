package gobuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

const lflBase = `package fix

import "testing"

// size is the input of the benchmarks.
const size = 64

var sink int

type runner struct{ n int }

func (r runner) run() { sink += Sum(r.n) }

func BenchmarkSum(b *testing.B) {
	for b.Loop() {
		sink += Sum(size)
	}
}

func BenchmarkMethod(b *testing.B) {
	r := runner{8}
	for b.Loop() {
		r.run()
	}
}

func BenchmarkFixed(b *testing.B) {
	for b.Loop() {
		sink += Sum(3)
	}
}
`

func TestChangedBenchmarks(t *testing.T) {
	base := map[string][]byte{"a_test.go": []byte(lflBase)}
	edit := func(old, new string) map[string][]byte {
		t.Helper()
		s := lflBase
		i := strings.Index(s, old)
		if i < 0 {
			t.Fatalf("%q not in the fixture", old)
		}
		return map[string][]byte{"a_test.go": []byte(s[:i] + new + s[i+len(old):])}
	}
	for _, tt := range []struct {
		name string
		head map[string][]byte
		want []string
	}{
		{"identical", base, nil},
		{"comments and layout only", edit("// size is the input of the benchmarks.\nconst size = 64", "// size: input.\nconst size   =   64 // bytes"), nil},
		{"input size", edit("const size = 64", "const size = 128"), []string{"Sum"}},
		{"a method a benchmark reaches", edit("sink += Sum(r.n)", "sink += Sum(r.n + 1)"), []string{"Method"}},
		{"one benchmark's body", edit("sink += Sum(3)", "sink += Sum(4)"), []string{"Fixed"}},
		{"a new benchmark", map[string][]byte{"a_test.go": []byte(lflBase), "b_test.go": []byte("package fix\n\nimport \"testing\"\n\nfunc BenchmarkNew(b *testing.B) {}\n")}, []string{"New"}},
		{"a file that does not parse", edit("func BenchmarkFixed", "func BenchmarkFixed("), []string{"Fixed", "Method", "Sum"}},
	} {
		if got := ChangedBenchmarks(base, tt.head); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: ChangedBenchmarks = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTestOverlay builds base's package with head's test files: base's file that head deleted is
// gone, head's new file is in, and a head test file calling what base lacks does not compile.
func TestTestOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	base := testmod.Write(t, filepath.Join(dir, "base"), map[string]string{
		"go.mod":      testmod.GoMod("example.com/fix", "1.26"),
		"fix.go":      "package fix\n\nfunc Sum(n int) int { return n }\n",
		"a_test.go":   lflBase,
		"old_test.go": "package fix\n\nfunc init() { panic(\"base's old test file must not be built\") }\n",
	})
	head := testmod.Write(t, filepath.Join(dir, "head"), map[string]string{
		"go.mod":      testmod.GoMod("example.com/fix", "1.26"),
		"fix.go":      "package fix\n\nfunc Sum(n int) int { return n }\n\nfunc Twice(n int) int { return 2 * n }\n",
		"a_test.go":   lflBase,
		"new_test.go": "package fix\n\nimport \"testing\"\n\nfunc BenchmarkNew(b *testing.B) {}\n",
	})
	overlay := filepath.Join(dir, "overlay.json")
	if err := TestOverlay(overlay, base, head); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "base-bench.test")
	if _, err := Build(context.Background(), record.Base, Config{Dir: base, Pkg: ".", Out: bin, Overlay: overlay}); err != nil {
		t.Fatalf("building base with head's tests: %v", err)
	}
	names, err := benchmarks(bin, head)
	if err != nil {
		t.Fatalf("listing (base's old test file was built?): %v", err)
	}
	if want := []string{"Sum", "Method", "Fixed", "New"}; !cmp.Equal(names, want) {
		t.Errorf("benchmarks of base with head's tests: %q, want %q", names, want)
	}

	// Head's tests now call Twice, which base lacks.
	if err := os.WriteFile(filepath.Join(head, "new_test.go"), []byte("package fix\n\nimport \"testing\"\n\nfunc BenchmarkNew(b *testing.B) { sink += Twice(1) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := TestOverlay(overlay, base, head); err != nil {
		t.Fatal(err)
	}
	log, err := Build(context.Background(), record.Base, Config{Dir: base, Pkg: ".", Out: bin, Overlay: overlay})
	if err == nil {
		t.Fatalf("base built with a test file that calls Twice, which base lacks:\n%s", log)
	}
	if !strings.Contains(string(log), "Twice") {
		t.Errorf("build log does not name Twice:\n%s", log)
	}
}

func TestBenchmarkFuncs(t *testing.T) {
	got := BenchmarkFuncs(map[string][]byte{"a_test.go": []byte(lflBase)})
	if want := []string{"Fixed", "Method", "Sum"}; !cmp.Equal(got, want) {
		t.Errorf("BenchmarkFuncs = %q, want %q", got, want)
	}
}

// benchmarks lists the top-level benchmarks of the test binary bin, run in dir, without their
// "Benchmark" prefix.
func benchmarks(bin, dir string) ([]string, error) {
	cmd := exec.Command(bin, "-test.list=^Benchmark")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if n, ok := strings.CutPrefix(l, "Benchmark"); ok {
			names = append(names, n)
		}
	}
	return names, nil
}
