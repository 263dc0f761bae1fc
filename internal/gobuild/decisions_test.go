package gobuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecisions compiles a small module's test variant with the optimization report: the package's
// own decisions (its test file's included) are there, the standard library's are not.
func TestDecisions(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a package")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/dec\n\ngo 1.22\n")
	write("dec.go", "package dec\n\nfunc small(x int) int { return x + 1 }\n\nfunc Big(x int) int { return small(x) * 2 }\n")
	write("dec_test.go", "package dec\n\nimport \"testing\"\n\nfunc BenchmarkBig(b *testing.B) {\n\tfor b.Loop() {\n\t\tBig(3)\n\t}\n}\n")
	out, err := Decisions(context.Background(), Config{Dir: dir, Pkg: "."},
		"example.com/dec")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"example.com/dec/dec.go:3:6: can inline small with cost", "inlining call to small",
		"dec_test.go:"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "testing/benchmark.go") || strings.Contains(s, "src/testing/") || strings.Contains(s, "# ") {
		t.Errorf("output has more than the test variant's report:\n%.2000s", s)
	}
	if n := strings.Count(s, "can inline small with cost"); n != 1 {
		t.Errorf("small is reported inlinable %d times, want once (the test variant only)", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "dec.test")); err == nil {
		t.Error("Decisions wrote a test binary")
	}
}
