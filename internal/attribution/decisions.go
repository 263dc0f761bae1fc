package attribution

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Decision is one of the compiler's optimization decisions, as go build -gcflags=-m=2 prints it.
type Decision struct {
	File string // as the compiler printed it, relative to the package directory ("xtea.go")
	Line int
	Func string // the function declared around Line ("(*Cipher).Encrypt"), "" at package level
	Kind string // one of the Kind constants
	What string // the function inlined or considered, or the variable or expression that escapes
	Cost int    // the inlining cost, when the compiler gave one
	Note string // the rest of the message: the reason a function cannot be inlined, say
}

// The kinds of decision Decisions reads.
const (
	KindInlinable    = "inlinable"     // "can inline F with cost N"
	KindNotInlinable = "not-inlinable" // "cannot inline F: REASON"
	KindInlinedCall  = "inlined-call"  // "inlining call to F", at the call site in Func
	KindEscapes      = "escapes"       // "X escapes to heap"
	KindMovedToHeap  = "moved-to-heap" // "moved to heap: X"
	KindLeakingParam = "leaking-param" // "leaking param: X"
)

var (
	diagLine     = regexp.MustCompile(`^(.+?\.go):(\d+):(\d+): (.*)$`)
	canInline    = regexp.MustCompile(`^can inline (\S+)(?: with cost (\d+))?`)
	cannotInline = regexp.MustCompile(`^cannot inline (\S+): (.*)$`)
	costOver     = regexp.MustCompile(`cost (\d+) exceeds budget (\d+)`)
)

// ParseDecisions reads the compiler's -m=2 output (go build's stderr). It keeps the first line of
// each message (the explanations -m=2 indents under an escape are left out) and the kinds above;
// src gives the source of a file the compiler names, so that each decision is placed in the
// function declared around it (nil: Func stays "").
func ParseDecisions(out []byte, src func(file string) ([]byte, bool)) []Decision {
	var ds []Decision
	funcs := map[string]*funcIndex{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := diagLine.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(m[4], " ") {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		d := Decision{File: strings.TrimPrefix(m[1], "./"), Line: line}
		msg := m[4]
		switch {
		case canInline.MatchString(msg):
			s := canInline.FindStringSubmatch(msg)
			d.Kind, d.What = KindInlinable, s[1]
			d.Cost, _ = strconv.Atoi(s[2])
		case cannotInline.MatchString(msg):
			s := cannotInline.FindStringSubmatch(msg)
			d.Kind, d.What, d.Note = KindNotInlinable, s[1], s[2]
			if c := costOver.FindStringSubmatch(s[2]); c != nil {
				d.Cost, _ = strconv.Atoi(c[1])
			}
		case strings.HasPrefix(msg, "inlining call to "):
			d.Kind, d.What = KindInlinedCall, strings.TrimPrefix(msg, "inlining call to ")
		case strings.HasSuffix(msg, " escapes to heap") || strings.HasSuffix(msg, " escapes to heap:"):
			d.Kind = KindEscapes
			d.What = strings.TrimSuffix(strings.TrimSuffix(msg, ":"), " escapes to heap")
		case strings.HasPrefix(msg, "moved to heap: "):
			d.Kind, d.What = KindMovedToHeap, strings.TrimPrefix(msg, "moved to heap: ")
		case strings.HasPrefix(msg, "leaking param: "):
			d.Kind, d.What = KindLeakingParam, strings.TrimPrefix(msg, "leaking param: ")
		default:
			continue
		}
		if src != nil {
			fi, ok := funcs[d.File]
			if !ok {
				if b, ok := src(d.File); ok {
					fi = indexFuncs(b)
				}
				funcs[d.File] = fi
			}
			d.Func = fi.at(d.Line)
		}
		ds = append(ds, d)
	}
	return ds
}

// funcIndex holds the line ranges of a file's function declarations.
type funcIndex struct {
	names      []string
	start, end []int
}

func indexFuncs(src []byte) *funcIndex {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	fi := &funcIndex{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		fi.names = append(fi.names, funcName(fd))
		fi.start = append(fi.start, fset.Position(fd.Pos()).Line)
		fi.end = append(fi.end, fset.Position(fd.End()).Line)
	}
	return fi
}

// funcName names a declaration as the compiler does: "F", "T.M" or "(*T).M".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if ix, ok := t.(*ast.IndexExpr); ok { // generic receivers: T[P]
		t = ix.X
	} else if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
		if ix, ok := t.(*ast.IndexExpr); ok {
			t = ix.X
		} else if ix, ok := t.(*ast.IndexListExpr); ok {
			t = ix.X
		}
	}
	id, _ := t.(*ast.Ident)
	name := "?"
	if id != nil {
		name = id.Name
	}
	if star {
		return "(*" + name + ")." + fd.Name.Name
	}
	return name + "." + fd.Name.Name
}

