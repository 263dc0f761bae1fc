package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/record"
)

// TestAnnotations: a failing result names head's lines: the top lines of why a slower benchmark
// changed, mapped to the repository (a base-only line, a file outside the package and the fourth
// line left out), and the constant-time sites on head (a new one failing under fail-new, an
// unchanged one a warning, an absent one left out), their text escaped.
func TestAnnotations(t *testing.T) {
	line := func(file string, n, base int, d float64) record.WhyLine {
		return record.WhyLine{File: file, Line: n, BaseLine: base, Func: "example.com/m/cipher/des.crypt", Base: 100, Head: 100 + d}
	}
	site := func(fn string, off, ln, lines int) record.CTSite {
		return record.CTSite{Function: fn, Offset: off, File: "block.go", Line: ln, Kind: "load", Table: "spBox",
			TableSize: 2048, Lines: lines, LinesPerLookup: lines}
	}
	side := func(loads ...record.CTSite) *record.CTSide {
		return &record.CTSide{KeySize: 8, Input: 8, Runs: 3, Loads: loads}
	}
	r := &record.Result{
		Package: "./cipher/des", ImportPath: "example.com/m/cipher/des",
		Verdict: record.Verdict{Status: record.StatusFail},
		Why: []record.Why{{
			Name: "Encrypt/<b>des</b>", Class: record.ClassSlower, Unit: "instructions/op", BaseCount: 1000, HeadCount: 1300,
			Lines: []record.WhyLine{
				line("example.com/m/cipher/des/block.go", 41, 40, 200),
				line("example.com/m/cipher/des/block.go", 0, 12, -10), // only base has it
				line("runtime/memmove_amd64.s", 80, 80, 50),           // outside the package
				line("example.com/m/cipher/des/const.go", 9, 9, 5),    // the fourth
			},
		}},
		ConstantTime: &record.ConstantTime{Status: record.CTChecked, Dir: "cipher/des", Mode: record.CTFailNew,
			Operations: []record.CTOperation{{
				Constructor: "NewCipher", Family: "block", Operation: "Encrypt",
				Base: side(site("feistel", 0x10, 30, 4), site("gone", 0x8, 5, 2)),
				Head: side(site("feistel", 0x10, 31, 4), site("expand\n::error::x", 0x40, 57, 8)),
			}},
		},
	}
	got := Annotations(r)
	var brief []string
	for _, a := range got {
		lvl := "warning"
		if a.Failure {
			lvl = "failure"
		}
		brief = append(brief, fmt.Sprintf("%s:%d %s %s", a.Path, a.Line, lvl, a.Title))
	}
	want := []string{
		"cipher/des/block.go:41 failure Encrypt/<b>des</b>: slower, why it changed",
		"cipher/des/block.go:31 warning constant time: secret-indexed load (unchanged)",
		"cipher/des/block.go:57 failure constant time: secret-indexed load (new)",
	}
	if diff := cmp.Diff(want, brief); diff != "" {
		t.Fatalf("annotations (-want +got):\n%s", diff)
	}
	if m := got[0].Message; !strings.HasPrefix(m, "block.go:41 des.crypt +200 instructions/op") {
		t.Errorf("why's message %q", m)
	}
	if m := got[2].Message; strings.Contains(m, "\n") || !strings.Contains(m, "spBox") {
		t.Errorf("the new site's message %q: want one line naming the table", m)
	}

	// Passing, the slower line is a warning; under report, a new site too.
	r.Verdict.Status = record.StatusPass
	r.ConstantTime.Mode = record.CTReport
	for _, a := range Annotations(r) {
		if a.Failure {
			t.Errorf("%s:%d fails a passing result", a.Path, a.Line)
		}
	}
}
