package samecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeNotELF: files that are not ELF are same only when byte-identical.
func TestAnalyzeNotELF(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b, c := write("a", "MZ not elf"), write("b", "MZ not elf"), write("c", "MZ not elf!")
	rep, err := Analyze(a, b, []string{"BenchmarkX", "Y/sub"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Identical || !rep.Benchmarks["X"].Same || !rep.Benchmarks["Y"].Same {
		t.Errorf("identical files: %+v", rep)
	}
	rep, err = Analyze(a, c, []string{"X"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Identical || rep.Benchmarks["X"].Same || !strings.Contains(rep.Fallback, "not an ELF file") {
		t.Errorf("different files: %+v", rep)
	}
	if _, err := Analyze(a, filepath.Join(dir, "missing"), nil); err == nil || !strings.Contains(err.Error(), "head") {
		t.Errorf("missing head: err = %v", err)
	}
}

// TestAnalyzeOtherArch: an arm64 pair that differs is changed, with the reason.
func TestAnalyzeOtherArch(t *testing.T) {
	base := fixtureTestArch(t, "base", "arm64")
	head := fixtureTestArch(t, "doc", "arm64")
	rep, err := Analyze(base, head, []string{"A", "B"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Identical || !strings.Contains(rep.Fallback, "amd64 only") {
		t.Fatalf("Identical %v, Fallback %q", rep.Identical, rep.Fallback)
	}
	for n, v := range rep.Benchmarks {
		if v.Same || v.Reason == "" {
			t.Errorf("%s: %+v, want changed with a reason", n, v)
		}
	}
}

func TestTopLevel(t *testing.T) {
	got := strings.Join(topLevel([]string{"BenchmarkEncrypt/des/single", "Encrypt/des/batch", "KeySetup", "Benchmark"}), ",")
	if want := ",Encrypt,KeySetup"; got != want {
		t.Errorf("topLevel = %q, want %q", got, want)
	}
}
