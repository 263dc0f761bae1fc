package consttime

import (
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// needValgrind skips t when valgrind is not installed (the constant-time check traces with its
// lackey tool), and unless the long end-to-end set is on (PERFGATE_E2E=1, under which a missing
// valgrind fails the test).
func needValgrind(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "valgrind", "sudo apt-get install -y valgrind")
	testenv.Long(t)
}

// arxSource is a constant-time toy block cipher (add, rotate, xor on 64-bit words; the key schedule
// is arithmetic): no branch and no memory access depends on the key or the data. Its module says go
// 1.16, so the driver must compile at that language version.
const arxSource = `package arx

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

type Cipher struct{ k [8]uint64 }

func NewCipher(key []byte) (*Cipher, error) {
	if len(key) != 16 {
		return nil, errors.New("arx: key must be 16 bytes")
	}
	c := new(Cipher)
	a, b := binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[8:])
	for i := range c.k {
		a = bits.RotateLeft64(a, 7) + b
		b ^= a * 0x9e3779b97f4a7c15
		c.k[i] = a ^ b
	}
	return c, nil
}

func (c *Cipher) BlockSize() int { return 8 }

func (c *Cipher) Encrypt(dst, src []byte) {
	x := binary.LittleEndian.Uint64(src)
	for i := 0; i < 8; i++ {
		x = round(x, c.k[i])
	}
	binary.LittleEndian.PutUint64(dst, x)
}

func (c *Cipher) Decrypt(dst, src []byte) {
	x := binary.LittleEndian.Uint64(src)
	for i := 7; i >= 0; i-- {
		x = bits.RotateLeft64(x, -13) ^ c.k[i]
	}
	binary.LittleEndian.PutUint64(dst, x)
}

func round(x, k uint64) uint64 {
	x = x + k // ROUND
	return bits.RotateLeft64(x, 13) ^ k
}

// Stream is a counter-mode keystream of round.
type Stream struct {
	k   [2]uint64
	ctr uint64
}

func NewStream(key, nonce []byte) (*Stream, error) {
	if len(key) != 16 || len(nonce) != 8 {
		return nil, errors.New("arx: key must be 16 bytes, nonce 8")
	}
	s := &Stream{ctr: binary.LittleEndian.Uint64(nonce)}
	s.k[0], s.k[1] = binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[8:])
	return s, nil
}

func (s *Stream) XORKeyStream(dst, src []byte) {
	for i := range src {
		if i%8 == 0 {
			s.ctr = round(round(s.ctr, s.k[0]), s.k[1])
		}
		dst[i] = src[i] ^ byte(s.ctr>>(8*uint(i%8)))
	}
}
`

// sbox is what the table mutation adds to arxSource.
const sbox = `
var sbox = func() (t [256]uint64) {
	for i := range t {
		t[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	return t
}()
`

// arxModule returns the fixture module with arxSource changed by edit.
func arxModule(t *testing.T, edit func(string) string) string {
	return testmod.Temp(t, map[string]string{
		"go.mod":     testmod.GoMod("example.com/arx", "1.16"),
		"arx/arx.go": edit(arxSource),
	})
}

func mustReplace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("fixture has no %q", old)
	}
	return strings.Replace(s, old, new, 1)
}

func check(t *testing.T, base, head string) *record.ConstantTime {
	t.Helper()
	ct, err := Check(context.Background(), Config{Sides: subject.Sides{BaseDir: base, HeadDir: head, Pkg: "./arx"}, Secrets: 4})
	if err != nil {
		t.Fatal(err)
	}
	if ct.Status != record.CTChecked {
		t.Fatalf("status %q (%s), want checked", ct.Status, ct.Reason)
	}
	return ct
}

func op(t *testing.T, ct *record.ConstantTime, ctor, name string) record.CTOperation {
	t.Helper()
	for _, o := range ct.Operations {
		if o.Constructor == ctor && o.Operation == name {
			return o
		}
	}
	t.Fatalf("no operation %s %s in %+v", ctor, name, ct.Operations)
	return record.CTOperation{}
}

