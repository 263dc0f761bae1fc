package sizes

import "testing"

func TestClassify(t *testing.T) {
	const p = "github.com/perfgate/perfgate/cipher/des"
	// Symbol names as Go 1.26's linker writes them (seen with go tool nm on test binaries).
	for _, tc := range []struct {
		name string
		kind int
		pkg  string
	}{
		{p + ".NewCipher", ownPackage, p},
		{p + ".(*Cipher).Encrypt", ownPackage, p},
		{p + ".KeySizeError.Error", ownPackage, p},
		{p + ".NewCipher.func1", ownPackage, p},
		{p + ".(*Cipher).Encrypt-fm", ownPackage, p},
		{p + "..stmp_0", ownPackage, p},
		{p + "..inittask", ownPackage, p},
		{p + ".init", ownPackage, p},
		{p + ".init.0", ownPackage, p},
		{p + ".sBoxes", ownPackage, p},
		{p + ".F[go.shape.int]", ownPackage, p},
		{p + ".F[go.shape.struct { a/b.T }].func2", ownPackage, p},
		{p + "..dict.F[int]", ownPackage, p},
		{p + "..dict.F[other/pkg.T]", ownPackage, p},
		{p + ".(*G[go.shape.int]).M", ownPackage, p},
		{p + ".asmFunc.abi0", ownPackage, p},
		{"go:itab.*" + p + ".Cipher,crypto/cipher.Block", ownPackage, p},
		{"go:itab." + p + ".KeySizeError,error", ownPackage, p},
		{"go:itab.*" + p + ".G[a/b.T,c/d.U],crypto/cipher.Block", ownPackage, p},
		{"type:.eq." + p + ".Cipher", ownPackage, p},
		{"type:.hash." + p + ".Cipher", ownPackage, p},
		{p + "/internal/sbox.Table", ownPackage, p + "/internal/sbox"},
		{"go:itab.*" + p + "/internal/sbox.T,io.Reader", ownPackage, p + "/internal/sbox"},
		{p + "_test.TestEncrypt", ownExternalTest, p + "_test"},
		{p + "_test.TestEncrypt.func1", ownExternalTest, p + "_test"},

		// Mentions the package, belongs to none of it.
		{"type:.eq.[4]" + p + ".Cipher", ownMentions, ""},
		{"type:.eq.struct { a " + p + ".Cipher }", ownMentions, ""},
		{"go:itab.*other/pkg.T," + p + ".Blocker", ownMentions, ""},
		{"other/pkg.F[" + p + ".Cipher]", ownMentions, ""},
		{"other/pkg..dict.F[" + p + ".Cipher]", ownMentions, ""},

		// Not the package at all.
		{p + "x.NewCipher", ownNone, ""},   // a sibling whose path extends the text
		{p + "2/v.NewCipher", ownNone, ""}, // the same
		{"github.com/perfgate/perfgate/cipher/desx/internal.F", ownNone, ""},
		{"example.com/" + p + ".F", ownNone, ""}, // p is a suffix of another path
		{"crypto/des.NewCipher", ownNone, ""},
		{"runtime.text", ownNone, ""},
		{"type:*", ownNone, ""},
		{"go:string.*", ownNone, ""},
		{"type:.eq.[4]int", ownNone, ""},
		{"go:itab.*os.File,io.Reader", ownNone, ""},
		// package des.v2, spelled as the linker does
		{"example.com/x.F[" + p + "%2ev2.T]", ownNone, ""},
	} {
		kind, pkg := classify(tc.name, p)
		if kind != tc.kind || pkg != tc.pkg {
			t.Errorf("classify(%q) = %d, %q; want %d, %q", tc.name, kind, pkg, tc.kind, tc.pkg)
		}
	}
}

func TestSymbolPackage(t *testing.T) {
	for name, want := range map[string]string{
		"fmt.Println":                     "fmt",
		"main.main":                       "main",
		"crypto/des.(*desCipher).Encrypt": "crypto/des",
		"example.com/a.b/c.F":             "example.com/a.b/c",
		// the linker escapes the last element's dots
		"gopkg.in/yaml%2ev3.Unmarshal":      "gopkg.in/yaml.v3",
		"gopkg.in/yaml.v3/sub.F":            "gopkg.in/yaml.v3/sub",
		"example.com/m.F[example.com/n.T]":  "example.com/m",
		"noPackage":                         "",
		"example.com/m.(*T[a/b.C]).M.func1": "example.com/m",
	} {
		if got := symbolPackage(name); got != want {
			t.Errorf("symbolPackage(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestClassifyDottedPath: the linker escapes dots in an import path's last element
// (cmd/internal/objabi.PathToPrefix), but not in earlier elements, so subpackages keep theirs.
func TestClassifyDottedPath(t *testing.T) {
	const p = "gopkg.in/yaml.v3"
	for _, tc := range []struct {
		name string
		kind int
		pkg  string
	}{
		{"gopkg.in/yaml%2ev3.Unmarshal", ownPackage, p},
		{"gopkg.in/yaml.v3/internal/x.F", ownPackage, p + "/internal/x"},
		{"gopkg.in/yaml%2ev3_test.TestX", ownExternalTest, p + "_test"},
		{"other/pkg.F[gopkg.in/yaml%2ev3.Node]", ownMentions, ""},
		{"gopkg.in/yaml%2ev2.Unmarshal", ownNone, ""},
	} {
		kind, pkg := classify(tc.name, p)
		if kind != tc.kind || pkg != tc.pkg {
			t.Errorf("classify(%q) = %d, %q; want %d, %q", tc.name, kind, pkg, tc.kind, tc.pkg)
		}
	}
}
