package consttime

import (
	"context"
	"go/types"

	"github.com/perfgate/perfgate/internal/differential"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// A target is one constructor the driver calls, with the methods of its result that are traced.
type target struct {
	Name   string        // e.g. "NewTripleEDE3"
	Family record.Family // block, aead or stream
	Nonce  bool          // a stream constructor taking (key, nonce)
	Err    bool          // it returns (T, error)
	// block ciphers: methods func(dst, src []byte) named Encrypt…/Decrypt…, but not those two
	Batches []string
	Sum     *sumCall // keyed one-shot functions (family sum): how the driver calls it
}

// pkgTargets is what discovery found in one side's package.
type pkgTargets struct {
	ImportPath string
	Dir        string
	Targets    []target // sorted by name
}

// discoverTargets loads pattern in the module at dir and returns the constructors of the families
// traced: block ciphers and AEADs func(key []byte) (T, error), stream ciphers func(key[, nonce]
// []byte) T or (T, error).
func discoverTargets(ctx context.Context, dir, pattern string, flags, env []string) (*pkgTargets, error) {
	p, err := subject.Load(ctx, dir, pattern, flags, env)
	if err != nil {
		return nil, err
	}
	out := &pkgTargets{ImportPath: p.ImportPath, Dir: p.Dir}
	if p.Name == "main" {
		return out, nil
	}
	for _, name := range p.Types.Scope().Names() {
		fn, ok := p.Types.Scope().Lookup(name).(*types.Func)
		if !ok || !fn.Exported() {
			continue
		}
		if t, ok := asTarget(fn); ok {
			out.Targets = append(out.Targets, t)
		}
	}
	return out, nil
}

// asTarget returns the target fn is, if differential's discovery makes a constructor of a traced
// family of it (a block cipher, an AEAD or a stream cipher) whose result is a pointer or an
// interface, or a keyed hash or MAC (keyedTarget).
func asTarget(fn *types.Func) (target, bool) {
	c, ok := differential.MatchConstructor(fn)
	t := target{Name: fn.Name(), Family: c.Family, Nonce: c.Args == 2, Err: c.Err, Batches: c.Batch}
	switch {
	case !ok, c.Addr: // a struct value: its methods may need an address the driver does not take
		return t, false
	case c.Family == record.FamilyBlock, c.Family == record.FamilyAEAD, c.Family == record.FamilyStream:
		return t, true
	}
	return keyedTarget(fn, t, c)
}
