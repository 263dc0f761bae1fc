package gobuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Like-for-like benchmark code.
//
// A pull request that edits a benchmark (its input size, its loop) changes what is timed, not how
// fast the code is. So when head's _test.go files differ from base's, perfgate builds a third
// binary: base's package with head's test files, through the go command's -overlay (TestOverlay),
// and times it against head's binary, so that both sides run the same benchmark code. When head's
// test files do not compile against base's package (they call something base lacks), each side runs
// its own, and ChangedBenchmarks names the benchmarks whose code differs.

// TestFiles returns the _test.go files directly in dir, by file name.
func TestFiles(dir string) (map[string][]byte, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading test files: %w", err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), "_test.go") {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("reading test files: %w", err)
			}
			out[e.Name()] = data
		}
	}
	return out, nil
}

// SameFiles reports whether a and b hold the same files with the same contents.
func SameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for name, data := range a {
		if other, ok := b[name]; !ok || !bytes.Equal(data, other) {
			return false
		}
	}
	return true
}

// TestOverlay writes to path a go command overlay (go build -overlay=path) under which the package
// in baseDir has headDir's _test.go files instead of its own: each of base's is replaced by head's
// file of that name or deleted, and each of head's that base lacks is added.
func TestOverlay(path, baseDir, headDir string) error {
	baseFiles, err := TestFiles(baseDir)
	if err != nil {
		return err
	}
	headFiles, err := TestFiles(headDir)
	if err != nil {
		return err
	}
	replace := map[string]string{}
	for name := range baseFiles {
		replace[filepath.Join(baseDir, name)] = "" // deleted unless head has it
	}
	for name := range headFiles {
		replace[filepath.Join(baseDir, name)] = filepath.Join(headDir, name)
	}
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing overlay: %w", err)
	}
	return nil
}

// ChangedBenchmarks returns the top-level benchmarks, without the "Benchmark" prefix and sorted,
// whose code differs between two sets of test files: the Benchmark function itself, or a
// declaration of the test files it reaches (a helper, a constant such as an input size, a type),
// compared without comments and formatting. A benchmark only one side has counts as changed. Files
// that do not parse are compared as a whole: every benchmark of either side is then changed. Code
// outside the test files is not looked at.
func ChangedBenchmarks(base, head map[string][]byte) []string {
	b, okB := testDecls(base)
	h, okH := testDecls(head)
	names := map[string]bool{}
	for _, ds := range []map[string]string{b, h} {
		for name := range ds {
			if strings.HasPrefix(name, "Benchmark") && !strings.Contains(name, ".") {
				names[name] = true
			}
		}
	}
	var out []string
	for name := range names {
		if !okB || !okH || changedFrom(name, b, h) {
			out = append(out, strings.TrimPrefix(name, "Benchmark"))
		}
	}
	sort.Strings(out)
	return out
}

// BenchmarkFuncs returns the Benchmark functions the test files declare, without the "Benchmark"
// prefix and sorted; nil when a file does not parse.
func BenchmarkFuncs(files map[string][]byte) []string {
	decls, ok := testDecls(files)
	if !ok {
		return nil
	}
	var out []string
	for name := range decls {
		if strings.HasPrefix(name, "Benchmark") && !strings.Contains(name, ".") {
			out = append(out, strings.TrimPrefix(name, "Benchmark"))
		}
	}
	sort.Strings(out)
	return out
}

// changedFrom reports whether the declaration name, or one it reaches, differs between base and
// head.
func changedFrom(name string, base, head map[string]string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(n string) bool {
		if seen[n] {
			return false
		}
		seen[n] = true
		bt, inB := base[n]
		ht, inH := head[n]
		if inB != inH || bt != ht {
			return true
		}
		for _, ref := range refs(bt) {
			if walk(ref) {
				return true
			}
		}
		return false
	}
	return walk(name)
}

// declSep separates a declaration's text from the names it refers to in testDecls' values.
const declSep = "\x00"

// testDecls parses files and returns their top-level declarations by name (methods as
// "Type.Method"), each as its printed text without comments, then declSep and the identifiers it
// mentions. ok is false when a file does not parse.
func testDecls(files map[string][]byte) (decls map[string]string, ok bool) {
	decls = map[string]string{}
	fset := token.NewFileSet()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	add := func(name string, node ast.Node) {
		var buf bytes.Buffer
		printer.Fprint(&buf, fset, node)
		var ids []string
		ast.Inspect(node, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				ids = append(ids, id.Name)
			}
			return true
		})
		decls[name] += buf.String() + declSep + strings.Join(ids, " ") + "\n"
	}
	for _, fn := range names {
		f, err := parser.ParseFile(fset, fn, files[fn], parser.SkipObjectResolution)
		if err != nil {
			return decls, false
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				d.Doc = nil
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) > 0 {
					name = recvName(d.Recv.List[0].Type) + "." + name
					// A method is reached through its type.
					decls[recvName(d.Recv.List[0].Type)] += declSep + name + "\n"
				}
				add(name, d)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						s.Doc, s.Comment = nil, nil
						for _, n := range s.Names {
							add(n.Name, s)
						}
					case *ast.TypeSpec:
						s.Doc, s.Comment = nil, nil
						add(s.Name.Name, s)
					}
				}
			}
		}
	}
	return decls, true
}

// refs returns the names a declaration's entry in testDecls mentions.
func refs(entry string) []string {
	var out []string
	for _, line := range strings.Split(entry, "\n") {
		if _, ids, ok := strings.Cut(line, declSep); ok {
			out = append(out, strings.Fields(ids)...)
		}
	}
	return out
}

// recvName is the type name of a method receiver: T for T, *T, T[P] and *T[P].
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
