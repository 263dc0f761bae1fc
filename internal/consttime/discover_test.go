package consttime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/record"
)

// targetsSource has one function of each shape asTarget tells apart.
const targetsSource = `package p

type B struct{}

func (*B) BlockSize() int              { return 8 }
func (*B) Encrypt(dst, src []byte)       {}
func (*B) Decrypt(dst, src []byte)       {}
func (*B) EncryptBlocks(dst, src []byte) {}

type S struct{}

func (*S) XORKeyStream(dst, src []byte) {}

type H struct{}

func (*H) Write(p []byte) (int, error) { return 0, nil }
func (*H) Sum(b []byte) []byte         { return b }
func (*H) Reset()                      {}
func (*H) Size() int                   { return 0 }
func (*H) BlockSize() int              { return 0 }

func NewBlock(key []byte) (*B, error)        { return nil, nil }
func NewStream(key, nonce []byte) *S         { return nil }
func NewValue(key []byte) S                  { return S{} }
func NewNoError(key []byte) *B               { return nil }
func NewHash() *H                            { return nil }
func Helper(key []byte) ([]byte, error)      { return key, nil }
`

// TestAsTarget checks that the targets are differential's constructors of the traced families, less
// the struct values whose methods need an address.
func TestAsTarget(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", targetsSource, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, nil)
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
		"NewBlock":  {Name: "NewBlock", Family: record.FamilyBlock, Err: true, Batches: []string{"EncryptBlocks"}},
		"NewStream": {Name: "NewStream", Family: record.FamilyStream, Nonce: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}
