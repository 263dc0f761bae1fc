package main

// perfgate action on a merge queue: the merge_group event names the commit the entry goes onto
// (base_sha) and the queue's merge commit (head_sha), and the Action compares exactly those, posts
// no comment (a queue entry is no pull request), and gates by its exit code; the check run carries
// the verdict and its annotations.

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/testing/fakegithub"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// writeMergeGroup writes the merge_group event of a queue entry from base to head, as GitHub sends
// it (docs.github.com/webhooks/webhook-events-and-payloads#merge_group), and checks head out in the
// workspace as actions/checkout does for it.
func writeMergeGroup(t *testing.T, dir, workspace, base, head string) {
	t.Helper()
	t.Setenv("GITHUB_EVENT_NAME", "merge_group")
	writeJSONFile(t, filepath.Join(dir, "event.json"), map[string]any{
		"action": "checks_requested",
		"merge_group": map[string]any{
			"head_sha": head, "head_ref": "refs/heads/gh-readonly-queue/main/pr-1-" + base,
			"base_sha": base, "base_ref": "refs/heads/main",
			"head_commit": map[string]any{"id": head, "message": "Merge pull request #1"},
		},
		"repository": map[string]any{"full_name": fakeOwner + "/" + fakeRepo},
	})
	gitIn(t, workspace, "checkout", "-q", "--detach", head)
}

// checkQueueRun checks what a run on a queue entry leaves: the exit code is the verdict's, base
// and head are the event's (never a merge-base), github.json names the event and no pull request,
// the job summary holds the report, and GitHub saw no comment nor any request about a pull request.
func checkQueueRun(t *testing.T, inv invocation, gh *fakeGitHub, dir, workspace, base, head string) (*record.Result, string) {
	t.Helper()
	res := resultOf(t, filepath.Join(workspace, "perfgate-results"))
	if inv.code != res.Verdict.ExitCode {
		t.Errorf("exit %d, result.json's verdict %s with exit code %d", inv.code, res.Verdict.Status, res.Verdict.ExitCode)
	}
	if res.Base.Commit != base || res.Head.Commit != head {
		t.Errorf("compared %s → %s, want the event's base_sha %s → head_sha %s", res.Base.Commit, res.Head.Commit, base, head)
	}
	info := readFile(t, filepath.Join(workspace, "perfgate-results", prInfoFile))
	if !strings.Contains(info, `"event": "merge_group"`) || !strings.Contains(info, `"pr": 0`) {
		t.Errorf("%s = %s, want the merge_group event and no pull request", prInfoFile, info)
	}
	md := readFile(t, filepath.Join(workspace, "perfgate-results", "report.md"))
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	if !strings.Contains(summary, md) {
		t.Errorf("the job summary does not hold report.md")
	}
	if out := readOutputs(t, filepath.Join(dir, "output")); out["verdict"] != string(res.Verdict.Status) {
		t.Errorf("output verdict = %q, want %s", out["verdict"], res.Verdict.Status)
	}
	if gh.Writes() != 0 {
		t.Errorf("%d comments written on a queue entry", gh.Writes())
	}
	for _, r := range gh.Requests() {
		if !strings.Contains(r, "/check-runs") {
			t.Errorf("a request other than the check run: %s", r)
		}
	}
	if !strings.Contains(inv.stderr, "a merge queue entry has no pull request to comment on") {
		t.Errorf("stderr does not say why there is no comment")
	}
	return res, summary
}

