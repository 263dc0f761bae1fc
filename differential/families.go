package differential

import (
	"go/token"
	"go/types"

	"github.com/perfgate/perfgate/record"
)

// Family is the kind of primitive a constructor returns (record.Family).
type Family = record.Family

// Families of constructors, the values of Cipher.Family.
const (
	FamilyBlock  = record.FamilyBlock
	FamilyAEAD   = record.FamilyAEAD
	FamilyStream = record.FamilyStream
	FamilyHash   = record.FamilyHash
)

// shapes names the constructor shapes discovery looks for, for skip reasons and errors.
const shapes = "looked for func(key []byte) (T, error) with T a crypto/cipher.Block or crypto/cipher.AEAD, " +
	"func(key[, nonce] []byte) T or (T, error) with T a crypto/cipher.Stream, " +
	"and func([key []byte]) T or (T, error) with T a hash.Hash"

// familyNames names the interfaces of the four families, for the one-line skip reason of a package without
// constructors (shapes gives the signatures, for errors about a named constructor).
const familyNames = "crypto/cipher.Block, crypto/cipher.AEAD, crypto/cipher.Stream or hash.Hash"

// A family is the interface a constructor's result implements and the []byte arguments it may take.
type family struct {
	name  Family
	iface *types.Interface
	args  [3]bool // allowed numbers of []byte arguments
}

// families, in the order discovery tries them: a type that is both an AEAD and a Block is an AEAD.
var families = []*family{
	{FamilyAEAD, aeadIface, [3]bool{1: true}},
	{FamilyBlock, blockIface, [3]bool{1: true}},
	{FamilyStream, streamIface, [3]bool{1: true, 2: true}},
	{FamilyHash, hashIface, [3]bool{0: true, 1: true}},
}

// method returns a method for an interface written out, so that discovery need not load crypto/cipher or hash.
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
	intType = types.Typ[types.Int]
	// aeadIface is crypto/cipher.AEAD.
	aeadIface = types.NewInterfaceType([]*types.Func{
		method("NonceSize", nil, intType),
		method("Open", byteParams("dst", "nonce", "ciphertext", "additionalData"), byteSlice, errorType),
		method("Overhead", nil, intType),
		method("Seal", byteParams("dst", "nonce", "plaintext", "additionalData"), byteSlice),
	}, nil).Complete()
	// streamIface is crypto/cipher.Stream.
	streamIface = types.NewInterfaceType([]*types.Func{
		method("XORKeyStream", byteParams("dst", "src")),
	}, nil).Complete()
	// hashIface is hash.Hash.
	hashIface = types.NewInterfaceType([]*types.Func{
		method("BlockSize", nil, intType),
		method("Reset", nil),
		method("Size", nil, intType),
		method("Sum", byteParams("b"), byteSlice),
		method("Write", byteParams("p"), intType, errorType),
	}, nil).Complete()
)
