package mdreport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

// hugeResult has 5,000 benchmarks, a 100 KB panic message and long test output: far over GitHub's
// limit.
func hugeResult() *record.Result {
	r := reportfixture.Fail()
	classes := []record.Class{record.ClassUnchanged, record.ClassFaster, record.ClassInconclusive, record.ClassSlower}
	r.Benchmarks = nil
	for i := range 5000 {
		b := reportfixture.Bench(fmt.Sprintf("Encrypt/des/case-%04d", i), "sec/op", 139.6e-9, 86.7e-9, -37.89, 0.0001,
			&record.Paired{Ratio: 0.621, Lo: 0.618, Hi: 0.624}, classes[i%len(classes)])
		if i == 4321 {
			b.Class = record.ClassFailed
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	r.Failures[0].Message = "panic: " + strings.Repeat("```` </details> <b>boom</b>\n", 100_000/28)
	r.Functional.Head.Output = strings.Repeat("--- FAIL: TestX\n", 20_000)
	return r
}

func TestMarkdownTruncates(t *testing.T) {
	r := hugeResult()
	md := Markdown(r, report.Options{ArtifactHint: "the perfgate-results artifact"})
	if len(md) > MaxBody {
		t.Fatalf("body is %d bytes, over MaxBody %d", len(md), MaxBody)
	}
	if len(md) > bodyBudget {
		t.Errorf("body is %d bytes, over the budget %d", len(md), bodyBudget)
	}
	if !strings.HasPrefix(md, Marker+"\n**perfgate: FAIL** — **1,250 slower**, 2 acknowledged by label") {
		t.Errorf("body does not start with the marker and verdict: %.120q", md)
	}
	if !strings.Contains(md, "rows omitted; the full report is in the perfgate-results artifact._") {
		t.Error("no row omission note")
	}
	if problems := lintMarkdown(md); len(problems) > 0 {
		t.Errorf("truncated body is broken:\n%s", strings.Join(problems, "\n"))
	}
	// Unchanged rows go before slower ones, and the failed row stays.
	if !strings.Contains(md, "case-4321") {
		t.Error("the failed benchmark's row was dropped")
	}
	if strings.Contains(md, "| Encrypt/des/case-0000 |") {
		t.Error("an unchanged row survived while rows were dropped")
	}
	// The verdict reasons and the method survive.
	for _, want := range []string{"- head tests failed", "**Environment:**", "Differential: ", "**total**"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q dropped", want)
		}
	}
}

func TestMarkdownManyReasons(t *testing.T) {
	// When even the rows of the small tables and the reasons must go, the body still fits and stays
	// valid.
	r := hugeResult()
	for i := range 10_000 {
		r.Verdict.Reasons = append(r.Verdict.Reasons, fmt.Sprintf("reason %d: %s", i, strings.Repeat("<x>|", 20)))
	}
	md := Markdown(r, report.Options{})
	if len(md) > bodyBudget {
		t.Fatalf("body is %d bytes, over the budget %d", len(md), bodyBudget)
	}
	if !strings.HasPrefix(md, Marker+"\n**perfgate: FAIL**") {
		t.Errorf("verdict lost: %.100q", md)
	}
	if !strings.Contains(md, "items omitted") && !strings.Contains(md, "output truncated") {
		t.Error("no omission note")
	}
	if problems := lintMarkdown(md); len(problems) > 0 {
		t.Errorf("body is broken:\n%s", strings.Join(problems, "\n"))
	}
}

func TestMarkdownDropsDetailsBeforeRows(t *testing.T) {
	// A 100 KB panic alone fits once clipped; 1,500 benchmarks need the raw table to go, not the
	// rows.
	r := hugeResult()
	r.Benchmarks = r.Benchmarks[:300]
	md := Markdown(r, report.Options{})
	if strings.Contains(md, "rows omitted") {
		t.Error("rows dropped although dropping collapsed sections was enough")
	}
	if !strings.Contains(md, "| Encrypt/des/case-0000 |") {
		t.Error("row missing")
	}
	if problems := lintMarkdown(md); len(problems) > 0 {
		t.Errorf("body is broken:\n%s", strings.Join(problems, "\n"))
	}
}

func TestTruncateAnyLength(t *testing.T) {
	// Cut a full report at many lengths: every cut fits, stays balanced and says it cut.
	body := Markdown(reportfixture.Fail(), report.Options{})
	for max := 0; max <= len(body)+10; max += 37 {
		got := Truncate(body, max)
		if len(got) > max {
			t.Fatalf("Truncate(body, %d) is %d bytes", max, len(got))
		}
		if max >= len(body) {
			if got != body {
				t.Errorf("Truncate(body, %d) changed a body that fits", max)
			}
			continue
		}
		if problems := lintMarkdown(got); len(problems) > 0 {
			t.Fatalf("Truncate(body, %d):\n%s\n\n%s", max, strings.Join(problems, "\n"), got)
		}
		if max > 500 && !strings.Contains(got, "output truncated:") {
			t.Errorf("Truncate(body, %d) has no note", max)
		}
		if max > 500 && !strings.HasPrefix(got, Marker+"\n**perfgate: FAIL**") {
			t.Errorf("Truncate(body, %d) lost the verdict", max)
		}
	}
}

func TestTruncateClosesFenceAndDetails(t *testing.T) {
	body := "<details>\n<summary>x</summary>\n\n````text\n" + strings.Repeat("line ``` </details>\n", 100) + "````\n\n</details>\n"
	got := Truncate(body, 500)
	if !strings.HasSuffix(got, "````\n\n</details>\n\n_… output truncated: 87 lines omitted; the full report is in the results directory (job artifacts)._\n") {
		t.Errorf("Truncate did not close the fence and details:\n%s", got)
	}
}
