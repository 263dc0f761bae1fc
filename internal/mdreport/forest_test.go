package mdreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

func TestForestHostileNames(t *testing.T) {
	r := reportfixture.ForestResult(2, []float64{1.5, 0.9}, []record.Class{"slower", "faster"})
	r.Benchmarks[0].Name = "x\x1b[31m```\n</details>"
	r.Benchmarks[1].Name = reportfixture.Hostile
	md := Markdown(r, report.Options{})
	if problems := lintMarkdown(md); len(problems) > 0 {
		t.Errorf("markdown problems:\n%s", strings.Join(problems, "\n"))
	}
	var text bytes.Buffer
	if err := report.Text(&text, r, report.Options{Unicode: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "\x1b") {
		t.Errorf("an escape sequence from a benchmark name reached the terminal:\n%s", text.String())
	}
}

func TestMarkdownForestFitsTheBudget(t *testing.T) {
	// Hundreds of benchmarks with long names: the forest stays capped, and the body within the
	// limit.
	var ratios []float64
	var classes []record.Class
	for i := range 600 {
		ratios = append(ratios, 0.5+float64(i)/600)
		classes = append(classes, []record.Class{"slower", "faster", "unchanged", "inconclusive"}[i%4])
	}
	r := reportfixture.ForestResult(2, ratios, classes)
	for i := range r.Benchmarks {
		r.Benchmarks[i].Name = strings.Repeat("n", 150) + fmt.Sprint(i)
	}
	md := Markdown(r, report.Options{})
	if len(md) > MaxBody {
		t.Errorf("body of %d bytes", len(md))
	}
	start := strings.Index(md, "```text\nsec/op, head/base")
	if start < 0 {
		t.Fatalf("no Forest in\n%.2000s", md)
	}
	block := md[start:]
	block = block[:strings.Index(block[3:], "```")+6]
	if n := strings.Count(block, "●") - 1; n != report.ForestMaxRows { // one ● is in the legend
		t.Errorf("forest shows %d points, want %d", n, report.ForestMaxRows)
	}
	if !strings.Contains(block, "… 430 more not shown") {
		t.Errorf("no count of the rest in\n%s", block)
	}
}
