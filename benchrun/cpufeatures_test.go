package benchrun

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/valgrind"
)

func TestUsesFeatures(t *testing.T) {
	// Lines as go tool objdump prints them.
	dis := []byte(`  sha256block_amd64.s:1234	0x4a1b20	0f38cbca	SHA256RNDS2 X0, X1, X2
  arith_amd64.s:77	0x4b0000	660f38f6c1	ADCXQ AX, CX
  gcm.s:10	0x4c0000	c4e27ddcc1	VAESENC X1, X0, X0
`)
	hidden := []string{"x86.adx", "x86.cpuid.sha", "x86.cpuid.vaes", "x86.avx512bw", "x86.somethingnew"}
	// VAESENC on X registers is AES-NI under VEX, not VAES: only the Y and Z forms need VAES.
	want := []string{"x86.adx", "x86.cpuid.sha", "x86.somethingnew"}
	if diff := cmp.Diff(want, UsesFeatures(dis, hidden)); diff != "" {
		t.Errorf("UsesFeatures (-want +got):\n%s", diff)
	}
	if got := UsesFeatures([]byte("  x.go:1	0x1	c3	RET\n"), []string{"x86.adx", "x86.avx512f"}); got != nil {
		t.Errorf("a binary without the instructions uses %v", got)
	}
	if got := UsesFeatures([]byte("  z.s:1	0x1	62	VPADDD Z1, Z2, Z3\n"), []string{"x86.avx512f"}); len(got) != 1 {
		t.Errorf("AVX-512 code not recognised: %v", got)
	}
}

// TestHiddenFeatures runs the probe natively and under valgrind: on a host whose kernel reports SHA (sha_ni in
// /proc/cpuinfo), valgrind 3.19 hides it, and the probe must say so.
func TestHiddenFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the probe and runs valgrind")
	}
	vg, err := valgrind.Find(context.Background(), "", "the test needs it")
	if err != nil {
		t.Skip("no valgrind")
	}
	hidden, err := HiddenFeatures(context.Background(), vg.Path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s hides %v", vg.Version, hidden)
	if !slices.IsSorted(hidden) {
		t.Errorf("not sorted: %v", hidden)
	}
	info, _ := os.ReadFile("/proc/cpuinfo")
	if strings.Contains(string(info), " sha_ni") && strings.HasPrefix(vg.Version, "valgrind-3.19") &&
		!slices.Contains(hidden, "x86.cpuid.sha") {
		t.Errorf("this CPU has SHA and %s hides it, but the probe found %v", vg.Version, hidden)
	}
}

func TestProbeSysVersion(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "golang.org/x/sys " + probeSysVersion + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %q: update probeSysVersion", strings.TrimSpace(want))
	}
}
