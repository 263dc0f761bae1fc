package differential

import (
	"bytes"
	"crypto/des"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

func cipherByName(t *testing.T, rep *Report, name string) *record.Cipher {
	t.Helper()
	for i := range rep.Ciphers {
		if rep.Ciphers[i].Name == name {
			return &rep.Ciphers[i]
		}
	}
	t.Fatalf("no cipher %s in report %+v", name, rep)
	return nil
}

func TestRefactorIdentical(t *testing.T) {
	base, head := wdesModule(t, "base"), wdesModule(t, "refactor")
	before := [2]map[string]string{treeState(t, base), treeState(t, head)}
	rep := runCheck(t, base, head, nil)
	if rep.Status != record.DiffIdentical || rep.HeadFailed {
		t.Fatalf("status %q (%s), head failed %v; want identical", rep.Status, rep.Reason, rep.HeadFailed)
	}
	t.Logf("build %v, check %v", rep.BuildTime, rep.CheckTime)
	// The harness build must leave both trees exactly as they were.
	for i, dir := range []string{base, head} {
		if diff := cmp.Diff(before[i], treeState(t, dir)); diff != "" {
			t.Errorf("tree %s changed (-before +after):\n%s", dir, diff)
		}
	}
	want := []record.Cipher{
		{Name: "NewCipher", KeySizes: []int{8}},
		{Name: "NewTripleEDE3", KeySizes: []int{24}},
	}
	if len(rep.Ciphers) != len(want) {
		t.Fatalf("ciphers %+v, want %d", rep.Ciphers, len(want))
	}
	for i, w := range want {
		c := rep.Ciphers[i]
		if c.Name != w.Name || !cmp.Equal(c.KeySizes, w.KeySizes) || c.Keys != DefaultKeys || c.Blocks != DefaultBlocks {
			t.Errorf("cipher %d: %s sizes %v keys %d blocks %d; want %s %v %d %d", i, c.Name, c.KeySizes, c.Keys,
				c.Blocks, w.Name, w.KeySizes, DefaultKeys, DefaultBlocks)
		}
		if !cmp.Equal(c.Methods, []string{"Encrypt", "Decrypt", "DecryptBlocks", "EncryptBlocks"}) {
			t.Errorf("%s methods %v", c.Name, c.Methods)
		}
		if c.Type != "*wdes.Cipher" {
			t.Errorf("%s type %q", c.Name, c.Type)
		}
		if c.DigestBase != c.DigestHead || c.DigestBase == "" || c.Mismatches != 0 || len(c.Digests) != 2 {
			t.Errorf("%s: digests %s/%s, %d mismatches, %d direction digests", c.Name, c.DigestBase,
				c.DigestHead, c.Mismatches, len(c.Digests))
		}
		for _, d := range c.Digests {
			if d.Base != d.Head {
				t.Errorf("%s %s digests differ", c.Name, d.Direction)
			}
		}
	}
	// Keys are different per constructor, so the two digests differ.
	if rep.Ciphers[0].DigestBase == rep.Ciphers[1].DigestBase {
		t.Error("both constructors have the same digest")
	}
}

// TestBrokenNamesFirstMismatch checks the count and the first example against an independent
// computation: head flips bit 0x10 of byte 3 whenever the plaintext starts with 0x42, in Encrypt
// and so in EncryptBlocks.
func TestBrokenNamesFirstMismatch(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "broken"), nil)
	if rep.Status != record.DiffMismatch || rep.HeadFailed {
		t.Fatalf("status %q (%s), head failed %v; want mismatch", rep.Status, rep.Reason, rep.HeadFailed)
	}
	c := cipherByName(t, rep, "NewCipher")
	j := newBlockJob(DefaultSeed, "NewCipher", 8, 8, DefaultKeys, DefaultBlocks, []string{"DecryptBlocks",
		"EncryptBlocks"})
	var want *record.Mismatch
	count := 0
	// wantAt is the mismatch of the block in of key k, at block b of a run noted note.
	wantAt := func(k keyInput, b int, in []byte, note string) *record.Mismatch {
		d, err := des.NewCipher(k.key)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 8)
		d.Encrypt(out, in)
		bad := bytes.Clone(out)
		bad[3] ^= 0x10
		return &record.Mismatch{Constructor: "NewCipher", KeySize: 8, Key: k.key, Block: b, Direction: "encrypt",
			Method: "Encrypt", Input: in, Base: out, Head: bad, Length: 8, Note: note}
	}
	for ki, k := range j.keys {
		for b := range j.blocks {
			in := k.plain[b*8 : b*8+8]
			if in[0] != 0x42 {
				continue
			}
			count += 2 // Encrypt and EncryptBlocks
			if ki < inPlaceKeys {
				count += 2 // and both in place
			}
			if want == nil {
				want = wantAt(k, b, in, "")
			}
		}
		// The first keys also encrypt the long input block by block, and in EncryptBlocks calls of
		// each length.
		for b := 0; ki < lengthKeys && b < len(j.long[0])/8; b++ {
			if in := j.long[0][b*8 : b*8+8]; in[0] == 0x42 {
				count++
				for _, n := range batchLengths {
					if b < n {
						count++
					}
				}
				if want == nil {
					want = wantAt(k, b, in, "over 129 blocks")
				}
			}
		}
	}
	if count == 0 {
		t.Fatal("no plaintext starts with 0x42; the fixture tests nothing")
	}
	if c.Mismatches != count {
		t.Errorf("NewCipher: %d mismatches, want %d", c.Mismatches, count)
	}
	if len(c.Examples) == 0 {
		t.Fatal("no examples")
	}
	if diff := cmp.Diff(*want, c.Examples[0]); diff != "" {
		t.Errorf("first mismatch (-want +got):\n%s", diff)
	}
	if len(c.Examples) != MaxExamples {
		t.Errorf("%d examples, want %d", len(c.Examples), MaxExamples)
	}
	for _, d := range c.Digests {
		if (d.Direction == "encrypt") == (d.Base == d.Head) {
			t.Errorf("%s digests: base %s head %s", d.Direction, d.Base, d.Head)
		}
	}
	if c.InconsistentBase != 0 || c.InconsistentHead != 0 {
		t.Errorf("inconsistencies %d/%d, want none", c.InconsistentBase, c.InconsistentHead)
	}
}

