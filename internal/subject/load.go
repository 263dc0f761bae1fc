// Package subject is the gated package as the checks that build code inside it see it (package
// differential's harness, package consttime's driver): its two trees (Resolve) and its exported
// API, loaded from the compiler's export data (Load), where both checks look for its constructors.
package subject

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
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/gcexportdata"

	"github.com/perfgate/perfgate/internal/proc"
)

// Resolve checks that the base and head directories are given, makes them absolute, and defaults
// the package to ".": what every check of two sides (package differential's, package consttime's)
// starts with.
func Resolve(baseDir, headDir, pkg *string) error {
	if *baseDir == "" || *headDir == "" {
		return errors.New("BaseDir and HeadDir are required")
	}
	for _, d := range []*string{baseDir, headDir} {
		abs, err := filepath.Abs(*d)
		if err != nil {
			return err
		}
		*d = abs
	}
	if *pkg == "" {
		*pkg = "."
	}
	return nil
}

// listed is what go list -export -json says about one package.
type listed struct {
	ImportPath, Name, Dir, Export string
	GoFiles                       []string
	Error                         *struct{ Err string }
	DepsErrors                    []*struct{ Err string }
}

// listExport runs go list -export on pattern, through proc so that the go command and what it
// starts are tracked and die with it, and returns the one package it matches, compiled: its Export
// file holds the type information.
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

// readExport reads the package's types from the export data the compiler wrote, which describes the
// package completely (the declarations of the dependencies' types it uses included).
func readExport(p *listed) (*types.Package, error) {
	f, err := os.Open(p.Export)
	if err != nil {
		return nil, fmt.Errorf("reading export data: %w", err)
	}
	defer f.Close()
	//lint:ignore SA1019 go list -export may still hand us an archive; Read alone cannot open one.
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

// Package is one loaded package: where it is, and its exported API.
type Package struct {
	ImportPath string
	Dir        string // the package's directory (absolute)
	Name       string
	Types      *types.Package // nil for a command (package main), whose API nothing can import
}

// Load loads the one package pattern names in the module at dir, as the checks do: go list -export
// through internal/proc (so that the go command and what it starts are tracked and die with
// perfgate), then the package's types from the export data. flags are the go command's build flags;
// env is added to its environment.
func Load(ctx context.Context, dir, pattern string, flags, env []string) (*Package, error) {
	p, err := listExport(ctx, dir, pattern, flags, env)
	if err != nil {
		return nil, err
	}
	out := &Package{ImportPath: p.ImportPath, Dir: p.Dir, Name: p.Name}
	if p.Name == "main" {
		return out, nil
	}
	if out.Types, err = readExport(p); err != nil {
		return nil, fmt.Errorf("loading %s: %w", pattern, err)
	}
	return out, nil
}