// TestActionMergeQueue: the queue holds a slowdown and, behind it, a README-only change, whose
// merge_group event names the slowdown as its base. The first entry fails (exit 1) with a failing
// check run whose annotations are on head's lines; the second compares the slowdown with itself
// plus the README and passes (exit 0): before perfgate read base_sha it compared the merge-base
// with the default branch, and blamed the README for the slowdown. The verdicts come from
// instruction counts, which repeat exactly, and from identical machine code: no timing decides
// them.
func TestActionMergeQueue(t *testing.T) {
	testenv.NeedTool(t, "valgrind", valgrind.InstallCommand)
	testenv.Long(t) // runs two comparisons, one under valgrind
	repo := materialize(t)
	base, slower := repo.Commits["base"], repo.Commits["slower"]
	gitIn(t, repo.Dir, "checkout", "-q", "--detach", slower)
	if err := os.WriteFile(filepath.Join(repo.Dir, "README.md"), []byte("minides\n\nA small DES.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo.Dir, "add", "README.md")
	gitIn(t, repo.Dir, "commit", "-q", "-m", "README: say what minides is")
	readme := gitIn(t, repo.Dir, "rev-parse", "HEAD")

	setup := func(t *testing.T) (*fakeGitHub, string) {
		gh := newFakeGitHub(t)
		dir := ghEnv(t, gh, repo.Dir)
		setFixtureInputs(t)
		t.Setenv("INPUT_METRIC", "instructions")
		t.Setenv("INPUT_BENCH", "^Encrypt$/^des$")
		t.Setenv("INPUT_KEYS", "16")
		return gh, dir
	}

	t.Run("slowdown", func(t *testing.T) {
		gh, dir := setup(t)
		writeMergeGroup(t, dir, repo.Dir, base, slower)
		inv := invoke(t, "action")
		res, summary := checkQueueRun(t, inv, gh, dir, repo.Dir, base, slower)
		if inv.code != record.ExitFail || res.Verdict.Status != record.StatusFail {
			t.Fatalf("exit %d, verdict %s %q; want 1, fail", inv.code, res.Verdict.Status, res.Verdict.Reasons)
		}
		if !strings.Contains(summary, "FAIL") || !strings.Contains(summary, "Encrypt/des") {
			t.Errorf("the job summary does not name FAIL and Encrypt/des")
		}
		runs := gh.CheckRuns()
		if len(runs) != 1 {
			t.Fatalf("%d check runs, want 1", len(runs))
		}
		cr := runs[0]
		if cr.Name != "perfgate" || cr.HeadSHA != slower || cr.Status != "completed" ||
			cr.Conclusion != ghaction.ConclusionFailure || !strings.HasPrefix(cr.Title, "perfgate: FAIL — 1 slower") ||
			!strings.Contains(cr.Summary, "Encrypt/des") {
			t.Errorf("check run %s on %s: %s %s, title %q", cr.Name, cr.HeadSHA, cr.Status, cr.Conclusion, cr.Title)
		}
		// why it changed names lines of head's minides/block.go, where the bits are now placed one
		// by one
		failing := 0
		for _, a := range cr.Annotations {
			if !strings.HasPrefix(a.Path, "minides/") || a.StartLine < 1 {
				t.Errorf("annotation on %s:%d, want a line of the package", a.Path, a.StartLine)
			}
			if a.Level == ghaction.LevelFailure {
				failing++
			}
		}
		if failing == 0 {
			t.Errorf("no failure annotation on the slower benchmark's lines: %+v", cr.Annotations)
		}
		if !strings.Contains(inv.stderr, "created check run") {
			t.Errorf("stderr does not name the check run")
		}
	})

	t.Run("behind it", func(t *testing.T) {
		gh, dir := setup(t)
		writeMergeGroup(t, dir, repo.Dir, slower, readme)
		inv := invoke(t, "action")
		res, _ := checkQueueRun(t, inv, gh, dir, repo.Dir, slower, readme)
		if inv.code != record.ExitPass || res.Verdict.Status != record.StatusPass {
			t.Fatalf("exit %d, verdict %s %q; want 0, pass", inv.code, res.Verdict.Status, res.Verdict.Reasons)
		}
		if runs := gh.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != readme ||
			runs[0].Conclusion != ghaction.ConclusionSuccess || len(runs[0].Annotations) != 0 {
			t.Errorf("check runs %+v, want one success on head without annotations", runs)
		}
	})
}

// TestActionMergeQueueNoChecksPermission: a queue entry whose head fails the differential check,
// with a token that may not create check runs (GitHub's 403): the verdict and the exit code stay
// the gate's (1), the job summary holds the report, and stderr has one note and no warning.
func TestActionMergeQueueNoChecksPermission(t *testing.T) {
	testenv.Long(t) // runs a comparison
	repo := materialize(t)
	base, head := repo.Commits["folded"], repo.Commits["broken"]
	gh := newFakeGitHub(t)
	gh.Always(fakegithub.OpCheckCreate, fakegithub.Reply{Status: http.StatusForbidden,
		Body: `{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run"}`})
	dir := ghEnv(t, gh, repo.Dir)
	setFixtureInputs(t)
	t.Setenv("INPUT_BENCH", "^Encrypt$/^des$")
	writeMergeGroup(t, dir, repo.Dir, base, head)
	inv := invoke(t, "action")
	res, _ := checkQueueRun(t, inv, gh, dir, repo.Dir, base, head)
	if inv.code != record.ExitFail || res.Differential.Status != record.DiffMismatch {
		t.Errorf("exit %d, differential %s; want 1, mismatch", inv.code, res.Differential.Status)
	}
	if n := gh.Count(http.MethodPost); n != 1 || len(gh.CheckRuns()) != 0 {
		t.Errorf("%d creates, %d check runs; want 1 refused", n, len(gh.CheckRuns()))
	}
	if got := strings.Count(inv.stderr, "lacks 'checks: write'"); got != 1 {
		t.Errorf("stderr names the missing permission %d times, want once:\n%s", got, tail(inv.stderr, 10))
	}
	if strings.Contains(inv.stdout, "::warning::perfgate: could not") {
		t.Errorf("a warning for a missing permission:\n%s", inv.stdout)
	}
}