func TestTailOfBatch(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "tail"), nil)
	if rep.Status != record.DiffMismatch {
		t.Fatalf("status %q (%s), want mismatch", rep.Status, rep.Reason)
	}
	// Every key's 17th encrypted block differs in EncryptBlocks, and in place for the first
	// inPlaceKeys keys, and so does the first keys' in the calls of more than 16 blocks.
	want := DefaultKeys + inPlaceKeys
	for _, n := range batchLengths {
		if n > 16 {
			want += lengthKeys
		}
	}
	for _, c := range rep.Ciphers {
		if c.Mismatches != want || c.InconsistentHead != want {
			t.Errorf("%s: %d mismatches, %d inconsistent on head, want %d", c.Name, c.Mismatches,
				c.InconsistentHead, want)
		}
		for _, m := range c.Examples {
			if m.Block != 16 || m.Method != "EncryptBlocks" || m.Direction != "encrypt" {
				t.Errorf("%s: mismatch at block %d %s %s, want block 16 EncryptBlocks encrypt", c.Name, m.Block,
					m.Method, m.Direction)
			}
		}
		// On head, the batch disagrees with the single-block method: reported as an inconsistency.
		if c.InconsistentBase != 0 {
			t.Errorf("%s: inconsistent base %d, want 0", c.Name, c.InconsistentBase)
		}
		if len(c.Inconsistencies) == 0 || c.Inconsistencies[0].Side != "head" || c.Inconsistencies[0].Block != 16 {
			t.Errorf("%s: inconsistencies %+v", c.Name, c.Inconsistencies)
		}
	}
	if !strings.Contains(rep.Reason, "batch or in-place calls disagree") {
		t.Errorf("reason %q does not mention the batch disagreement", rep.Reason)
	}
}

