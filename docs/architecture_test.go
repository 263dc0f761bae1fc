// Package docs holds perfgate's documentation; its test holds architecture.md to the code.
package docs

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/perfgate/perfgate/"

// row is one package of architecture.md's table.
type row struct {
	floor   int
	imports []string
}

// readTable reads the table of the packages from architecture.md: package, floor, job, imports of
// ours.
func readTable(t *testing.T) map[string]row {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]row{}
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| package | floor |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "| ---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("architecture.md: a row of %d cells, want 4: %s", len(cells), line)
		}
		name := strings.Trim(strings.TrimSpace(cells[0]), "`")
		floor, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			t.Fatalf("architecture.md: %s: floor %q is not a number", name, cells[1])
		}
		var imports []string
		if s := strings.TrimSpace(cells[3]); s != "—" {
			for _, imp := range strings.Split(s, ",") {
				imports = append(imports, strings.Trim(strings.TrimSpace(imp), "`"))
			}
		}
		if _, dup := rows[name]; dup {
			t.Errorf("architecture.md lists %s twice", name)
		}
		rows[name] = row{floor: floor, imports: imports}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 10 {
		t.Fatalf("architecture.md: found %d rows in the table of the packages", len(rows))
	}
	return rows
}

// goList returns every package of the module (go list ./...) and its imports of the module's
// packages, by path relative to the module.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		var ours []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				ours = append(ours, rel)
			}
		}
		slices.Sort(ours)
		pkgs[name] = ours
	}
	return pkgs
}

// TestArchitecture holds docs/architecture.md to go list: every package has a row and every row a
// package, each row's imports are the package's, and no package imports one on a higher floor.
func TestArchitecture(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	rows, pkgs := readTable(t), goList(t)
	for name, imports := range pkgs {
		r, ok := rows[name]
		if !ok {
			t.Errorf("architecture.md has no row for package %s (imports of ours: %s)", name, strings.Join(imports, ", "))
			continue
		}
		got := slices.Sorted(slices.Values(r.imports))
		if !slices.Equal(got, imports) {
			t.Errorf("architecture.md: %s imports %q, go list says %q", name, got, imports)
		}
		for _, imp := range imports {
			if ir, ok := rows[imp]; ok && ir.floor > r.floor {
				t.Errorf("%s (floor %d) imports %s, on the higher floor %d", name, r.floor, imp, ir.floor)
			}
		}
	}
	for name, r := range rows {
		if _, ok := pkgs[name]; !ok {
			t.Errorf("architecture.md lists %s, which is not a package of the module", name)
		}
		if r.floor < 1 || r.floor > 7 {
			t.Errorf("architecture.md: %s is on floor %d, want 1 to 7", name, r.floor)
		}
	}
}

// TestFlatInternal: a package's path names its concept, never its floor: internal/<concept>, or
// internal/<concept>/<part> where the concept is a package of its own
// (internal/differential/harness) or the test fakes' folder, internal/testing.
func TestFlatInternal(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	pkgs := goList(t)
	for name := range pkgs {
		rest, ok := strings.CutPrefix(name, "internal/")
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		switch {
		case len(parts) > 3, len(parts) == 3 && parts[0] != "testing":
			t.Errorf("%s is %d levels under internal/: at most internal/<concept>/<part>", name, len(parts))
		case len(parts) == 2 && parts[0] != "testing":
			if _, ok := pkgs["internal/"+parts[0]]; !ok {
				t.Errorf("%s: internal/%s is a folder, not a package: name the package for its concept, one level deep", name, parts[0])
			}
		}
	}
}

// TestPublicPackages: the only packages outside internal/, cmd/ and docs are the two a user's code
// has a reason to import, record and cipher/des (and what lives under them).
func TestPublicPackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	for name := range goList(t) {
		switch {
		case name == "docs", strings.HasPrefix(name, "internal/"), strings.HasPrefix(name, "cmd/"),
			strings.Contains(name, "/internal/"):
		case name == "record", name == "cipher/des":
			checkPublic(t, name)
		default:
			t.Errorf("%s is public: move it under internal/, or say in architecture.md why a user imports it", name)
		}
	}
}

// TestDiagram: every arrow of architecture.md's diagram of the imports ("a ─► b, c") is an import
// go list reports, so that the picture cannot drift from the code.
func TestDiagram(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	data, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- imports diagram -->\n```\n")
	if !ok {
		t.Fatal("architecture.md has no imports diagram (<!-- imports diagram --> before its block)")
	}
	block, _, _ := strings.Cut(rest, "```")
	pkgs := goList(t)
	arrows := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		from, to, ok := strings.Cut(line, "─►")
		if !ok {
			t.Errorf("diagram line without an arrow: %q", line)
			continue
		}
		from = strings.TrimSpace(from)
		imports, ok := pkgs[from]
		if !ok {
			t.Errorf("diagram: %s is not a package of the module", from)
			continue
		}
		for _, dst := range strings.Split(to, ",") {
			dst = strings.TrimSpace(dst)
			arrows++
			if !slices.Contains(imports, dst) {
				t.Errorf("diagram: %s ─► %s, but %s does not import %s", from, dst, from, dst)
			}
		}
	}
	if arrows < 10 {
		t.Errorf("diagram: %d arrows", arrows)
	}
}

// checkPublic: a public package has an example among its tests, and the README names it.
func checkPublic(t *testing.T, name string) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`"+module+name+"`") {
		t.Errorf("README.md does not name the public package %s%s", module, name)
	}
	tests, _ := filepath.Glob(filepath.Join("..", filepath.FromSlash(name), "*_test.go"))
	for _, f := range tests {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "\nfunc Example") {
			return
		}
	}
	t.Errorf("public package %s has no example (func Example… in a _test.go file)", name)
}
