package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// toyCipher is a block cipher package whose head breaks Decrypt for one key byte: the package's own
// test, which round-trips one key, passes on both sides, and the differential check finds the
// mismatch.
func toyCipher(decryptBug string) map[string]string {
	return map[string]string{
		"go.mod": testmod.GoMod("example.com/toy", "1.21"),
		"toy/toy.go": `package toy

import (
	"crypto/cipher"
	"errors"
)

// Cipher is a toy 8-byte block cipher.
type Cipher struct{ k [8]byte }

// NewCipher takes an 8-byte key.
func NewCipher(key []byte) (cipher.Block, error) {
	if len(key) != 8 {
		return nil, errors.New("toy: key of 8 bytes")
	}
	c := &Cipher{}
	copy(c.k[:], key)
	return c, nil
}

func (c *Cipher) BlockSize() int { return 8 }

func (c *Cipher) Encrypt(dst, src []byte) {
	for i := 0; i < 8; i++ {
		dst[i] = (src[i] ^ c.k[i]) + byte(i)
	}
}

func (c *Cipher) Decrypt(dst, src []byte) {
	for i := 0; i < 8; i++ {
		dst[i] = (src[i] - byte(i)) ^ c.k[i]` + decryptBug + `
	}
}
`,
		"toy/toy_test.go": `package toy

import "testing"

func TestRoundTrip(t *testing.T) {
	c, _ := NewCipher([]byte("01234567"))
	var b [8]byte
	c.Encrypt(b[:], []byte("plaintxt"))
	c.Decrypt(b[:], b[:])
	if string(b[:]) != "plaintxt" {
		t.Fatalf("round trip: %q", b)
	}
}

func BenchmarkEncrypt(b *testing.B) {
	c, _ := NewCipher([]byte("01234567"))
	var x [8]byte
	for i := 0; i < b.N; i++ {
		c.Encrypt(x[:], x[:])
	}
}
`,
	}
}

// TestMismatchBesideFailingLane: head breaks Decrypt for keys whose first byte is 0xff, and the
// instruction-count lane cannot count (a valgrind that answers its version and fails every run).
// What was found, the mismatch, fails the gate (exit 1) and the lane's failure is kept beside it;
// it is never reported as perfgate's error (exit 3). It needs no real valgrind.
func TestMismatchBesideFailingLane(t *testing.T) {
	dir := t.TempDir()
	gittest.Init(t, dir)
	when := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	base := commitAll(t, dir, toyCipher(""), when)
	head := commitAll(t, dir, toyCipher("\n\t\tif c.k[0] == 0xff && i == 7 {\n\t\t\tdst[i] ^= 1\n\t\t}"),
		when.Add(time.Hour))

	bin := t.TempDir()
	fake := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo valgrind-3.19.0; exit 0; fi\n" +
		"echo 'valgrind: this stand-in fails every run' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "valgrind"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	cfg := fastConfig(t, dir, "./toy", base, head)
	cfg.Differential = true
	cfg.Metric = record.MetricInstructions
	res, err := runE2E(t, cfg)
	if res == nil {
		t.Fatalf("no result (error %v)", err)
	}
	if res.Differential.Status != record.DiffMismatch {
		t.Fatalf("differential %q, want a mismatch", res.Differential.Status)
	}
	if res.Verdict.Status != record.StatusFail || res.Verdict.ExitCode != record.ExitFail {
		t.Fatalf("verdict %s exit %d (reasons %q), want fail, exit 1: the mismatch stands above the lane's failure",
			res.Verdict.Status, res.Verdict.ExitCode, res.Verdict.Reasons)
	}
	mismatch := false
	for _, reason := range res.Verdict.Reasons {
		mismatch = mismatch || strings.Contains(reason, "outputs differ")
	}
	if !mismatch {
		t.Errorf("reasons %q: want the mismatch", res.Verdict.Reasons)
	}
	// The lane's failure is kept as evidence beside the verdict: the tool's, not the code's
	// (Encrypt runs cleanly natively), so no failure of a side, the lane off with one note, and
	// Encrypt not counted.
	if len(res.Failures) > 0 {
		t.Errorf("failures %+v: want none, valgrind failing is not the code failing", res.Failures)
	}
	off, uncounted := false, false
	for _, n := range res.Notes {
		off = off || strings.Contains(n, "the instruction-count lane is off")
	}
	for _, b := range res.Benchmarks {
		uncounted = uncounted || (b.Name == "Encrypt" && b.Uncounted == record.UncountedTool)
	}
	if !off || !uncounted {
		t.Errorf("notes %q, benchmarks %+v: want the lane off and Encrypt not counted for the tool's failure",
			res.Notes, res.Benchmarks)
	}
}
