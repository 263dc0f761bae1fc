// Command commentwrap rewraps Go comments wider than a column limit, in place.
//
// Usage:
//
//	go run ./commentwrap [-width 100] [-n] FILE_OR_DIR...
//
// A trailing comment that makes its line too wide moves above the line, at the line's indentation.
// A paragraph of a comment block (plain text, or one list item) that holds a line too wide is
// filled again, word by word; other paragraphs keep their lines. Preformatted lines (indented text,
// code), directives (//go:build, //lint:ignore) and generated files are left alone. A tab counts as
// four columns, as in docs/comments_test.go, which holds the product module to the limit. Run gofmt
// afterwards.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const tabWidth = 4

func main() {
	width := flag.Int("width", 100, "the widest a comment line may be, in columns")
	dryRun := flag.Bool("n", false, "list the files that would change; change nothing")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: commentwrap [-width 100] [-n] FILE_OR_DIR...")
		os.Exit(2)
	}
	failed := false
	for _, root := range flag.Args() {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") {
				return nil
			}
			changed, err := wrapFile(path, *width, *dryRun)
			if err != nil {
				return err
			}
			if changed {
				fmt.Println(path)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "commentwrap:", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// wrapFile rewraps one file's comments and reports whether it changed.
func wrapFile(path string, width int, dryRun bool) (bool, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	if ast.IsGenerated(mustParse(path, src)) {
		return false, nil
	}
	out, err := moveTrailing(path, src, width)
	if err != nil {
		return false, err
	}
	out, err = fillBlocks(path, out, width)
	if err != nil {
		return false, err
	}
	if bytes.Equal(out, src) {
		return false, nil
	}
	if dryRun {
		return true, nil
	}
	return true, os.WriteFile(path, out, 0o644)
}

func mustParse(path string, src []byte) *ast.File {
	f, _ := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments|parser.PackageClauseOnly)
	if f == nil {
		return &ast.File{}
	}
	return f
}

// columns returns the width of s with tabs counted as tabWidth columns.
func columns(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += tabWidth - n%tabWidth
		} else {
			n++
		}
	}
	return n
}

// lineComments parses src and returns, for every line that holds a // comment, the byte column
// where the comment starts (the first comment of the line).
func lineComments(path string, src []byte) (*token.File, map[int]int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	tf := fset.File(f.Pos())
	at := map[int]int{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if !strings.HasPrefix(c.Text, "//") {
				continue
			}
			p := tf.Position(c.Slash)
			if _, ok := at[p.Line]; !ok {
				at[p.Line] = p.Column - 1
			}
		}
	}
	return tf, at, nil
}

// moveTrailing moves every trailing comment whose line is too wide onto its own line above the
// code.
func moveTrailing(path string, src []byte, width int) ([]byte, error) {
	_, at, err := lineComments(path, src)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	var out []string
	for i, line := range lines {
		col, ok := at[i+1]
		if !ok || columns(line) <= width || strings.TrimSpace(line[:col]) == "" {
			out = append(out, line)
			continue
		}
		code := strings.TrimRight(line[:col], " \t")
		indent := code[:len(code)-len(strings.TrimLeft(code, " \t"))]
		out = append(out, indent+line[col:], code)
	}
	return []byte(strings.Join(out, "\n")), nil
}

var (
	directive = regexp.MustCompile(`^//(go:|lint:|line |export |extern |[a-z0-9]+:[a-z0-9])`)
	listItem  = regexp.MustCompile(`^( {1,4}(?:[-*+•]|[0-9]+[.)]) +)\S`)
)

// fillBlocks fills again each paragraph of a comment on lines of its own that holds a line too
// wide.
func fillBlocks(path string, src []byte, width int) ([]byte, error) {
	_, at, err := lineComments(path, src)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	own := func(i int) (indent, text string, ok bool) {
		col, has := at[i+1]
		if !has || strings.TrimSpace(lines[i][:col]) != "" {
			return "", "", false
		}
		return lines[i][:col], lines[i][col:], true
	}
	var out []string
	for i := 0; i < len(lines); {
		indent, text, ok := own(i)
		if !ok || directive.MatchString(text) {
			out = append(out, lines[i])
			i++
			continue
		}
		body := text[2:]
		// The paragraph's first line decides its kind: a list item (hanging indent) or plain text.
		first, rest := " ", " "
		if m := listItem.FindStringSubmatch(body); m != nil {
			first, rest = m[1], strings.Repeat(" ", len(m[1]))
		} else if !strings.HasPrefix(body, " ") || strings.HasPrefix(body, "  ") || strings.TrimSpace(body) == "" {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i + 1
		for ; j < len(lines); j++ {
			ind, t, ok := own(j)
			if !ok || ind != indent || directive.MatchString(t) {
				break
			}
			b := t[2:]
			if listItem.MatchString(b) || strings.TrimSpace(b) == "" {
				break
			}
			if !strings.HasPrefix(b, rest) || strings.HasPrefix(b[len(rest):], " ") || strings.HasPrefix(b[len(rest):], "\t") {
				break
			}
		}
		para := lines[i:j]
		wide := false
		for _, l := range para {
			if columns(l) > width {
				wide = true
			}
		}
		if !wide {
			out = append(out, para...)
			i = j
			continue
		}
		var words []string
		for _, l := range para {
			words = append(words, strings.Fields(l[len(indent)+2:])...)
		}
		if first != " " {
			words = words[1:] // the list marker is in first
		}
		out = append(out, fill(indent+"//"+first, indent+"//"+rest, words, width)...)
		i = j
	}
	return []byte(strings.Join(out, "\n")), nil
}

// fill lays words out on lines no wider than width: the first after firstPrefix, the rest after
// restPrefix. A word wider than a line gets a line of its own.
func fill(firstPrefix, restPrefix string, words []string, width int) []string {
	var lines []string
	cur, empty := firstPrefix, true
	for _, w := range words {
		if !empty && columns(cur)+1+columns(w) > width {
			lines = append(lines, cur)
			cur, empty = restPrefix, true
		}
		if empty {
			cur += w
			empty = false
		} else {
			cur += " " + w
		}
	}
	if !empty {
		lines = append(lines, cur)
	}
	return lines
}
