package differential

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// selfConfig compares the repository's own cipher/des against itself, or skips when it is not there.
func selfConfig(t testing.TB) Config {
	root := moduleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "cipher", "des", "cipher.go")); err != nil {
		t.Skip("cipher/des is not in this tree")
	}
	return Config{BaseDir: root, HeadDir: root, Pkg: "./cipher/des"}
}

// TestOwnDES checks the project's DES package against itself: five constructors, their documented key sizes,
// and identical outputs.
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
	// Key sizes from the package's API (cipher/des/cipher.go): DES 8 bytes, two-key variants 16, three-key variants 24.
	want := map[string][]int{
		"NewCipher": {8}, "NewTripleEDE2": {16}, "NewTripleEDE3": {24}, "NewTripleEEE2": {16}, "NewTripleEEE3": {24},
	}
	// The digests of the outputs at the defaults, pinned: a change to the vectors or to the block family's harness
	// output shows here (as does a change to cipher/des's outputs, which its own known answers would catch first).
	digests := map[string]string{
		"NewCipher":     "5b695364a104e8d8a3a8a7315803b58b639bf63195891994d68c54e020763dcf",
		"NewTripleEDE2": "cd51afd07b21026133ab5ea73b3fb0eddee27f917f98ff7e6009690bde29d2c7",
		"NewTripleEDE3": "9865e6f49cbe5d8a0c8a40469008a17c0f8f6719c067c6f36b3976c11c498ffa",
		"NewTripleEEE2": "ef0889f18f2c559afdf7b3a8176d0eff50c02343554fe57ed8e537601ad5d65b",
		"NewTripleEEE3": "c94bce2510f6abe8a9e73d850cb646e0e2f873921109b7271f4e49abd1ff79de",
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

// BenchmarkOwnDES measures Check on the repository's cipher/des against itself. The builds come from the cache
// after the first iteration; the check-ns/op metric is the check proper (Report.CheckTime), without the builds.
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
