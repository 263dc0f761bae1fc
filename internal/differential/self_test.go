package differential

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// moduleRoot returns the root of the module the test runs in (the directory holding go.mod).
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// selfConfig compares the repository's own cipher/des against itself, or skips when it is not
// there.
func selfConfig(t testing.TB) Config {
	root := moduleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "cipher", "des", "cipher.go")); err != nil {
		t.Skip("cipher/des is not in this tree")
	}
	return Config{Sides: subject.Sides{BaseDir: root, HeadDir: root, Pkg: "./cipher/des"}}
}

// TestOwnDES checks the project's DES package against itself: five constructors, their documented
// key sizes, and identical outputs.
func TestOwnDES(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the repository's cipher/des")
	}
	cfg := selfConfig(t)
	cfg.Log = testLog{t}
	rep, err := Check(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
	}
	// Key sizes from the package's API (cipher/des/cipher.go): DES 8 bytes, two-key variants 16,
	// three-key variants 24.
	want := map[string][]int{
		"NewCipher": {8}, "NewTripleEDE2": {16}, "NewTripleEDE3": {24}, "NewTripleEEE2": {16}, "NewTripleEEE3": {24},
	}
	// The digests of the outputs at the defaults, pinned: a change to the vectors or to the block
	// family's harness output shows here (as does a change to cipher/des's outputs, which its own
	// known answers would catch first).
	digests := map[string]string{
		"NewCipher":     "9bc6c38c8a48919322f1ef9a7291fb77d4fae5d9ce1dbec07ec353bd17d2e9a8",
		"NewTripleEDE2": "f23e3d349095f5bf5f2fafc9b8baddf1a47d03fc6f2f3836b075d2e17836397c",
		"NewTripleEDE3": "5e6ce164032a33355503f91cd1e3d86708099817117dcc10812fbe112470b650",
		"NewTripleEEE2": "ec86a4d88dc535ad8723228670d4571d5edcf193a692b54babce1e122e69fb26",
		"NewTripleEEE3": "c3cdec830b6daf29ed3d39de2c971c5429d14050fd82830b1aec416574c1147c",
	}
	got := map[string][]int{}
	for _, c := range rep.Ciphers {
		got[c.Name] = c.KeySizes
		if c.DigestBase != digests[c.Name] {
			t.Errorf("%s: digest %s, want %s", c.Name, c.DigestBase, digests[c.Name])
		}
		if !cmp.Equal(c.Methods, []string{"Encrypt", "Decrypt", "DecryptBlocks", "EncryptBlocks"}) {
			t.Errorf("%s: methods %v", c.Name, c.Methods)
		}
		if c.InconsistentBase != 0 {
			t.Errorf("%s: batch disagrees with single-block output on %d blocks", c.Name, c.InconsistentBase)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors and key sizes (-want +got):\n%s", diff)
	}
	t.Logf("build %v, check %v (probe, generate, run both harnesses, compare)", rep.BuildTime, rep.CheckTime)
}

// BenchmarkOwnDES measures Check on the repository's cipher/des against itself. The builds come
// from the cache after the first iteration; the check-ns/op metric is the check proper
// (Report.CheckTime), without the builds.
func BenchmarkOwnDES(b *testing.B) {
	cfg := selfConfig(b)
	var check, build float64
	for b.Loop() {
		rep, err := Check(b.Context(), cfg)
		if err != nil || rep.Status != record.DiffIdentical {
			b.Fatalf("Check: %v %+v", err, rep)
		}
		check += float64(rep.CheckTime.Nanoseconds())
		build += float64(rep.BuildTime.Nanoseconds())
	}
	b.ReportMetric(check/float64(b.N), "check-ns/op")
	b.ReportMetric(build/float64(b.N), "build-ns/op")
}
