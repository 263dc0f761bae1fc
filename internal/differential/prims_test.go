package differential

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/differential/vectors"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

func runPrims(t *testing.T, base, head string, edit func(*Config)) *Report {
	t.Helper()
	return runCheck(t, base, head, func(c *Config) {
		c.Pkg = "./internal/prims"
		if edit != nil {
			edit(c)
		}
	})
}

// TestPrimsIdentical checks discovery of every family and shape, the sizes each is compared at, and
// that an output-identical change is identical.
func TestPrimsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two harnesses")
	}
	rep := runPrims(t, primsModule(t, "base"), primsModule(t, "refactor"), nil)
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
	}
	type shape struct {
		Family     record.Family
		Type       string
		KeySizes   []int
		NonceSizes []int
		Lengths    int
	}
	got := map[string]shape{}
	for _, c := range rep.Ciphers {
		got[c.Name] = shape{c.Family, c.Type, c.KeySizes, c.NonceSizes, len(c.Lengths)}
		if c.Mismatches != 0 || c.DigestBase != c.DigestHead || c.InconsistentBase+c.InconsistentHead != 0 {
			t.Errorf("%s: %d mismatches, %d+%d inconsistencies, digests %s %s", c.Name, c.Mismatches,
				c.InconsistentBase, c.InconsistentHead, c.DigestBase, c.DigestHead)
		}
		inputs := wantInputs(c)
		wantKeys := DefaultMessageKeys
		if len(c.KeySizes) == 1 && c.KeySizes[0] == 0 {
			wantKeys = vectors.SweepKeys
		}
		if c.Family != record.FamilyBlock && (c.Keys != wantKeys || c.Inputs != inputs) {
			t.Errorf("%s: %d keys, %d inputs for %d lengths, want %d and %d", c.Name, c.Keys, c.Inputs,
				len(c.Lengths), wantKeys, inputs)
		}
	}
	// RC4 takes keys of 1 to 256 bytes; the probe tries 1..64, the check an even spread of 8 of
	// them in full and the others with lightKeys keys.
	var rc4 []int
	for n := 1; n <= 64; n++ {
		rc4 = append(rc4, n)
	}
	// HMAC here takes 1..64 bytes: the same spread. Lengths (vectors.MessageLengths): 0..2
	// blocks+1, then 3..8 blocks ±1, the powers of two ±1 from 64 to 256 and two runs of 16: 84 for
	// AEADs' 16-byte blocks, 180 for a 64-byte block, 306 for SHA-512's 128.
	want := map[string]shape{
		"NewAES":     {record.FamilyBlock, "cipher.Block", []int{16, 24, 32}, nil, 0},
		"NewAES/GCM": {record.FamilyAEAD, "cipher.AEAD", []int{16, 24, 32}, []int{12}, 84},
		"NewGCM":     {record.FamilyAEAD, "cipher.AEAD", []int{16, 24, 32}, []int{12}, 84},
		"NewCTR":     {record.FamilyStream, "*prims.CTR", []int{16, 24, 32}, []int{16}, 180},
		"NewRC4":     {record.FamilyStream, "*rc4.Cipher", rc4, nil, 180},
		"NewStdCTR":  {record.FamilyStream, "cipher.Stream", []int{16, 24, 32}, []int{16}, 180},
		"NewSHA512":  {record.FamilyHash, "hash.Hash", []int{0}, nil, 306},
		"NewSHA256":  {record.FamilyHash, "hash.Hash", []int{0}, nil, 180},
		"NewMAC":     {record.FamilyHash, "hash.Hash", rc4, nil, 180},
		"NewDigest":  {record.FamilyHash, "*prims.Digest", []int{0}, nil, 180},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors (-want +got):\n%s", diff)
	}
	for _, name := range []string{"NewRC4", "NewMAC"} {
		if c := cipherByName(t, rep, name); len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "64 size pairs") {
			t.Errorf("%s notes %q, want the sizes left out", name, c.Notes)
		}
	}
	// differential.json (the report as JSON) records the seed and, per constructor, the key, input
	// and length counts.
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Seed    uint64 `json:"seed"`
		Ciphers []struct {
			Name         string
			Family       record.Family
			Keys, Inputs int
			Lengths      []int
		} `json:"ciphers"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("reading differential.json: %v", err)
	}
	if back.Seed != DefaultSeed || len(back.Ciphers) != len(want) {
		t.Fatalf("differential.json: seed %#x, %d ciphers", back.Seed, len(back.Ciphers))
	}
	for _, c := range back.Ciphers {
		if c.Family == record.FamilyHash && (c.Keys == 0 || c.Inputs == 0 || len(c.Lengths) == 0) {
			t.Errorf("differential.json: %s: keys %d, inputs %d, lengths %v", c.Name, c.Keys, c.Inputs, c.Lengths)
		}
	}
	t.Logf("build %v, check %v", rep.BuildTime, rep.CheckTime)
}

// TestPrimsMismatches gives each kind of bug its fixture and checks that the report names the
// constructor and what differed, and nothing else.
func TestPrimsMismatches(t *testing.T) {
	testenv.Long(t) // builds a harness per variant
	base := primsModule(t, "base")
	for _, tc := range []struct {
		variant, ctor, part, note string
		headInconsistent          bool
	}{
		{"tag", "NewGCM", "tag", "ciphertext identical, tag differs from its byte 15", true},
		{"length", "NewGCM", "length", "ciphertext and tag: base 23 bytes, head 24", true},
		{"forgery", "NewGCM", "forgery", "head's Open accepted the ciphertext", false},
		{"keystream", "NewCTR", "keystream", "keystream differs from byte 100", false},
		{"chunks", "NewCTR", "chunk boundary", "when written in chunks", true},
		{"hashchunks", "NewDigest", "chunk boundary", "written in chunks", true},
		{"reset", "NewDigest", "reset", "after Reset", true},
		{"sumwrites", "NewDigest", "sum", "Sum(a5) after Sum(nil) differs", true},
		{"size", "NewSHA256", "size", "Size base 32, head 28", false},
		{"aliasstream", "NewCTR", "in place", "in place (dst == src)", true},
		{"aliasopen", "NewGCM", "in place", "Open(ciphertext[:0], …) of the sealed message: base opened", true},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			rep := runPrims(t, base, primsModule(t, tc.variant), func(c *Config) { c.MessageKeys = 2 })
			if rep.Status != record.DiffMismatch || rep.HeadFailed {
				t.Fatalf("status %q (%s), head failed %v; want mismatch", rep.Status, rep.Reason, rep.HeadFailed)
			}
			for _, c := range rep.Ciphers {
				if (c.Mismatches > 0) != (c.Name == tc.ctor) {
					t.Errorf("%s: %d mismatches (%s)", c.Name, c.Mismatches, rep.Reason)
				}
				if c.InconsistentBase > 0 || (c.InconsistentHead > 0) != (tc.headInconsistent && c.Name == tc.ctor) {
					t.Errorf("%s: inconsistent base %d, head %d", c.Name, c.InconsistentBase, c.InconsistentHead)
				}
			}
			c := cipherByName(t, rep, tc.ctor)
			if len(c.Examples) == 0 {
				t.Fatal("no examples")
			}
			m := c.Examples[0]
			if m.Part != tc.part || !strings.Contains(m.Note, tc.note) {
				t.Errorf("first mismatch: part %q, note %q; want %q, %q", m.Part, m.Note, tc.part, tc.note)
			}
			if tc.headInconsistent {
				if len(c.Inconsistencies) == 0 || c.Inconsistencies[0].Side != "head" {
					t.Fatalf("inconsistencies %+v", c.Inconsistencies)
				}
				want := fmt.Sprintf("head disagrees with itself (%s: %d, %s", tc.ctor, c.InconsistentHead,
					c.Inconsistencies[0].Part)
				if !strings.Contains(rep.Reason, want) {
					t.Errorf("reason %q, want it to say %q", rep.Reason, want)
				}
			}
		})
	}
}

// BenchmarkPrimsCheck measures a check with the defaults of a package of ten constructors (the
// prims fixture: a block cipher, the same through GCM, an AEAD, three stream ciphers, four hashes)
// against itself. check-s/op is the check proper (probe, generate, run, compare), build-s/op
// loading and building both harnesses.
func BenchmarkPrimsCheck(b *testing.B) {
	mod := primsModule(b, "base")
	var build, check float64
	for b.Loop() {
		rep, err := Check(b.Context(), Config{Sides: subject.Sides{BaseDir: mod, HeadDir: mod, Pkg: "./internal/prims"}})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Status != record.DiffIdentical || len(rep.Ciphers) != 10 {
			b.Fatalf("status %q, %d ciphers", rep.Status, len(rep.Ciphers))
		}
		build += rep.BuildTime.Seconds()
		check += rep.CheckTime.Seconds()
	}
	b.ReportMetric(build/float64(b.N), "build-s/op")
	b.ReportMetric(check/float64(b.N), "check-s/op")
}

// TestPrimsPanics checks that a primitive that panics fails the head, and makes a base not
// comparable, with the constructor and the operation named.
func TestPrimsPanics(t *testing.T) {
	testenv.Long(t) // builds two harnesses, twice
	base, bad := primsModule(t, "base"), primsModule(t, "panic")
	few := func(c *Config) { c.MessageKeys = 1 }
	rep := runPrims(t, base, bad, few)
	if rep.Status != record.DiffMismatch || !rep.HeadFailed || len(rep.Ciphers) != 0 ||
		!strings.Contains(rep.Reason, "head: harness: panic: prims: boom [in NewGCM Seal") {
		t.Errorf("status %q, head failed %v, %d ciphers, reason %q; want head's panic in NewGCM Seal", rep.Status,
			rep.HeadFailed, len(rep.Ciphers), rep.Reason)
	}
	rep = runPrims(t, bad, base, few)
	if rep.Status != record.DiffNotComparable || rep.HeadFailed || !strings.Contains(rep.Reason, "base: harness: panic") {
		t.Errorf("status %q, head failed %v, reason %q; want base's panic", rep.Status, rep.HeadFailed, rep.Reason)
	}
}

// wantInputs is how many messages a message family's Cipher c should have been fed at the defaults.
// Every key size but 0 gets DefaultMessageKeys keys: vectors.SweepKeys with every length, the
// others vectors.CasesPerKey lengths each; an empty key only the vectors.SweepKeys. Past
// maxPrimSizes sizes, those out of an even spread get lightKeys keys of vectors.CasesPerKey
// lengths.
func wantInputs(c record.Cipher) int {
	inputs := 0
	for i, size := range c.KeySizes {
		n := len(c.KeySizes)
		switch {
		case n > maxPrimSizes && !spreadPick(i, n):
			inputs += lightKeys * vectors.CasesPerKey
		case size > 0:
			inputs += vectors.SweepKeys*len(c.Lengths) + (DefaultMessageKeys-vectors.SweepKeys)*vectors.CasesPerKey
		default:
			inputs += vectors.SweepKeys * len(c.Lengths)
		}
	}
	return inputs
}

// spreadPick reports whether index i of n sizes is one of spread's even picks.
func spreadPick(i, n int) bool {
	for k := range maxPrimSizes {
		if k*(n-1)/(maxPrimSizes-1) == i {
			return true
		}
	}
	return false
}
