package mdreport

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/record"
)

// TestConstantTimeNotTraced: constructors left out get a row that says why, and the check's CPU
// time and budget are shown.
func TestConstantTimeNotTraced(t *testing.T) {
	leak := &record.CTSide{Loads: []record.CTSite{{Function: "feistel", Kind: "load", Table: "spBox",
		TableSize: 2048, Lines: 16, LinesPerLookup: 4}}}
	r := &record.Result{ConstantTime: &record.ConstantTime{Status: record.CTChecked, Tool: "valgrind-3.19.0 lackey",
		Secrets: 6, BatchSecrets: 2, BatchBlocks: 64, CPU: 12340 * time.Millisecond, Budget: time.Minute,
		Operations: []record.CTOperation{{Constructor: "NewCipher", Operation: "Encrypt", Base: leak, Head: leak}},
		NotTraced: []record.CTNotTraced{{Constructor: "NewTripleEDE3", Reason: record.CTSameCode},
			{Constructor: "NewTripleEEE3", Reason: record.CTBudget}}}}
	md := Markdown(r, report.Options{})
	for _, want := range []string{" · 12.3 s of CPU, both sides (budget 1m0s per side)",
		"| NewTripleEDE3 | same code: not traced | — | — | — | — | — |",
		"| NewTripleEEE3 | not traced: budget ran out | — | — | — | — | — |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	var tx strings.Builder
	if err := report.Text(&tx, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"12.3 s of CPU", "NewTripleEDE3  same code: not traced",
		"NewTripleEEE3  not traced: budget ran out"} {
		if !strings.Contains(tx.String(), want) {
			t.Errorf("the terminal output lacks %q:\n%s", want, tx.String())
		}
	}
}
