package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// commentWidth is the widest a comment line of the product module may be, in columns, a tab counted
// as four. tools/commentwrap rewraps the comments that are wider.
const commentWidth = 100

// TestCommentWidth: no comment line of the product module's hand-written Go files (tests included;
// generated files, testdata and the tools module excluded) is wider than commentWidth.
func TestCommentWidth(t *testing.T) {
	var wide []string
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (n == "testdata" || n == "tools" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		lines := strings.Split(string(src), "\n")
		seen := map[int]bool{}
		for _, g := range f.Comments {
			for _, c := range g.List {
				start, end := fset.Position(c.Pos()).Line, fset.Position(c.End()).Line
				for l := start; l <= end; l++ {
					if !seen[l] && columns(lines[l-1]) > commentWidth {
						seen[l] = true
						wide = append(wide, filepath.ToSlash(path)+":"+strconv.Itoa(l))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files: is the test running in docs/?", files)
	}
	if len(wide) > 0 {
		show := wide
		if len(show) > 20 {
			show = show[:20]
		}
		t.Errorf("%d comment lines are wider than %d columns (cd tools && go run ./commentwrap ..): %s",
			len(wide), commentWidth, strings.Join(show, " "))
	}
}

// columns returns the width of s, a tab counted as four columns.
func columns(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 4 - n%4
		} else {
			n++
		}
	}
	return n
}
