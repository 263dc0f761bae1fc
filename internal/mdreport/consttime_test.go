package mdreport

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/record"
)

func TestConstantTimeSection(t *testing.T) {
	load := func(table string, size, lines int) record.CTSite {
		return record.CTSite{Function: "rounds", Offset: 0x1f, File: "unrolled.go", Line: 18, Kind: "load",
			Table: table, TableSize: size, Lines: lines, LinesPerLookup: lines}
	}
	base := &record.CTSide{Loads: []record.CTSite{load("sBoxes", 512, 1), load("sBoxes", 512, 1)}}
	head := &record.CTSide{Loads: []record.CTSite{load("spBox", 2048, 4), load("spBox", 2048, 4)}}
	r := &record.Result{ConstantTime: &record.ConstantTime{Status: record.CTChecked, Tool: "valgrind-3.19.0 lackey",
		Secrets: 6, BatchSecrets: 2, BatchBlocks: 64, Operations: []record.CTOperation{
			{Constructor: "NewCipher", Operation: "Encrypt", Base: base, Head: head},
			{Constructor: "NewCipher", Operation: "EncryptBlocks", Base: &record.CTSide{}, Head: &record.CTSide{}},
		}}}
	md := Markdown(r, report.Options{})
	for _, want := range []string{
		"<summary>Constant time: 2 operations traced, 1 with secret-dependent branches or loads, 1 changed</summary>",
		"| NewCipher | Encrypt | 0 | 2 | 4 (base 1) | 4 (base 1) | 2,048 B (base 512 B) |",
		"1 more operation shows no secret-dependent branch or load on either side."} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "EncryptBlocks") {
		t.Errorf("the comment shows an operation without findings or changes:\n%s", md)
	}
	if strings.Contains(outsideDetails(md), "| NewCipher |") {
		t.Errorf("a check that does not fail the gate is not collapsed:\n%s", md)
	}
	var tx strings.Builder
	if err := report.Text(&tx, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tx.String(), "NewCipher    Encrypt    0         2           4 (base 1)        4 (base 1)  "+
		"2,048 B (base 512 B)") {
		t.Errorf("the terminal output lacks the Encrypt row:\n%s", tx.String())
	}
	var b strings.Builder
	if err := htmlreport.HTML(&b, r, nil, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<td>head</td><td>load</td><td>rounds&#43;0x1f unrolled.go:18</td>"+
		"<td>spBox (2,048 B)</td><td>4 per lookup, 4 in all</td>") {
		t.Errorf("report.html does not list head's site:\n%s", b.String())
	}
	// Under fail-new, a clean base and a leaking head fail the gate: the section is under "What
	// failed", expanded.
	r.ConstantTime.Mode = record.CTFailNew
	r.ConstantTime.Operations[0].Base = &record.CTSide{}
	md = Markdown(r, report.Options{})
	open := outsideDetails(md)
	if i, j := strings.Index(open, "### What failed"), strings.Index(open, "| NewCipher | Encrypt |"); i < 0 || j < i ||
		!strings.Contains(open, "**Constant time:** 2 operations traced") ||
		!strings.Contains(open, "<strong>1 newly not constant time</strong>") {
		t.Errorf("a failing check is not expanded under What failed:\n%s", md)
	}
}