func TestParityMatters(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "parity"), nil)
	if rep.Status != record.DiffMismatch {
		t.Fatalf("status %q (%s), want mismatch", rep.Status, rep.Reason)
	}
	c := cipherByName(t, rep, "NewCipher")
	if c.Mismatches == 0 || c.Examples[0].Key[0]&1 != 1 {
		t.Errorf("NewCipher: %d mismatches, first example %+v", c.Mismatches, c.Examples)
	}
	if e := cipherByName(t, rep, "NewTripleEDE3"); e.Mismatches != 0 {
		t.Errorf("NewTripleEDE3 changed: %d mismatches", e.Mismatches)
	}
}

func TestDecryptOnly(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "decrypt"), nil)
	if rep.Status != record.DiffMismatch {
		t.Fatalf("status %q (%s), want mismatch", rep.Status, rep.Reason)
	}
	for _, c := range rep.Ciphers {
		if c.Mismatches == 0 {
			t.Errorf("%s: no mismatches", c.Name)
		}
		for _, m := range c.Examples {
			if m.Direction != "decrypt" || m.Input[0]&0x0f != 0 {
				t.Errorf("%s: mismatch %+v, want decrypt of an input with a low nibble 0", c.Name, m)
			}
		}
		if c.Digests[0].Base != c.Digests[0].Head || c.Digests[1].Base == c.Digests[1].Head {
			t.Errorf("%s: digests %+v, want encrypt equal and decrypt different", c.Name, c.Digests)
		}
	}
}

func TestHeadPanics(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "panic"), nil)
	if rep.Status != record.DiffMismatch || !rep.HeadFailed || !strings.Contains(rep.Reason, "wdes: boom") {
		t.Fatalf("status %q, head failed %v, reason %q; want a head failure naming the panic", rep.Status,
			rep.HeadFailed, rep.Reason)
	}
	if !strings.Contains(rep.Reason, "NewTripleEDE3") {
		t.Errorf("reason %q does not say where", rep.Reason)
	}
}

func TestBasePanics(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "panic"), wdesModule(t, "base"), nil)
	if rep.Status != record.DiffNotComparable || rep.HeadFailed || !strings.Contains(rep.Reason, "wdes: boom") {
		t.Fatalf("status %q, head failed %v, reason %q; want not-comparable naming the panic", rep.Status,
			rep.HeadFailed, rep.Reason)
	}
}

func TestHeadHangs(t *testing.T) {
	testenv.Long(t) // waits for a timeout
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "hang"), func(c *Config) { c.Timeout = 3 * time.Second })
	if rep.Status != record.DiffMismatch || !rep.HeadFailed || !strings.Contains(rep.Reason, "did not finish within 3s") {
		t.Fatalf("status %q, head failed %v, reason %q; want a head timeout", rep.Status, rep.HeadFailed, rep.Reason)
	}
}

func TestHeadDoesNotBuild(t *testing.T) {
	head := writeModule(t, map[string]string{"internal/wdes/wdes.go": strings.Replace(wdesSource,
		"/*EXTRA*/", "func broken() int { return \"x\" }", 1)})
	rep := runCheck(t, wdesModule(t, "base"), head, nil)
	if rep.Status != record.DiffMismatch || !rep.HeadFailed ||
		!strings.Contains(rep.Reason, "head: package does not load") {
		t.Fatalf("status %q, head failed %v, reason %q; want a head failure", rep.Status, rep.HeadFailed, rep.Reason)
	}
}

func TestAddedConstructor(t *testing.T) {
	testenv.Long(t)
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "added"), nil)
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
	}
	if !cmp.Equal(rep.Added, []string{"NewCipherCopy"}) || len(rep.Removed) != 0 {
		t.Errorf("added %v removed %v", rep.Added, rep.Removed)
	}
	for _, c := range rep.Ciphers {
		if !cmp.Equal(c.MethodsAdded, []string{"EncryptECB"}) || c.Mismatches != 0 || c.DigestBase != c.DigestHead {
			t.Errorf("%s: methods added %v, %d mismatches", c.Name, c.MethodsAdded, c.Mismatches)
		}
	}
	// Reversed, the constructor is removed.
	rep = runCheck(t, wdesModule(t, "added"), wdesModule(t, "base"), nil)
	if rep.Status != record.DiffIdentical || !cmp.Equal(rep.Removed, []string{"NewCipherCopy"}) {
		t.Errorf("reversed: status %q removed %v", rep.Status, rep.Removed)
	}
}

