package ghaction

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/testing/fakegithub"
)

// syntheticRun is a failing check run with n annotations, on lines 1..n of two files.
func syntheticRun(n int) CheckRun {
	run := CheckRun{Name: "perfgate", HeadSHA: strings.Repeat("c", 40), Conclusion: ConclusionFailure,
		Title: "perfgate: FAIL — 1 slower", Summary: "**perfgate: FAIL** — 1 slower"}
	for i := range n {
		level := LevelWarning
		if i%3 == 0 {
			level = LevelFailure
		}
		run.Annotations = append(run.Annotations, Annotation{Path: fmt.Sprintf("cipher/des/f%d.go", i%2), Line: i + 1,
			Level: level, Title: "Encrypt/des slower", Message: fmt.Sprintf("+%d instructions/op", i)})
	}
	return run
}

// TestCreateCheckRunBatches: 120 annotations go out as GitHub takes them, 50 a request: the create
// with the first 50, then two updates of the same run with 50 and 20, which the run appends; the
// conclusion, title and summary are the create's.
func TestCreateCheckRunBatches(t *testing.T) {
	f := newFakeGitHub(t)
	var slept []string
	run := syntheticRun(120)
	posted, err := f.client(&slept).CreateCheckRun(context.Background(), testOwner, testRepo, run)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.CheckRequests()
	var got []string
	for _, r := range reqs {
		out, _ := r.Body["output"].(map[string]any)
		anns, _ := out["annotations"].([]any)
		got = append(got, fmt.Sprintf("%s %d", r.Op, len(anns)))
	}
	want := []string{fakegithub.OpCheckCreate + " 50", fakegithub.OpCheckUpdate + " 50", fakegithub.OpCheckUpdate + " 20"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	runs := f.CheckRuns()
	if len(runs) != 1 {
		t.Fatalf("%d check runs, want 1", len(runs))
	}
	r := runs[0]
	if r.Name != "perfgate" || r.HeadSHA != run.HeadSHA || r.Status != "completed" || r.Conclusion != ConclusionFailure ||
		r.Title != run.Title || r.Summary != run.Summary || r.CompletedAt == "" {
		t.Errorf("check run %+v", r)
	}
	if posted.ID != r.ID || posted.Annotations != 120 || !strings.HasSuffix(posted.URL, fmt.Sprintf("/runs/%d", r.ID)) {
		t.Errorf("posted %+v, want run %d with 120 annotations", posted, r.ID)
	}
	if len(r.Annotations) != 120 {
		t.Fatalf("the run holds %d annotations, want 120", len(r.Annotations))
	}
	for i, a := range r.Annotations { // in order, none lost or repeated
		w := run.Annotations[i]
		if a.Path != w.Path || a.StartLine != w.Line || a.EndLine != w.Line || a.Level != w.Level || a.Message != w.Message {
			t.Errorf("annotation %d = %+v, want %+v", i, a, w)
		}
	}
	if len(slept) != 0 {
		t.Errorf("waited %v", slept)
	}
}

// TestCreateCheckRunExactBatches: 50 annotations are one request, 100 two, none one.
func TestCreateCheckRunExactBatches(t *testing.T) {
	for _, tc := range []struct{ n, requests int }{{0, 1}, {50, 1}, {51, 2}, {100, 2}} {
		f := newFakeGitHub(t)
		if _, err := f.client(nil).CreateCheckRun(context.Background(), testOwner, testRepo, syntheticRun(tc.n)); err != nil {
			t.Fatal(err)
		}
		if got := len(f.CheckRequests()); got != tc.requests {
			t.Errorf("%d annotations: %d requests, want %d", tc.n, got, tc.requests)
		}
		if runs := f.CheckRuns(); len(runs) != 1 || len(runs[0].Annotations) != tc.n {
			t.Errorf("%d annotations: runs %+v", tc.n, runs)
		}
	}
}

// TestCreateCheckRunSummary: a summary over GitHub's 65,535 characters is shortened by Shorten
// (with its note), and without Shorten cut at a character boundary.
func TestCreateCheckRunSummary(t *testing.T) {
	long := strings.Repeat("é line\n", 12000) // 84,000 characters
	for _, tc := range []struct {
		name    string
		shorten func(string, int) string
		note    string
	}{
		{"Shorten", func(s string, max int) string { return s[:max-20] + "\n(cut: see the job)\n" }, "(cut: see the job)"},
		{"nil", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			run := syntheticRun(1)
			run.Summary, run.Shorten = long, tc.shorten
			if _, err := f.client(nil).CreateCheckRun(context.Background(), testOwner, testRepo, run); err != nil {
				t.Fatal(err) // the fake answers 422 to a summary over the limit
			}
			got := f.CheckRuns()[0].Summary
			if len(got) > MaxSummary || !strings.HasPrefix(long, strings.TrimSuffix(got, "\n(cut: see the job)\n")) ||
				!strings.HasSuffix(got, tc.note+"\n") && tc.note != "" {
				t.Errorf("summary of %d bytes ending %q", len(got), got[max(0, len(got)-30):])
			}
		})
	}
}

// TestCreateCheckRunForbidden: a token without checks: write gets GitHub's 403, tried once: the
// error says which permission is missing and IsForbidden tells it; no update follows.
func TestCreateCheckRunForbidden(t *testing.T) {
	f := newFakeGitHub(t)
	f.Always(fakegithub.OpCheckCreate, fakegithub.Reply{Status: http.StatusForbidden,
		Body: `{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run"}`})
	var slept []string
	posted, err := f.client(&slept).CreateCheckRun(context.Background(), testOwner, testRepo, syntheticRun(120))
	if err == nil || posted != nil {
		t.Fatalf("posted %+v, err %v; want a 403", posted, err)
	}
	if !IsForbidden(err) || !strings.Contains(err.Error(), "checks: write") ||
		!strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Errorf("error %q: want a 403 naming checks: write", err)
	}
	if n := f.Count(http.MethodPost); n != 1 || f.Count(http.MethodPatch) != 0 {
		t.Errorf("%d creates, %d updates; want 1 and 0", n, f.Count(http.MethodPatch))
	}
	if len(slept) != 0 {
		t.Errorf("waited %v before giving up on a 403", slept)
	}
}

// TestCreateCheckRunUpdateFails: when an update fails for good, the run exists with the
// annotations sent so far, and the result says how many.
func TestCreateCheckRunUpdateFails(t *testing.T) {
	f := newFakeGitHub(t)
	calls := 0
	f.Always(http.MethodPatch, fakegithub.Reply{Status: http.StatusUnprocessableEntity, Do: func() { calls++ }})
	posted, err := f.client(nil).CreateCheckRun(context.Background(), testOwner, testRepo, syntheticRun(120))
	if err == nil || posted == nil || posted.Annotations != 50 || calls != 1 {
		t.Errorf("posted %+v, err %v, %d updates: want the run with 50 annotations and the update's error", posted, err, calls)
	}
}
