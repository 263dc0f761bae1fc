package attribution

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// compile builds the package made of one file x.go with -gcflags=-m=2 and returns the compiler's
// output.
func compile(t *testing.T, src []byte) []byte {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/xt\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "x.go"), src, 0o644))
	cmd := exec.Command("go", "build", "-gcflags=-m=2", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDiffDecisionsRealCompiler(t *testing.T) {
	base, err := os.ReadFile("testdata/base.go.txt")
	must(t, err)
	head, err := os.ReadFile("testdata/head.go.txt")
	must(t, err)
	src := func(b []byte) func(string) ([]byte, bool) {
		return func(f string) ([]byte, bool) { return b, f == "x.go" }
	}
	bd := ParseDecisions(compile(t, base), src(base))
	hd := ParseDecisions(compile(t, head), src(head))
	var got []string
	for _, c := range DiffDecisions(bd, hd, nil) {
		got = append(got, c.Func+": "+c.Text)
	}
	// head's round grew past the inlining budget (the compiler's own cost, printed by -m=2), so
	// both of Encrypt's calls stopped being inlined; head's Encrypt also allocates a buffer that
	// escapes.
	for _, want := range []string{
		"(*Cipher).round: (*Cipher).round is no longer inlinable (function too complex: cost 151 exceeds budget 80; base's cost 20)",
		"(*Cipher).Encrypt: (*Cipher).round is no longer inlined into (*Cipher).Encrypt (cost 151 > 80)",
		"(*Cipher).Encrypt: in (*Cipher).Encrypt, make([]byte, 64) now escapes to the heap",
	} {
		found := false
		for _, g := range got {
			if g == want {
				found = true
			}
		}
		if !found {
			t.Errorf("missing %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 3 {
		t.Errorf("got %d changes, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	// Only the functions asked about.
	if cs := DiffDecisions(bd, hd, map[string]bool{"Other": true}); len(cs) != 0 {
		t.Errorf("changes for an unrelated function: %v", cs)
	}
}

func TestParseDecisions(t *testing.T) {
	out := []byte(`# example.com/xt
./x.go:5:6: can inline (*Cipher).round with cost 20 as: method(*Cipher) func() { }
./x.go:9:6: cannot inline (*Cipher).Encrypt: function too complex: cost 92 exceeds budget 80
./x.go:12:16: inlining call to (*Cipher).round
./x.go:15:13: make([]byte, 64) escapes to heap in (*Cipher).Encrypt:
./x.go:15:13:   flow: buf ← &{storage for make([]byte, 64)}:
./x.go:15:13: make([]byte, 64) escapes to heap
./x.go:16:2: moved to heap: v
./x.go:9:26: leaking param: dst
./x.go:9:31: src does not escape
./x.go:6:50: index bounds check elided
`)
	got := ParseDecisions(out, nil)
	want := []Decision{
		{File: "x.go", Line: 5, Kind: KindInlinable, What: "(*Cipher).round", Cost: 20},
		{File: "x.go", Line: 9, Kind: KindNotInlinable, What: "(*Cipher).Encrypt", Cost: 92,
			Note: "function too complex: cost 92 exceeds budget 80"},
		{File: "x.go", Line: 12, Kind: KindInlinedCall, What: "(*Cipher).round"},
		{File: "x.go", Line: 15, Kind: KindEscapes, What: "make([]byte, 64)"},
		{File: "x.go", Line: 16, Kind: KindMovedToHeap, What: "v"},
		{File: "x.go", Line: 9, Kind: KindLeakingParam, What: "dst"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseDecisions (-want +got):\n%s", d)
	}
}

func TestFuncName(t *testing.T) {
	src := []byte("package p\nfunc F() {}\ntype T struct{}\nfunc (T) M() {}\nfunc (t *T) P() {\n}\n" +
		"type G[X any] struct{}\nfunc (g *G[X]) Q() {}\n")
	fi := indexFuncs(src)
	for line, want := range map[int]string{2: "F", 4: "T.M", 5: "(*T).P", 6: "(*T).P", 8: "(*G).Q", 3: ""} {
		if got := fi.at(line); got != want {
			t.Errorf("line %d: %q, want %q", line, got, want)
		}
	}
}