func TestExplicitConstructors(t *testing.T) {
	base, head := wdesModule(t, "base"), wdesModule(t, "decrypt")
	rep := runCheck(t, base, head, func(c *Config) { c.Constructors = []string{"NewTripleEDE3"}; c.Keys = 40 })
	if len(rep.Ciphers) != 1 || rep.Ciphers[0].Name != "NewTripleEDE3" || rep.Ciphers[0].Keys != 40 {
		t.Fatalf("ciphers %+v, want NewTripleEDE3 only", rep.Ciphers)
	}
	_, err := Check(t.Context(), Config{Sides: subject.Sides{BaseDir: base, HeadDir: head, Pkg: "./internal/wdes"},
		Constructors: []string{"Helper"}})
	if err == nil || !strings.Contains(err.Error(), "Helper") {
		t.Errorf("Check with a non-constructor: err %v", err)
	}
}

// TestCommandSkipped: a command may have benchmarks but has nothing to import: skipped, not an
// error.
func TestCommandSkipped(t *testing.T) {
	mod := writeModule(t, map[string]string{"cmd/wdes/main.go": "package main\n\nimport \"crypto/aes\"\n\n" +
		"var NewCipher = aes.NewCipher\n\nfunc main() {}\n"})
	rep := runCheck(t, mod, mod, func(c *Config) { c.Pkg = "./cmd/wdes" })
	if rep.Status != record.DiffSkipped || !strings.Contains(rep.Reason, "it is a command (package main)") {
		t.Fatalf("status %q reason %q, want skipped as a command", rep.Status, rep.Reason)
	}
}

func TestNoConstructorsSkipped(t *testing.T) {
	mod := writeModule(t, map[string]string{
		"internal/wdes/wdes.go": "package wdes\n\nfunc New(key []byte) (int, error) { return 0, nil }\n"})
	rep := runCheck(t, mod, mod, nil)
	if rep.Status != record.DiffSkipped || !strings.Contains(rep.Reason, "no cipher constructor") ||
		!strings.Contains(rep.Reason, "crypto/cipher.AEAD") || !strings.Contains(rep.Reason, "crypto/cipher.Stream") ||
		!strings.Contains(rep.Reason, "hash.Hash") || len(rep.Reason) > 150 {
		t.Fatalf("status %q reason %q, want skipped, in one short line", rep.Status, rep.Reason)
	}
}

