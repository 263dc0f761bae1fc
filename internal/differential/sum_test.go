package differential

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// sumFixture is a package of one-shot functions of every shape discovery accepts, built on the
// standard library, and functions it must not take for one. The /*NAME*/ markers are where
// sumVariants insert their changes.
const sumFixture = `// Package sums wraps standard-library one-shot functions for the differential tests.
package sums

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"hash/crc32"
	"hash/fnv"
)

// Digest is a named digest type.
type Digest [32]byte

// Sum256 is func(data []byte) [32]byte.
func Sum256(data []byte) [32]byte {
	s := sha256.Sum256(data)
	/*SUM256*/
	return s
}

// Sum512 returns a named array type.
func Sum512(data []byte) Digest {
	s := sha512.Sum512_256(data)
	return Digest(s)
}

// MAC has poly1305.Sum's shape: func(out *[16]byte, m []byte, key *[32]byte).
func MAC(out *[16]byte, m []byte, key *[32]byte) {
	/*MAC*/
	h := hmac.New(sha256.New, key[:])
	h.Write(m)
	copy(out[:], h.Sum(nil))
}

// Keyed takes a []byte key named key.
func Keyed(key, msg []byte) [32]byte {
	h := hmac.New(sha256.New, key)
	h.Write(msg)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Checksum returns a uint32.
func Checksum(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// Sum64 returns a uint64, and changes its message on one variant.
func Sum64(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	/*SUM64*/
	return h.Sum64()
}

var calls int

// Stateful answers differently on a second call in one variant.
func Stateful(b []byte) [4]byte {
	calls++
	s := crc32.ChecksumIEEE(b)
	/*STATEFUL*/
	return [4]byte{byte(s >> 24), byte(s >> 16), byte(s >> 8), byte(s)}
}

// These have no digest, two messages, or other arguments: no one-shot functions.
func Pad(b []byte) []byte          { return append(b, 0) }
func Copy(dst, src []byte) int     { return copy(dst, src) }
func Count(b []byte, n int) uint64 { return uint64(len(b) + n) }
`

// sumVariants are the changes a fixture can make to sumFixture, by marker.
var sumVariants = map[string]map[string]string{
	"base": {},
	// An output-identical change.
	"refactor": {"SUM256": "_ = len(data)"},
	// Sum256 is wrong for messages of 16k+7 bytes.
	"length": {"SUM256": "if len(data)%16 == 7 { s[3] ^= 0x10 }"},
	// MAC is wrong for keys that start with 0x00 (the all-zero key among them).
	"keybyte": {"MAC": "if key[0] == 0 { m = append(m, 1) }"},
	// Sum64 overwrites the message's first byte.
	"mutates": {"SUM64": "if len(b) > 0 { b[0] ^= 1 }"},
	// Stateful counts its calls.
	"stateful": {"STATEFUL": "s += uint32(calls % 2)"},
}

func sumModule(t testing.TB, variant string) string {
	t.Helper()
	changes, ok := sumVariants[variant]
	if !ok {
		t.Fatalf("no variant %q", variant)
	}
	src := sumFixture
	for marker, code := range changes {
		src = strings.Replace(src, "/*"+marker+"*/", code, 1)
	}
	return writeModule(t, map[string]string{
		"go.mod":               "module example.com/sums\n\ngo 1.16\n",
		"internal/sums/sum.go": src,
	})
}

// TestSumsIdentical checks discovery of every one-shot shape, the key sizes each is compared at,
// and that an output-identical change is identical.
func TestSumsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two harnesses")
	}
	rep := runCheck(t, sumModule(t, "base"), sumModule(t, "refactor"), func(c *Config) {
		c.Pkg, c.MessageKeys = "./internal/sums", 4
	})
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
	}
	type shape struct {
		Family   record.Family
		Type     string
		KeySizes []int
	}
	got := map[string]shape{}
	for _, c := range rep.Ciphers {
		got[c.Name] = shape{c.Family, c.Type, c.KeySizes}
		if c.Mismatches != 0 || c.DigestBase != c.DigestHead || c.InconsistentBase+c.InconsistentHead != 0 {
			t.Errorf("%s: %d mismatches, %d+%d inconsistencies", c.Name, c.Mismatches, c.InconsistentBase,
				c.InconsistentHead)
		}
	}
	// Keyed takes every key length: the check compares an even spread of 8 of 0..64 in full, the
	// others light.
	var keyed []int
	for n := 0; n <= 64; n++ {
		keyed = append(keyed, n)
	}
	want := map[string]shape{
		"Sum256":   {record.FamilySum, "[32]byte", []int{0}},
		"Sum512":   {record.FamilySum, "sums.Digest", []int{0}},
		"MAC":      {record.FamilySum, "*[16]byte", []int{32}},
		"Keyed":    {record.FamilySum, "[32]byte", keyed},
		"Checksum": {record.FamilySum, "uint32", []int{0}},
		"Sum64":    {record.FamilySum, "uint64", []int{0}},
		"Stateful": {record.FamilySum, "[4]byte", []int{0}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("one-shot functions (-want +got):\n%s", diff)
	}
}

// TestSumsMismatches gives each kind of bug its fixture and checks that the report names the
// function and what differed.
func TestSumsMismatches(t *testing.T) {
	testenv.Long(t) // builds a harness per variant
	base := sumModule(t, "base")
	for _, tc := range []struct {
		variant, fn, part string
		mismatch          bool
		inconsistent      string // the Part of head's first inconsistency
	}{
		{"length", "Sum256", "digest", true, ""},
		{"keybyte", "MAC", "digest", true, ""},
		{"mutates", "Sum64", "", false, "input"},
		{"stateful", "Stateful", "digest", true, "sum"},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			rep := runCheck(t, base, sumModule(t, tc.variant), func(c *Config) {
				c.Pkg, c.MessageKeys = "./internal/sums", 2
			})
			for _, c := range rep.Ciphers {
				if c.Name != tc.fn && (c.Mismatches > 0 || c.InconsistentHead > 0) {
					t.Errorf("%s: %d mismatches, head inconsistent on %d", c.Name, c.Mismatches, c.InconsistentHead)
				}
			}
			c := cipherByName(t, rep, tc.fn)
			if (c.Mismatches > 0) != tc.mismatch || (rep.Status == record.DiffMismatch) != tc.mismatch {
				t.Errorf("status %q (%s), %d mismatches; want a mismatch: %v", rep.Status, rep.Reason,
					c.Mismatches, tc.mismatch)
			}
			part, inconsistent := "", ""
			if len(c.Examples) > 0 {
				part = c.Examples[0].Part
			}
			if len(c.Inconsistencies) > 0 && c.Inconsistencies[0].Side == record.Head {
				inconsistent = c.Inconsistencies[0].Part
			}
			if part != tc.part || inconsistent != tc.inconsistent || c.InconsistentBase != 0 {
				t.Errorf("examples %+v, inconsistencies %+v; want parts %q and %q", c.Examples, c.Inconsistencies,
					tc.part, tc.inconsistent)
			}
		})
	}
}