func (fi *funcIndex) at(line int) string {
	if fi == nil {
		return ""
	}
	for i := range fi.names {
		if fi.start[i] <= line && line <= fi.end[i] {
			return fi.names[i]
		}
	}
	return ""
}

// Change is a decision that differs between base and head, worded for a maintainer.
type Change struct {
	// the function it concerns (the function considered for inlining, or where the call or value
	// is)
	Func string
	Text string // e.g. "(*Cipher).round is no longer inlinable (cost 81 > 80)"
}

// DiffDecisions returns the decisions that differ between base and head, for the functions in only
// (all when only is nil): functions that became inlinable or stopped being so, calls inlined into a
// function that no longer are (or now are), and values that now escape or no longer do. Line
// numbers are not compared: edits move them.
func DiffDecisions(base, head []Decision, only map[string]bool) []Change {
	var out []Change
	keep := func(fn ...string) bool {
		if only == nil {
			return true
		}
		for _, f := range fn {
			if only[f] {
				return true
			}
		}
		return false
	}
	inl := func(ds []Decision) map[string]Decision {
		m := map[string]Decision{}
		for _, d := range ds {
			if d.Kind == KindInlinable || d.Kind == KindNotInlinable {
				m[d.What] = d
			}
		}
		return m
	}
	bi, hi := inl(base), inl(head)
	for _, name := range sortedKeys(hi) {
		h, b := hi[name], bi[name]
		if !keep(name) {
			continue
		}
		switch {
		case h.Kind == KindNotInlinable && b.Kind == KindInlinable:
			out = append(out, Change{name, fmt.Sprintf("%s is no longer inlinable (%s; base's cost %d)", name, h.Note, b.Cost)})
		case h.Kind == KindInlinable && b.Kind == KindNotInlinable:
			out = append(out, Change{name, fmt.Sprintf("%s is now inlinable (cost %d; base: %s)", name, h.Cost, b.Note)})
		case h.Kind == KindInlinable && b.Kind == KindInlinable && h.Cost != b.Cost:
			out = append(out, Change{name, fmt.Sprintf("%s's inlining cost %d → %d", name, b.Cost, h.Cost)})
		}
	}
	// Calls inlined into each function, and escapes in each function, as multisets.
	type key struct{ fn, kind, what string }
	count := func(ds []Decision) map[key]int {
		m := map[key]int{}
		for _, d := range ds {
			switch d.Kind {
			case KindInlinedCall, KindEscapes, KindMovedToHeap, KindLeakingParam:
				m[key{d.Func, d.Kind, d.What}]++
			}
		}
		return m
	}
	bc, hc := count(base), count(head)
	keys := map[key]bool{}
	for k := range bc {
		keys[k] = true
	}
	for k := range hc {
		keys[k] = true
	}
	ks := make([]key, 0, len(keys))
	for k := range keys {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(x, y key) int {
		return cmp.Or(cmp.Compare(x.fn, y.fn), cmp.Compare(x.kind, y.kind), cmp.Compare(x.what, y.what))
	})
	for _, k := range ks {
		b, h := bc[k], hc[k]
		if b == h || !keep(k.fn, k.what) {
			continue
		}
		in := k.fn
		if in == "" {
			in = "package level"
		}
		var text string
		switch k.kind {
		case KindInlinedCall:
			switch {
			case h == 0:
				text = fmt.Sprintf("%s is no longer inlined into %s", k.what, in)
				if c := costOver.FindStringSubmatch(hi[k.what].Note); c != nil {
					text += fmt.Sprintf(" (cost %s > %s)", c[1], c[2])
				}
			case b == 0:
				text = fmt.Sprintf("%s is now inlined into %s", k.what, in)
			default:
				text = fmt.Sprintf("calls of %s inlined into %s: %d → %d", k.what, in, b, h)
			}
		case KindEscapes, KindMovedToHeap, KindLeakingParam:
			verb := map[string]string{KindEscapes: "escapes to the heap", KindMovedToHeap: "is moved to the heap",
				KindLeakingParam: "leaks (parameter)"}[k.kind]
			switch {
			case h == 0:
				text = fmt.Sprintf("in %s, %s no longer %s", in, k.what, verb)
			case b == 0:
				text = fmt.Sprintf("in %s, %s now %s", in, k.what, verb)
			default:
				text = fmt.Sprintf("in %s, %s %s %d → %d times", in, k.what, verb, b, h)
			}
		}
		out = append(out, Change{k.fn, text})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
