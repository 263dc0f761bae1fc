package consttime

import (
	"context"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// macSource holds keyed hashes and MACs of each shape the check traces: a hash.Hash64 whose state
// indexes a table (leaks the key by cache line), a SipHash-like add-rotate-xor hash.Hash64 behind
// (T, error) (constant time), a one-shot MAC with out and key array pointers that looks up the same
// table, and an add-rotate-xor one-shot Sum64(msg, key []byte). Unkeyed, Digest is no target. The
// module says go 1.16.
const macSource = `package mac

import (
	"encoding/binary"
	"errors"
	"hash"
	"math/bits"
)

var sbox = func() (t [256]uint64) {
	for i := range t {
		t[i] = uint64(i)*0x9e3779b97f4a7c15 ^ uint64(i)<<32
	}
	return t
}()

type table struct{ k, s uint64 }

// New is a table-driven keyed hash: each byte goes through sbox at an index the key moves.
func New(key []byte) hash.Hash64 {
	if len(key) != 16 {
		panic("mac: key must be 16 bytes")
	}
	t := &table{k: binary.LittleEndian.Uint64(key) ^ binary.LittleEndian.Uint64(key[8:])}
	t.Reset()
	return t
}

func (t *table) Write(p []byte) (int, error) {
	for _, b := range p {
		t.s = bits.RotateLeft64(t.s, 8) ^ sbox[byte(t.s)^b]
	}
	return len(p), nil
}
func (t *table) Sum64() uint64  { return t.s }
func (t *table) Reset()         { t.s = t.k }
func (t *table) Size() int      { return 8 }
func (t *table) BlockSize() int { return 1 }
func (t *table) Sum(b []byte) []byte {
	var out [8]byte
	binary.LittleEndian.PutUint64(out[:], t.s)
	return append(b, out[:]...)
}

type sip struct{ k0, k1, v0, v1 uint64 }

// NewSip is an add-rotate-xor keyed hash: nothing depends on the key but the values.
func NewSip(key []byte) (hash.Hash64, error) {
	if len(key) != 16 {
		return nil, errors.New("mac: key must be 16 bytes")
	}
	s := &sip{k0: binary.LittleEndian.Uint64(key), k1: binary.LittleEndian.Uint64(key[8:])}
	s.Reset()
	return s, nil
}

func (s *sip) Write(p []byte) (int, error) {
	for _, b := range p {
		s.v0 += s.v1 ^ uint64(b)
		s.v1 = bits.RotateLeft64(s.v1, 13) ^ s.v0
		s.v0 = bits.RotateLeft64(s.v0, 32)
	}
	return len(p), nil
}
func (s *sip) Sum64() uint64  { return s.v0 ^ s.v1 }
func (s *sip) Reset()         { s.v0, s.v1 = s.k0, s.k1 }
func (s *sip) Size() int      { return 8 }
func (s *sip) BlockSize() int { return 8 }
func (s *sip) Sum(b []byte) []byte {
	var out [8]byte
	binary.LittleEndian.PutUint64(out[:], s.Sum64())
	return append(b, out[:]...)
}

// Sum is a one-shot table MAC, as poly1305.Sum is shaped.
func Sum(out *[8]byte, m []byte, key *[16]byte) {
	t := New(key[:])
	t.Write(m)
	binary.LittleEndian.PutUint64(out[:], t.Sum64())
}

// Sum64 is a one-shot add-rotate-xor MAC with a slice key.
func Sum64(msg, key []byte) uint64 {
	s, err := NewSip(key)
	if err != nil {
		panic(err)
	}
	s.Write(msg)
	return s.Sum64()
}

// Digest is unkeyed: no secret.
func Digest(msg []byte) uint64 {
	var h uint64
	for _, b := range msg {
		h = bits.RotateLeft64(h, 5) ^ uint64(b)
	}
	return h
}
`

// TestKeyedTargets checks discovery and the driver's calls of keyed hashes and one-shot MACs,
// without tracing.
func TestKeyedTargets(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "mac.go", macSource, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("example.com/mac", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]target{}
	for _, name := range pkg.Scope().Names() {
		if fn, ok := pkg.Scope().Lookup(name).(*types.Func); ok {
			if tg, ok := asTarget(fn); ok {
				got[name] = tg
			}
		}
	}
	want := map[string]target{
		"New":    {Name: "New", Family: record.FamilyHash},
		"NewSip": {Name: "NewSip", Family: record.FamilyHash, Err: true},
		"Sum": {Name: "Sum", Family: record.FamilySum, Sum: &sumCall{KeyArray: 16,
			Code: "var a0 [8]byte\nvar a2 [16]byte\ncopy(a2[:], key)\ngated.Sum(&a0, msg, &a2)\ncopy(dst, a0[:])"}},
		"Sum64": {Name: "Sum64", Family: record.FamilySum, Sum: &sumCall{
			Code: "r := gated.Sum64(msg, key)\ndst[0] = byte(r)"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if _, err := driverSource(&pkgTargets{ImportPath: "example.com/mac", Targets: []target{got["New"], got["Sum"],
		got["Sum64"], got["NewSip"]}}); err != nil {
		t.Errorf("the driver does not format: %v", err)
	}
}

// TestKeyedTrace traces the fixture's MACs: the table ones load sbox by key-dependent indexes, the
// add-rotate-xor ones neither branch on nor index by the key.
func TestKeyedTrace(t *testing.T) {
	needValgrind(t)
	if testing.Short() {
		t.Skip("builds and traces a module under valgrind")
	}
	dir := testmod.Temp(t, map[string]string{
		"go.mod":     testmod.GoMod("example.com/mac", "1.16"),
		"mac/mac.go": macSource,
	})
	ct, err := Check(context.Background(), Config{Sides: subject.Sides{BaseDir: dir, HeadDir: dir, Pkg: "./mac",
		Log: testLog{t}}, Secrets: 4})
	if err != nil {
		t.Fatal(err)
	}
	if ct.Status != record.CTChecked {
		t.Fatalf("status %q (%s), want checked", ct.Status, ct.Reason)
	}
	var ops []string
	for _, o := range ct.Operations {
		ops = append(ops, o.Constructor+" "+o.Operation)
	}
	wantOps := []string{"New KeySetup", "New Sum", "NewSip KeySetup", "NewSip Sum", "Sum Sum", "Sum64 Sum"}
	if diff := cmp.Diff(wantOps, ops); diff != "" {
		t.Fatalf("operations (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ ctor string }{{"New"}, {"Sum"}} {
		o := op(t, ct, c.ctor, "Sum")
		if len(o.Head.Loads) == 0 {
			t.Errorf("%s Sum: no secret-indexed load, want loads of sbox", c.ctor)
		}
		for _, l := range o.Head.Loads {
			if l.Table != "sbox" || l.TableSize != 2048 {
				t.Errorf("%s Sum: site %+v, want a load of sbox (2048 bytes)", c.ctor, l)
			}
		}
		t.Logf("%s Sum: %d sites, up to %d lines per lookup", c.ctor, len(o.Head.Loads), o.Head.MaxLinesPerLookup())
	}
	for _, name := range []string{"NewSip KeySetup", "NewSip Sum", "Sum64 Sum", "New KeySetup"} {
		for _, o := range ct.Operations {
			if o.Constructor+" "+o.Operation == name && !o.Head.Clean() {
				t.Errorf("%s is not clean: %+v", name, o.Head)
			}
		}
	}
}
