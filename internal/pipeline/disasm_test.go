package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/internal/valgrind"
)

// TestDisassembleAsObjdump: the in-process decoding finds the same features in a Go binary as go
// tool objdump's output does (a Go binary has RDTSCP, in runtime.cputicks; its AVX-512 and, from
// crypto/sha256, SHA instructions are ones objdump does not decode).
func TestDisassembleAsObjdump(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("decodes amd64 ELF binaries")
	}
	if testing.Short() {
		t.Skip("builds a binary and go tool objdump")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"crypto/sha256\"\n\nfunc main() { println(sha256.Sum256(nil)[0]) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.21\n"), 0o644)
	bin := filepath.Join(dir, "m")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ours, err := decodeText(bin)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := exec.Command("go", "tool", "objdump", bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	features := []string{"x86.adx", "x86.cpuid.sha", "x86.cpuid.vaes", "x86.cpuid.vpclmulqdq", "x86.cpuid.gfni",
		"x86.avx512f", "x86.cpuid.rdtscp"}
	got, want := valgrind.UsesFeatures(ours, features), valgrind.UsesFeatures(theirs, features)
	if !slices.Equal(got, want) || !slices.Contains(got, "x86.cpuid.rdtscp") {
		t.Errorf("features used: decoded here %q, by go tool objdump %q; want equal, with x86.cpuid.rdtscp", got, want)
	}
}
