package differential

import (
	"context"
	"go/types"
	"sort"

	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// A ctor is a constructor found in one side's package. Its family says what its result T (or *T,
// then Addr is set and the harness takes the address of the value) implements; shapes lists the
// signatures of each family.
type ctor struct {
	Name   string        // e.g. "NewTripleEDE3"
	Family record.Family // FamilyBlock, FamilyAEAD, FamilyStream or FamilyHash
	Type   string        // the result type, package-qualified by name, e.g. "*des.TripleCipher"
	Addr   bool          // T is a struct value whose methods have pointer receivers
	// how many []byte arguments it takes: 0 (a hash), 1 (key) or 2 (key, nonce)
	Args int
	Err  bool // it returns (T, error), not T alone
	// block ciphers: exported methods func(dst, src []byte) named Encrypt…/Decrypt…, but those two
	Batch []string
	Sum   sumShape // one-shot functions: where the message, key and digest go
	// An oracle's entry: Alias is the harness's import of its package, Func the function; Name is
	// then oraclePrefix and the constructor it is the oracle of. Emulate: the batch methods are the
	// ones of that constructor, run through the oracle's single-block methods.
	Alias, Func string
	Emulate     bool
}

// pkgInfo is what discovery found on one side.
type pkgInfo struct {
	ImportPath string
	Dir        string // the package's directory (absolute)
	Ctors      []ctor // sorted by name, every family
	// explicitly named constructors that are missing or have another shape, with the reason
	Skipped []string
	// a command (package main): nothing in it can be imported, so it has no constructors
	Main    bool
	Oracles []ctor   // head only: the oracles of Config.Oracles, by the constructor's name
	Imports []string // the packages of the oracles, imported as oracle0, oracle1, …
}

// call is the expression of c's function in the harness: gated.NewCipher,
// oracle0.NewTripleDESCipher.
func (c ctor) call() string {
	if c.Alias == "" {
		return "gated." + c.Name
	}
	return c.Alias + "." + c.Func
}

// discover loads the package pattern in the module at dir and returns its constructors. With names
// set, only those constructors are considered; one that is missing or has another shape is listed
// in Skipped with the reason. env is added to the go command's environment, as proc.Command adds
// it.
func discover(ctx context.Context, dir, pattern string, flags, env, names []string) (*pkgInfo, error) {
	p, err := subject.Load(ctx, dir, pattern, flags, env)
	if err != nil {
		return nil, err
	}
	info := &pkgInfo{ImportPath: p.ImportPath, Dir: p.Dir, Main: p.Name == "main"}
	if info.Main {
		return info, nil
	}
	scope := p.Types.Scope()
	explicit := len(names) > 0
	if !explicit {
		names = scope.Names() // sorted
	}
	for _, name := range names {
		fn, ok := scope.Lookup(name).(*types.Func)
		if !ok || !fn.Exported() {
			if explicit {
				info.Skipped = append(info.Skipped, name+": not an exported function of "+p.ImportPath)
			}
			continue
		}
		c, why := asCtor(fn)
		if why != "" {
			if explicit {
				info.Skipped = append(info.Skipped, name+": "+why)
			}
			continue
		}
		info.Ctors = append(info.Ctors, c)
	}
	sort.Slice(info.Ctors, func(i, j int) bool { return info.Ctors[i].Name < info.Ctors[j].Name })
	return info, nil
}

// asCtor reports whether fn has one of the shapes of a constructor (see shapes), and returns the
// constructor, or the reason it is not one.
func asCtor(fn *types.Func) (ctor, string) {
	sig := fn.Type().(*types.Signature)
	switch {
	case sig.Recv() != nil:
		return ctor{}, "is a method"
	case sig.TypeParams().Len() > 0:
		return ctor{}, "is generic"
	}
	for _, f := range familyTable {
		if c, ok, why := f.match(fn, sig); ok {
			return c, why
		}
	}
	return ctor{}, "has none of the shapes of a constructor; " + shapes()
}

// A Constructor is what discovery makes of an exported function of a gated package.
type Constructor struct {
	Name   string
	Family record.Family
	Args   int      // how many []byte arguments it takes: 0 (a hash), 1 (key) or 2 (key, nonce)
	Err    bool     // it returns (T, error), not T alone
	Addr   bool     // T is a struct value whose methods have pointer receivers
	Batch  []string // block ciphers: the batch methods, sorted (EncryptBlocks…)
}

// MatchConstructor reports whether fn is a constructor of a shape the check runs, of one of the
// families (block cipher, AEAD, stream cipher, hash, one-shot function), and which: the matching of
// discovery, for other packages that call the same constructors.
func MatchConstructor(fn *types.Func) (Constructor, bool) {
	c, why := asCtor(fn)
	if why != "" || c.Family == "" {
		return Constructor{}, false
	}
	return Constructor{Name: c.Name, Family: c.Family, Args: c.Args, Err: c.Err, Addr: c.Addr, Batch: c.Batch}, true
}
