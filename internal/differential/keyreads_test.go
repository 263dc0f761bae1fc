package differential

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/record"
)

// prefixFixture has a MAC that, as siphash, reads only the first 16 bytes of a longer key, and
// panics on shorter ones; and one that reads its whole key.
const prefixFixture = `package keys

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
)

// NewPrefix reads key[:16] of a key of 16 to 64 bytes and panics on a shorter one.
func NewPrefix(key []byte) hash.Hash {
	if len(key) < 16 {
		panic("keys: short key")
	}
	return hmac.New(sha256.New, key[:16])
}

// NewWhole reads every byte of its key, of 1 to 32 bytes.
func NewWhole(key []byte) hash.Hash {
	if len(key) == 0 || len(key) > 32 {
		panic("keys: bad key")
	}
	return hmac.New(sha256.New, key)
}
`

// TestKeyPrefix checks that a constructor reading only a prefix of a longer key is compared at the
// sizes that matter, that this is said once, and that the panics on both sides are one note.
func TestKeyPrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two harnesses")
	}
	mod := writeModule(t, map[string]string{"go.mod": "module example.com/keys\n\ngo 1.16\n",
		"internal/keys/keys.go": prefixFixture})
	rep := runCheck(t, mod, mod, func(c *Config) { c.Pkg, c.MessageKeys = "./internal/keys", 16 })
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s)", rep.Status, rep.Reason)
	}
	p, w := cipherByName(t, rep, "NewPrefix"), cipherByName(t, rep, "NewWhole")
	if !cmp.Equal(p.KeySizes, []int{16, 64}) {
		t.Errorf("NewPrefix: key sizes %v, want 16 and 64", p.KeySizes)
	}
	wantNotes := []string{
		"16 key sizes (0–15 bytes) panic on both sides, the 0-byte key with: keys: short key",
		"reads 16 bytes of a longer key (17–64 bytes): compared at 64 only",
	}
	if diff := cmp.Diff(wantNotes, p.Notes); diff != "" {
		t.Errorf("NewPrefix notes (-want +got):\n%s", diff)
	}
	if len(w.KeySizes) != 32 || w.KeySizes[len(w.KeySizes)-1] != 32 {
		t.Errorf("NewWhole: key sizes %v, want 1..32 (an even spread in full, the others light)", w.KeySizes)
	}
	for _, n := range w.Notes {
		if strings.Contains(n, "reads") {
			t.Errorf("NewWhole: note %q", n)
		}
	}
}

func TestCollapseNotes(t *testing.T) {
	got := collapseNotes([]string{"a", "b", "a", "a", "c"})
	if want := []string{"a (×3)", "b", "c"}; !cmp.Equal(got, want) {
		t.Errorf("collapseNotes: %q, want %q", got, want)
	}
	if got := sizeRanges([]int{1, 2, 3, 5, 7, 8}); got != "1–3, 5, 7–8" {
		t.Errorf("sizeRanges: %q", got)
	}
}