func TestSeed(t *testing.T) {
	testenv.Long(t)
	base := wdesModule(t, "base")
	digests := func(seed uint64) string {
		dir := t.TempDir()
		rep := runCheck(t, base, base, func(c *Config) { c.Seed = seed; c.WorkDir = dir })
		if rep.Status != record.DiffIdentical || rep.Seed != seed {
			t.Fatalf("seed %#x: status %q seed %#x", seed, rep.Status, rep.Seed)
		}
		b, err := json.Marshal(rep) // as differential.json carries it
		if err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, c := range back.Ciphers {
			s = append(s, c.DigestBase)
		}
		return strings.Join(s, ",")
	}
	a, b, c := digests(DefaultSeed), digests(DefaultSeed), digests(7)
	if a != b {
		t.Errorf("same seed, different digests: %s vs %s", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same digests: %s", a)
	}
}

// TestConstructorShapes covers the result types discovery accepts: an interface, a struct value
// whose Block methods have pointer receivers (the harness takes its address), and a constructor
// behind a build tag.
func TestConstructorShapes(t *testing.T) {
	mod := writeModule(t, map[string]string{
		"internal/wdes/shapes.go": `package wdes

import (
	"crypto/cipher"
	"crypto/des"
)

func NewIface(key []byte) (cipher.Block, error) { return des.NewCipher(key) }

type V struct{ b cipher.Block }

func NewValue(key []byte) (V, error) {
	b, err := des.NewCipher(key)
	return V{b}, err
}

func (v *V) BlockSize() int                 { return 8 }
func (v *V) Encrypt(dst, src []byte)        { v.b.Encrypt(dst, src) }
func (v *V) Decrypt(dst, src []byte)        { v.b.Decrypt(dst, src) }
func (v *V) DecryptAll(dst, src []byte)     { for i := 0; i < len(src); i += 8 { v.Decrypt(dst[i:], src[i:]) } }
func (v *V) EncryptTwice(dst, src []byte, n int) {}
func (v V) encryptHidden(dst, src []byte)   {}
`,
		"internal/wdes/tagged.go": `//go:build wdes_extra

package wdes

import "crypto/cipher"

func NewTagged(key []byte) (cipher.Block, error) { return NewIface(key) }
`,
	})
	rep := runCheck(t, mod, mod, func(c *Config) { c.Tags = []string{"wdes_extra"}; c.Keys = 100 })
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
	}
	type shape struct {
		Type     string
		KeySizes []int
		Methods  []string
	}
	got := map[string]shape{}
	for _, c := range rep.Ciphers {
		got[c.Name] = shape{c.Type, c.KeySizes, c.Methods}
	}
	want := map[string]shape{
		"NewIface":  {"cipher.Block", []int{8}, []string{"Encrypt", "Decrypt"}},
		"NewValue":  {"wdes.V", []int{8}, []string{"Encrypt", "Decrypt", "DecryptAll"}},
		"NewTagged": {"cipher.Block", []int{8}, []string{"Encrypt", "Decrypt"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors (-want +got):\n%s", diff)
	}
}

// TestInPlace checks that a block cipher wrong only in place (dst == src) is caught: its
// out-of-place outputs are base's, its in-place ones differ from base's and from its own
// out-of-place ones.
func TestInPlace(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "alias"), nil)
	if rep.Status != record.DiffMismatch {
		t.Fatalf("status %q (%s), want mismatch", rep.Status, rep.Reason)
	}
	for _, c := range rep.Ciphers {
		if c.Mismatches == 0 || c.InconsistentBase != 0 || c.InconsistentHead == 0 {
			t.Errorf("%s: %d mismatches, inconsistent base %d head %d; want mismatches on head only", c.Name,
				c.Mismatches, c.InconsistentBase, c.InconsistentHead)
		}
		for _, m := range c.Examples {
			if m.Note != "in place" || m.Method != "Encrypt" && m.Method != "EncryptBlocks" {
				t.Errorf("%s: mismatch %s %q, want Encrypt or EncryptBlocks in place", c.Name, m.Method, m.Note)
			}
		}
	}
}

// TestBatchLengths checks that a batch method wrong only at a block count ≡ 7 mod 16 is caught, in
// the first keys' calls of 7 blocks: batch calls of the job's 17 blocks never see it.
func TestBatchLengths(t *testing.T) {
	rep := runCheck(t, wdesModule(t, "base"), wdesModule(t, "count7"), nil)
	if rep.Status != record.DiffMismatch {
		t.Fatalf("status %q (%s), want mismatch", rep.Status, rep.Reason)
	}
	for _, c := range rep.Ciphers {
		if c.Mismatches != lengthKeys || c.InconsistentHead != lengthKeys {
			t.Errorf("%s: %d mismatches, %d inconsistent on head; want %d (one block of each first key)", c.Name,
				c.Mismatches, c.InconsistentHead, lengthKeys)
		}
		for _, m := range c.Examples {
			if m.Method != "EncryptBlocks" || m.Note != "one call of 7 blocks" || m.Block != 6 {
				t.Errorf("%s: mismatch %s %q block %d, want EncryptBlocks, one call of 7 blocks, block 6", c.Name,
					m.Method, m.Note, m.Block)
			}
		}
	}
}
