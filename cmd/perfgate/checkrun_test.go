package main

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/record"
)

// TestConclusion: the check run's conclusion gates as the exit code does: neutral (which GitHub
// counts as passing) only for an inconclusive verdict that exits 0.
func TestConclusion(t *testing.T) {
	for _, tc := range []struct {
		status record.Status
		exit   int
		want   string
	}{
		{record.StatusPass, record.ExitPass, ghaction.ConclusionSuccess},
		{record.StatusFail, record.ExitFail, ghaction.ConclusionFailure},
		{record.StatusInconclusive, record.ExitPass, ghaction.ConclusionNeutral},
		{record.StatusInconclusive, record.ExitInconclusive, ghaction.ConclusionFailure},
		{record.StatusError, record.ExitCannotRun, ghaction.ConclusionFailure},
		{"", record.ExitPass, ghaction.ConclusionFailure}, // an unknown status never passes
	} {
		res := &record.Result{Verdict: record.Verdict{Status: tc.status, ExitCode: tc.exit}}
		if got := conclusion(res); got != tc.want {
			t.Errorf("verdict %q exit %d: conclusion %s, want %s", tc.status, tc.exit, got, tc.want)
		}
	}
}

// TestCheckRunOf: the title is the comment's verdict line as plain text, the summary the comment
// without its marker, and no text of the pull request reaches either raw.
func TestCheckRunOf(t *testing.T) {
	head := strings.Repeat("e", 40)
	res := syntheticResult(head, 3)
	md := mdreport.Markdown(res, report.Options{})
	run := checkRunOf(res, md)
	if run.Name != "perfgate" || run.HeadSHA != head || run.Conclusion != ghaction.ConclusionFailure {
		t.Errorf("check run %s on %s: %s", run.Name, run.HeadSHA, run.Conclusion)
	}
	if !strings.HasPrefix(run.Title, "perfgate: FAIL — ") || strings.ContainsAny(run.Title, "\n*") {
		t.Errorf("title %q: want the verdict line, plain", run.Title)
	}
	if strings.Contains(run.Summary, mdreport.Marker) || !strings.Contains(md, run.Summary) {
		t.Errorf("the summary is not the comment without its marker")
	}
	if strings.Contains(run.Title, "<img") || strings.Contains(outsideFences(run.Summary), "<img") {
		t.Errorf("the pull request's text reached the check run raw")
	}
}
