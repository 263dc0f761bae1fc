package consttime

import (
	"context"
	"go/types"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/differential"
	"github.com/perfgate/perfgate/record"
)

// A target is one constructor the driver calls, with the methods of its result that are traced.
type target struct {
	Name    string        // e.g. "NewTripleEDE3"
	Family  record.Family // block, aead or stream
	Nonce   bool          // a stream constructor taking (key, nonce)
	Err     bool          // it returns (T, error)
	Batches []string      // block ciphers: methods func(dst, src []byte) named Encrypt…/Decrypt…, but not those two
}

// pkgTargets is what discovery found in one side's package.
type pkgTargets struct {
	ImportPath string
	Dir        string
	Targets    []target // sorted by name
}

// methodShapes are the methods, as shape returns them, a result must have to be of a family.
var methodShapes = map[record.Family]map[string]string{
	record.FamilyBlock: {
		"BlockSize": "()(int)", "Encrypt": "([]byte,[]byte)()", "Decrypt": "([]byte,[]byte)()",
	},
	record.FamilyAEAD: {
		"NonceSize": "()(int)", "Overhead": "()(int)",
		"Seal": "([]byte,[]byte,[]byte,[]byte)([]byte)", "Open": "([]byte,[]byte,[]byte,[]byte)([]byte,error)",
	},
	record.FamilyStream: {"XORKeyStream": "([]byte,[]byte)()"},
}

// shape writes a signature's parameter and result types without names: "([]byte,[]byte)()".
func shape(sig *types.Signature) string {
	list := func(t *types.Tuple) string {
		var s []string
		for i := 0; i < t.Len(); i++ {
			s = append(s, types.TypeString(t.At(i).Type(), nil))
		}
		return "(" + strings.Join(s, ",") + ")"
	}
	if sig.Variadic() {
		return "variadic"
	}
	return list(sig.Params()) + list(sig.Results())
}

// discoverTargets loads pattern in the module at dir and returns the constructors of the families traced: block
// ciphers and AEADs func(key []byte) (T, error), stream ciphers func(key[, nonce] []byte) T or (T, error).
func discoverTargets(ctx context.Context, dir, pattern string, flags, env []string) (*pkgTargets, error) {
	importPath, pkgDir, name, tpkg, err := differential.LoadPackage(ctx, dir, pattern, flags, env)
	if err != nil {
		return nil, err
	}
	out := &pkgTargets{ImportPath: importPath, Dir: pkgDir}
	if name == "main" {
		return out, nil
	}
	for _, name := range tpkg.Scope().Names() {
		fn, ok := tpkg.Scope().Lookup(name).(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		if t, ok := asTarget(fn); ok {
			out.Targets = append(out.Targets, t)
		}
	}
	return out, nil
}

// asTarget returns the target fn is, if its signature is a constructor's.
func asTarget(fn *types.Func) (target, bool) {
	sig := fn.Type().(*types.Signature)
	s := shape(sig)
	t := target{Name: fn.Name()}
	res := sig.Results()
	switch {
	case sig.TypeParams().Len() > 0, res.Len() < 1:
		return t, false
	case strings.HasPrefix(s, "([]byte)(") || strings.HasPrefix(s, "([]byte,[]byte)("):
		t.Nonce = strings.HasPrefix(s, "([]byte,[]byte)(")
	default:
		return t, false
	}
	rt := res.At(0).Type()
	switch rest := s[strings.Index(s, ")(")+1:]; {
	case rest == "("+types.TypeString(rt, nil)+",error)":
		t.Err = true
	case res.Len() != 1:
		return t, false
	}
	if _, ok := rt.Underlying().(*types.Pointer); !ok {
		if _, ok := rt.Underlying().(*types.Interface); !ok {
			return t, false // a struct value: its methods may need an address the driver does not take
		}
	}
	ms := types.NewMethodSet(rt)
	for _, fam := range []record.Family{record.FamilyAEAD, record.FamilyBlock, record.FamilyStream} {
		if hasMethods(ms, methodShapes[fam]) {
			t.Family = fam
			break
		}
	}
	switch {
	case t.Family == "":
		return t, false
	case t.Family != record.FamilyStream && (t.Nonce || !t.Err):
		return t, false
	case t.Family == record.FamilyBlock:
		t.Batches = batchMethods(ms)
	}
	return t, true
}

func hasMethods(ms *types.MethodSet, want map[string]string) bool {
	for name, sh := range want {
		sel := lookup(ms, name)
		if sel == nil || shape(sel.Type().(*types.Signature)) != sh {
			return false
		}
	}
	return true
}

func lookup(ms *types.MethodSet, name string) *types.Func {
	for i := 0; i < ms.Len(); i++ {
		if f, ok := ms.At(i).Obj().(*types.Func); ok && f.Name() == name {
			return f
		}
	}
	return nil
}

// batchMethods returns the exported methods func(dst, src []byte) named Encrypt… or Decrypt… other than Encrypt
// and Decrypt, sorted.
func batchMethods(ms *types.MethodSet) []string {
	var out []string
	for i := 0; i < ms.Len(); i++ {
		f, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !f.Exported() || f.Name() == "Encrypt" || f.Name() == "Decrypt" {
			continue
		}
		dir := strings.HasPrefix(f.Name(), "Encrypt") || strings.HasPrefix(f.Name(), "Decrypt")
		if dir && shape(f.Type().(*types.Signature)) == "([]byte,[]byte)()" {
			out = append(out, f.Name())
		}
	}
	sort.Strings(out)
	return out
}
