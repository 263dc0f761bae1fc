package sizes

import (
	"fmt"
	"strconv"
	"strings"
)

// Owner kinds: how a symbol relates to the measured package.
const (
	ownNone         = iota // unrelated to the package
	ownPackage             // the package or one of its subpackages (Symbol.Package says which)
	ownExternalTest        // the external test package, pkgPath_test
	// its name mentions the package but it belongs to no single package of it
	ownMentions
)

// classify decides whom the symbol name belongs to, relative to the import path target.
// It returns the owner kind and, for ownPackage and ownExternalTest, the owning package path.
//
// The rules, in order:
//   - go:itab.T,I belongs to the package of the concrete type T (after stripping *);
//   - type:.eq.T and type:.hash.T (the equality and hash functions of T) belong to the package of
//     T, when T is a named type; for a composite type ([4]pkg.T, struct{…}) they cannot be
//     attributed;
//   - any other type:… or go:… symbol belongs to no package (type descriptors and strings are
//     merged into the linker's type:* and go:string.* blobs);
//   - every other symbol belongs to the package its name starts with: the name with generic
//     instantiations ([…]) removed, up to the first '.' after the last '/', as debug/gosym does.
//
// A symbol that belongs to no package of target but mentions target as a whole path element
// (other.F[pkg.T], go:itab.*other.T,pkg.I, type:.eq.[4]pkg.T) is ownMentions.
func classify(name, target string) (kind int, pkg string) {
	owner := ownerPackage(name)
	switch {
	case owner == "":
	case owner == target || strings.HasPrefix(owner, target+"/"):
		return ownPackage, owner
	case owner == target+"_test":
		return ownExternalTest, owner
	}
	if mentions(name, target) || mentions(name, pathToPrefix(target)) {
		return ownMentions, ""
	}
	return ownNone, ""
}

// pathToPrefix escapes an import path as the linker does in symbol names
// (cmd/internal/objabi.PathToPrefix): '.' in the last path element, '%', '"', spaces, control and
// non-ASCII bytes become %xx, so "gopkg.in/yaml.v3" is spelled "gopkg.in/yaml%2ev3".
func pathToPrefix(path string) string {
	slash := strings.LastIndex(path, "/")
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c <= ' ' || c == '.' && i > slash || c == '%' || c == '"' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02x", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapePath undoes pathToPrefix.
func unescapePath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownerPackage returns the import path of the package that defines the symbol name,
// or "" when the symbol belongs to no single package.
func ownerPackage(name string) string {
	switch {
	case strings.HasPrefix(name, "go:itab."):
		rest := name[len("go:itab."):]
		if i := topLevelIndex(rest, ','); i >= 0 {
			rest = rest[:i]
		}
		return typeOwner(rest)
	case strings.HasPrefix(name, "type:.eq."):
		return typeOwner(name[len("type:.eq."):])
	case strings.HasPrefix(name, "type:.hash."):
		return typeOwner(name[len("type:.hash."):])
	case strings.HasPrefix(name, "go:"), strings.HasPrefix(name, "type:"):
		return ""
	}
	return symbolPackage(name)
}

// typeOwner returns the package of a named type as the linker spells it ("pkg/path.T",
// "*pkg/path.T", "pkg/path.G[int]"), or "" for a composite or predeclared type.
func typeOwner(t string) string {
	t = strings.TrimLeft(t, "*")
	for _, composite := range []string{"[", "map[", "struct {", "struct{", "func(", "chan ", "chan<-", "<-chan",
		"interface {", "interface{"} {
		if strings.HasPrefix(t, composite) {
			return ""
		}
	}
	return symbolPackage(t)
}

// symbolPackage returns the import path of an ordinary symbol name such as
// "pkg/path.(*T).M", "pkg/path.F[go.shape.int].func1", "pkg/path..stmp_0" or
// "gopkg.in/yaml%2ev3.Unmarshal" (the linker escapes dots in the last path element).
func symbolPackage(name string) string {
	name = stripInstantiations(name)
	slash := strings.LastIndex(name, "/")
	if slash < 0 {
		slash = 0
	}
	dot := strings.Index(name[slash:], ".")
	if dot <= 0 {
		return ""
	}
	return unescapePath(name[:slash+dot])
}

// stripInstantiations removes every bracketed generic instantiation, "[…]" with nesting,
// from a symbol name.
func stripInstantiations(name string) string {
	if !strings.Contains(name, "[") {
		return name
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// topLevelIndex is strings.IndexByte that ignores bytes inside brackets.
func topLevelIndex(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case c:
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// mentions reports whether name contains the import path target as a whole path: not preceded by a
// byte that could continue a path element or a path ("x" + target, "a/" + target), and followed by
// '.' (a member), '/' (a subpackage) or "_test." (the external test package). A '.' before target
// is allowed, since the linker writes "type:.eq." + type; so is '*', '[', ',' and ' '.
func mentions(name, target string) bool {
	for from := 0; ; {
		i := strings.Index(name[from:], target)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if i > 0 && isPathByte(name[i-1]) {
			continue
		}
		rest := name[i+len(target):]
		if strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "_test.") {
			return true
		}
	}
}

// isPathByte reports whether c can appear inside an import path other than '.',
// which the linker also uses as a separator.
func isPathByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '/' || c == '-' || c == '_' || c == '~' || c == '+'
}
