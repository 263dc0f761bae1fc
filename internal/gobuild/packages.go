package gobuild

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/proc"
)

// ListPackages runs go list on patterns in cfg.Dir (the module root) with Build's flags and
// environment, and reads the test files of every package it matched for their benchmark functions.
// Packages come in go list's order (sorted by import path), each once.
func ListPackages(ctx context.Context, cfg Config, patterns []string) ([]bench.Package, error) {
	argv := append([]string{"go", "list", "-f",
		`{{.ImportPath}}{{"\t"}}{{.Name}}{{"\t"}}{{.Dir}}{{"\t"}}{{join .TestGoFiles ","}}` +
			`{{"\t"}}{{join .XTestGoFiles ","}}`},
		buildFlags(cfg)...)
	argv = append(argv, patterns...)
	ctx, cancel := cfg.limit(ctx)
	defer cancel()
	stdout, _, err := proc.Run(proc.Command(ctx, cfg.Dir, buildEnv(cfg), argv...))
	if err != nil {
		return nil, fmt.Errorf("listing packages %s: %w", strings.Join(patterns, " "), err)
	}
	root, err := filepath.EvalSymlinks(cfg.Dir)
	if err != nil {
		return nil, err
	}
	var out []bench.Package
	seen := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimRight(string(stdout), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("listing packages: unexpected go list output %q", line)
		}
		if seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		dir, err := filepath.EvalSymlinks(f[2])
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("listing packages: %s is outside the module at %s", f[0], cfg.Dir)
		}
		pkg := bench.Package{PackageInfo: bench.PackageInfo{ImportPath: f[0], Name: f[1], Dir: f[2]}, Rel: "./" + filepath.ToSlash(rel)}
		if rel == "." {
			pkg.Rel = "."
		}
		for _, list := range f[3:] {
			for name := range strings.SplitSeq(list, ",") {
				if name == "" {
					continue
				}
				pkg.HasTests = true
				names, err := benchmarkFuncs(filepath.Join(f[2], name))
				if err != nil {
					return nil, fmt.Errorf("reading %s: %w", pkg.Rel, err)
				}
				pkg.Benchmarks = append(pkg.Benchmarks, names...)
			}
		}
		out = append(out, pkg)
	}
	return out, nil
}

// benchmarkFuncs returns the names, without "Benchmark", of the benchmark functions in the Go file
// at path: the functions the testing package runs, BenchmarkXxx(b *testing.B) with Xxx empty or not
// starting with a lowercase letter.
func benchmarkFuncs(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Benchmark") || fn.Type.Params.NumFields() != 1 {
			continue
		}
		rest := strings.TrimPrefix(fn.Name.Name, "Benchmark")
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && unicode.IsLower(r) {
			continue
		}
		out = append(out, rest)
	}
	return out, nil
}

// ModuleDeps returns the directories, relative to cfg.Root (else cfg.Dir), of the packages of the
// main module that package pkg and its tests depend on, itself included, and the main module's root
// directory: go list -deps -test in cfg.Dir, keeping the main module's packages.
func ModuleDeps(ctx context.Context, cfg Config, pkg string) ([]string, error) {
	argv := append([]string{"go", "list", "-deps", "-test", "-f",
		`{{.Dir}}{{"\t"}}{{with .Module}}{{.Main}}{{"\t"}}{{.Dir}}{{end}}`}, buildFlags(cfg)...)
	argv = append(argv, pkg)
	ctx, cancel := cfg.limit(ctx)
	defer cancel()
	stdout, _, err := proc.Run(proc.Command(ctx, cfg.Dir, buildEnv(cfg), argv...))
	if err != nil {
		return nil, fmt.Errorf("listing the dependencies of %s: %w", pkg, err)
	}
	top := cfg.Root
	if top == "" {
		top = cfg.Dir
	}
	root, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for line := range strings.SplitSeq(strings.TrimRight(string(stdout), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[1] != "true" {
			continue
		}
		// the package, and its module's root (go.mod, go.sum)
		for _, dir := range []string{f[0], f[2]} {
			if dir == "" {
				continue
			}
			if d, err := filepath.EvalSymlinks(dir); err == nil {
				dir = d
			}
			rel, err := filepath.Rel(root, dir)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || seen[rel] {
				continue
			}
			seen[rel] = true
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out, nil
}
