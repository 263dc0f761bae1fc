package attribution

import (
	"os"
	"testing"
)

func TestDeclName(t *testing.T) {
	for sym, want := range map[string]string{
		"example.com/xt.(*Cipher).Encrypt": "(*Cipher).Encrypt",
		"example.com/a/b.F":                "F",
		"main.main":                        "main",
		"example.com/xt.F.func1":           "F.func1",
		"example.com/xt.Map[go.shape.int]": "Map[go.shape.int]",
		"example.com/xt.(*T[...]).M":       "(*T[...]).M",
	} {
		if got := DeclName(sym); got != want {
			t.Errorf("DeclName(%q) = %q, want %q", sym, got, want)
		}
	}
}

// TestAnnotate annotates round across the two builds of testdata: inlined into Encrypt on base,
// called on head. Every line of head's round is a row, in order; base's counts of round's body
// (inlined) land on its line, and head's added lines have base counts of 0 and no base line.
func TestAnnotate(t *testing.T) {
	baseSrc, err := os.ReadFile("testdata/base.go.txt")
	must(t, err)
	headSrc, err := os.ReadFile("testdata/head.go.txt")
	must(t, err)
	bp, hp := buildMain(t, baseSrc), buildMain(t, headSrc)
	bb, err := Open(bp)
	must(t, err)
	hb, err := Open(hp)
	must(t, err)
	bc := funcAddrs(t, bb, bp, "example.com/xt.(*Cipher).Encrypt")
	hc := funcAddrs(t, hb, hp, "example.com/xt.(*Cipher).Encrypt")
	for a, n := range funcAddrs(t, hb, hp, "example.com/xt.(*Cipher).round") {
		hc[a] += 64 * n
	}
	srcOf := func(b []byte) Sources {
		return func(f string) ([]byte, bool) { return b, f == "example.com/xt/x.go" }
	}
	an, err := Annotate(bb, hb, bc, hc, srcOf(baseSrc), srcOf(headSrc), "example.com/xt.(*Cipher).round")
	must(t, err)
	if an.File != "example.com/xt/x.go" || len(an.Rows) < 5 {
		t.Fatalf("Annotate = %+v", an)
	}
	if r := an.Rows[0]; r.Line != 6 || r.Text != "func (c *Cipher) round(v0, v1 uint32, i int) uint32 {" {
		t.Errorf("first row %+v, want head's line 6, the declaration", r)
	}
	var baseSum, headSum float64
	prev := 0
	for _, r := range an.Rows {
		baseSum, headSum = baseSum+r.Base, headSum+r.Head
		if r.Line > 0 {
			if r.Line <= prev {
				t.Errorf("rows out of order at %+v", r)
			}
			prev = r.Line
		}
		if r.Line >= 8 && r.Line <= 9 && (r.BaseLine != 0 || r.Base != 0 || r.Head == 0) {
			t.Errorf("head's added line %d: %+v, want head counts only", r.Line, r)
		}
	}
	if baseSum == 0 || headSum <= baseSum {
		t.Errorf("round's counts base %v, head %v: want base's inlined code counted and head's larger", baseSum, headSum)
	}
	if _, err := Annotate(bb, hb, bc, hc, srcOf(baseSrc), srcOf(headSrc), "example.com/xt.Nothing"); err == nil {
		t.Error("annotating a function without counts: no error")
	}
}