// TestMutations checks that the constant-time fixture traces clean, and that the two ways of
// breaking it are caught and fail under fail-new: a table lookup indexed by the data, and a branch
// on a key bit.
func TestMutations(t *testing.T) {
	needValgrind(t)
	if testing.Short() {
		t.Skip("builds and traces three revisions under valgrind")
	}
	base := arxModule(t, func(s string) string { return s })
	table := arxModule(t, func(s string) string {
		return mustReplace(t, s, "x = x + k // ROUND", "x = x + sbox[byte(x)]") + sbox
	})
	// A branch short enough for the compiler to turn into a conditional move would not be one: this
	// is not.
	branch := arxModule(t, func(s string) string {
		return mustReplace(t, s, "x = x + k // ROUND",
			"if k&1 == 1 {\n\t\tx ^= x >> 7\n\t\tx *= 0xff51afd7ed558ccd\n\t\tx ^= x >> 33\n\t}")
	})

	t.Run("table", func(t *testing.T) {
		ct := check(t, base, table)
		for _, name := range []string{"KeySetup", "Encrypt", "Decrypt"} {
			if o := op(t, ct, "NewCipher", name); !o.Base.Clean() {
				t.Errorf("base %s is not clean: %+v", name, o.Base)
			}
		}
		enc := op(t, ct, "NewCipher", "Encrypt")
		if len(enc.Head.Loads) == 0 || len(enc.Head.Branches) != 0 {
			t.Fatalf("head Encrypt: loads %+v, branches %+v; want loads of sbox and no branches",
				enc.Head.Loads, enc.Head.Branches)
		}
		for _, l := range enc.Head.Loads {
			if l.Table != "sbox" || l.TableSize != 2048 || l.Function != "round" && l.Inlined != "round" {
				t.Errorf("load site %+v, want a load of sbox (2048 bytes) in round", l)
			}
		}
		// The stream's keystream is made by round too.
		if xs := op(t, ct, "NewStream", "XORKeyStream"); !xs.Base.Clean() || len(xs.Head.Loads) == 0 ||
			xs.Head.Input != 200 {
			t.Errorf("XORKeyStream: base %+v, head %+v; want base clean, head loading sbox, 200 bytes", xs.Base, xs.Head)
		}
		if dec := op(t, ct, "NewCipher", "Decrypt"); !dec.Head.Clean() {
			t.Errorf("head Decrypt, which the mutation did not touch, is not clean: %+v", dec.Head)
		}
		failed := ct.NewlyNotConstantTime()
		if len(failed) != 2 || failed[0].Operation != "Encrypt" || failed[1].Operation != "XORKeyStream" {
			t.Errorf("fail-new fails %+v, want Encrypt and XORKeyStream (both call round)", failed)
		}
	})
	t.Run("branch", func(t *testing.T) {
		ct := check(t, base, branch)
		enc := op(t, ct, "NewCipher", "Encrypt")
		if len(enc.Head.Branches) == 0 {
			t.Fatalf("head Encrypt shows no branch: %+v", enc.Head)
		}
		t.Logf("head Encrypt branches: %+v", enc.Head.Branches)
		for _, b := range enc.Head.Branches {
			if b.File != "arx.go" || b.Function != "round" && b.Inlined != "round" && b.Function != "(*Cipher).Encrypt" {
				t.Errorf("branch site %+v, want one in arx.go's round (maybe inlined into Encrypt)", b)
			}
		}
		failed := ct.NewlyNotConstantTime()
		if len(failed) != 2 || failed[0].Operation != "Encrypt" || failed[1].Operation != "XORKeyStream" {
			t.Errorf("fail-new fails %+v, want Encrypt and XORKeyStream (both call round)", failed)
		}
	})
}
