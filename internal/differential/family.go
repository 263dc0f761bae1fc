package differential

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// A family is one kind of primitive from discovery to description: how its constructors are
// recognised, the harness code that exercises them, the vectors they are fed, and how the two
// sides' outputs are compared. A new family is a type that implements it, in a file of its own, and
// one line in familyTable.
type family interface {
	kind() record.Family
	// shape says what discovery looks for, for skip reasons: "func(key []byte) (T, error) with T a
	// …".
	shape() string
	// match reports whether fn is a constructor of the family (ok), and when it is one of a shape
	// the check cannot run, why. sig is fn's signature.
	match(fn *types.Func, sig *types.Signature) (c ctor, ok bool, why string)
	// harness is the family's file of the harness (Go that go 1.12 accepts, package main): the
	// functions the entries call.
	harness() string
	// entries returns the harness table entries (harness.Entry expressions) for a constructor of
	// any family: its own, and any it derives (an AEAD from a block cipher through cipher.NewGCM).
	entries(c ctor) []string
	// instances returns what the family compares of a constructor both sides have with the same
	// family.
	instances(b, h *ctor) []instance
	// plan compares what the sides' probes found for in, and returns its Cipher and the jobs to
	// run; no Cipher when there is nothing to report of it.
	plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job)
	// directions names the digests of Cipher.Digests.
	directions() []string
}

// familyTable holds every family, in the order discovery tries them: a type that is both an AEAD
// and a Block is an AEAD.
var familyTable = []family{
	aeadFamily{},
	blockFamily{},
	streamFamily{},
	hashFamily{},
	sumFamily{},
}

// familyOf returns the family named k.
func familyOf(k record.Family) family {
	for _, f := range familyTable {
		if f.kind() == k {
			return f
		}
	}
	panic("differential: no family " + string(k))
}

// shapes names the constructor shapes discovery looks for, for skip reasons and errors.
func shapes() string {
	var s []string
	for _, f := range familyTable {
		s = append(s, f.shape())
	}
	return "looked for " + strings.Join(s, ", ")
}

// An instance is one thing a family compares: a constructor, or one derived from it
// ("NewCipher/GCM").
type instance struct {
	name    string
	family  family
	typ     string   // the result type on head
	ctors   [2]*ctor // the constructor on base and head
	derived bool     // made by the check from a constructor of another family
}

// A job is one instance at one size: its inputs, written to both harnesses, and the comparison of
// what they print.
type job interface {
	ctorName() string
	// encode appends the job to a harness's standard input, after its constructor's name.
	encode(b []byte) []byte
	// compare reads the job's outputs from both sides into t.
	compare(t *tally, base, head *outReader) error
}

// sizeKey is one accepted key size and constructor nonce size.
type sizeKey struct{ key, nonce int }

// method returns a method for an interface written out, so that discovery need not load
// crypto/cipher or hash.
func method(name string, params []*types.Var, results ...types.Type) *types.Func {
	var res []*types.Var
	for _, r := range results {
		res = append(res, types.NewParam(token.NoPos, nil, "", r))
	}
	return types.NewFunc(token.NoPos, nil, name,
		types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), types.NewTuple(res...), false))
}

func byteParams(names ...string) []*types.Var {
	var ps []*types.Var
	for _, n := range names {
		ps = append(ps, types.NewParam(token.NoPos, nil, n, byteSlice))
	}
	return ps
}

var (
	byteSlice = types.NewSlice(types.Typ[types.Byte])
	errorType = types.Universe.Lookup("error").Type()
	intType   = types.Typ[types.Int]
)

// ifaceCtor matches constructors func(key []byte…) returning T or (T, error) with T (or *T, when T
// is a struct value whose methods have pointer receivers) implementing iface; args lists the
// numbers of []byte arguments the family allows and needErr whether it must return an error. t is
// the result type, *T when Addr is set.
func ifaceCtor(fn *types.Func, sig *types.Signature, kind record.Family, iface *types.Interface, args [3]bool,
	needErr bool) (c ctor, t types.Type, ok bool, why string) {
	c = ctor{Name: fn.Name(), Family: kind, Args: sig.Params().Len()}
	switch res := sig.Results(); {
	case res.Len() == 2 && types.Identical(res.At(1).Type(), errorType):
		c.Err = true
	case res.Len() != 1:
		return c, nil, false, ""
	}
	t = sig.Results().At(0).Type()
	c.Type = types.TypeString(t, func(p *types.Package) string { return p.Name() })
	switch {
	case types.Implements(t, iface):
	case !isPointerOrInterface(t) && types.Implements(types.NewPointer(t), iface):
		c.Addr, t = true, types.NewPointer(t)
	default:
		return c, nil, false, ""
	}
	if sig.Variadic() || c.Args > 2 || !allBytes(sig.Params()) || !args[c.Args] || (needErr && !c.Err) {
		return c, t, true, "is a " + string(kind) + " constructor of another shape; " + shapes()
	}
	return c, t, true, ""
}

func allBytes(params *types.Tuple) bool {
	for i := range params.Len() {
		if !types.Identical(params.At(i).Type(), byteSlice) {
			return false
		}
	}
	return true
}

func isPointerOrInterface(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface:
		return true
	}
	return false
}
