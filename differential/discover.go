package differential

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/tools/go/gcexportdata"
)

// A ctor is a constructor found in one side's package. Its family says what its result T (or *T, then Addr is
// set and the harness takes the address of the value) implements; shapes lists the signatures of each family.
type ctor struct {
	Name   string        // e.g. "NewTripleEDE3"
	Family record.Family // FamilyBlock, FamilyAEAD, FamilyStream or FamilyHash
	Type   string        // the result type, package-qualified by name, e.g. "*des.TripleCipher"
	Addr   bool          // T is a struct value whose methods have pointer receivers
	Args   int           // how many []byte arguments it takes: 0 (a hash), 1 (key) or 2 (key, nonce)
	Err    bool          // it returns (T, error), not T alone
	Batch  []string      // block ciphers: exported methods func(dst, src []byte) named Encrypt…/Decrypt…, but those two
	Sum    sumShape      // one-shot functions: where the message, key and digest go
	// An oracle's entry: Alias is the harness's import of its package, Func the function; Name is then
	// oraclePrefix and the constructor it is the oracle of. Emulate: the batch methods are the ones of that
	// constructor, run through the oracle's single-block methods.
	Alias, Func string
	Emulate     bool
}

// pkgInfo is what discovery found on one side.
type pkgInfo struct {
	ImportPath string
	Dir        string   // the package's directory (absolute)
	Ctors      []ctor   // sorted by name, every family
	Skipped    []string // explicitly named constructors that are missing or have another shape, with the reason
	Main       bool     // a command (package main): nothing in it can be imported, so it has no constructors
	Oracles    []ctor   // head only: the oracles of Config.Oracles, by the constructor's name
	Imports    []string // the packages of the oracles, imported as oracle0, oracle1, …
}

// call is the expression of c's function in the harness: gated.NewCipher, oracle0.NewTripleDESCipher.
func (c ctor) call() string {
	if c.Alias == "" {
		return "gated." + c.Name
	}
	return c.Alias + "." + c.Func
}

// discover loads the package pattern in the module at dir and returns its constructors. With names set, only
// those constructors are considered; one that is missing or has another shape is listed in Skipped with the
// reason. env is added to the go command's environment, as proc.Command adds it.
func discover(ctx context.Context, dir, pattern string, flags, env, names []string) (*pkgInfo, error) {
	p, err := listExport(ctx, dir, pattern, flags, env)
	if err != nil {
		return nil, err
	}
	info := &pkgInfo{ImportPath: p.ImportPath, Dir: p.Dir, Main: p.Name == "main"}
	if info.Main {
		return info, nil
	}
	tpkg, err := readExport(p)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", pattern, err)
	}
	scope := tpkg.Scope()
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

// asCtor reports whether fn has one of the shapes of a constructor (see shapes), and returns the constructor, or
// the reason it is not one.
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

// MatchConstructor reports whether fn is a constructor of a shape the check runs, of one of the families
// (block cipher, AEAD, stream cipher, hash, one-shot function), and which: the matching of discovery, for other
// packages that call the same constructors.
func MatchConstructor(fn *types.Func) (Constructor, bool) {
	c, why := asCtor(fn)
	if why != "" || c.Family == "" {
		return Constructor{}, false
	}
	return Constructor{Name: c.Name, Family: c.Family, Args: c.Args, Err: c.Err, Addr: c.Addr, Batch: c.Batch}, true
}

// listed is what go list -export -json says about one package.
type listed struct {
	ImportPath, Name, Dir, Export string
	GoFiles                       []string
	Error                         *struct{ Err string }
	DepsErrors                    []*struct{ Err string }
}

// listExport runs go list -export on pattern, through proc so that the go command and what it starts are tracked
// and die with it, and returns the one package it matches, compiled: its Export file holds the type information.
func listExport(ctx context.Context, dir, pattern string, flags, env []string) (*listed, error) {
	argv := append([]string{"go", "list", "-e", "-export", "-json=ImportPath,Name,Dir,Export,GoFiles,Error,DepsErrors"},
		flags...)
	argv = append(argv, pattern)
	out, _, err := proc.Run(proc.Command(ctx, dir, env, argv...))
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", pattern, err)
	}
	var pkgs []*listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("loading %s: reading go list's output: %w", pattern, err)
		}
		pkgs = append(pkgs, &p)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("loading %s: pattern matches %d packages, want 1", pattern, len(pkgs))
	}
	p := pkgs[0]
	var msgs []string
	if p.Error != nil {
		msgs = append(msgs, p.Error.Err)
	}
	for _, e := range p.DepsErrors {
		msgs = append(msgs, e.Err)
	}
	if len(msgs) > 0 {
		return nil, fmt.Errorf("loading %s: %s", pattern, strings.Join(msgs, "; "))
	}
	if len(p.GoFiles) == 0 {
		return nil, fmt.Errorf("loading %s: no Go files", pattern)
	}
	if p.Name != "main" && p.Export == "" {
		return nil, fmt.Errorf("loading %s: go list gave no export data", pattern)
	}
	return p, nil
}

// readExport reads the package's types from the export data the compiler wrote, which describes the package
// completely (the declarations of the dependencies' types it uses included).
func readExport(p *listed) (*types.Package, error) {
	f, err := os.Open(p.Export)
	if err != nil {
		return nil, fmt.Errorf("reading export data: %w", err)
	}
	defer f.Close()
	r, err := gcexportdata.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("reading export data of %s: %w", p.ImportPath, err)
	}
	tpkg, err := gcexportdata.Read(r, token.NewFileSet(), map[string]*types.Package{}, p.ImportPath)
	if err != nil {
		return nil, fmt.Errorf("reading export data of %s: %w", p.ImportPath, err)
	}
	return tpkg, nil
}

// LoadPackage loads the one package pattern names in the module at dir, as the check does: go list -export
// through internal/proc (so that the go command and what it starts are tracked and die with perfgate), then the
// package's types from the export data. It returns the package's import path, directory and name, and its types
// (nil for a command, package main). env is added to the go command's environment.
func LoadPackage(ctx context.Context, dir, pattern string, flags, env []string) (importPath, pkgDir, name string,
	tpkg *types.Package, err error) {
	p, err := listExport(ctx, dir, pattern, flags, env)
	if err != nil {
		return "", "", "", nil, err
	}
	if p.Name == "main" {
		return p.ImportPath, p.Dir, p.Name, nil, nil
	}
	if tpkg, err = readExport(p); err != nil {
		return "", "", "", nil, fmt.Errorf("loading %s: %w", pattern, err)
	}
	return p.ImportPath, p.Dir, p.Name, tpkg, nil
}
