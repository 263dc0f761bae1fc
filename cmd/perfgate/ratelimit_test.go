package main

// GitHub's rate limits and failures on the way to the sticky comment, end to end: the Action and
// `perfgate comment` against internal/testing/fakegithub scripted with the answers GitHub documents
// (docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api).

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testing/fakegithub"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// secondaryLimit is GitHub's body of a secondary rate limit.
const secondaryLimit = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",` +
	`"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`

// TestActionRateLimits is issue 52's acceptance test: the Action run against a stand-in API that
// answers a 502, a secondary limit with and one without Retry-After, and a primary 429 leaves
// exactly one comment and exits 0. It waits for real, as GitHub asks: a minute for the secondary
// limit without Retry-After, about three seconds for the primary limit's reset, one and two
// seconds for the 502 and the Retry-After (a little over a minute and a comparison of the fixture
// in all; the issue asks for less than four minutes, which the test logs but does not check).
func TestActionRateLimits(t *testing.T) {
	testenv.Long(t) // waits a minute, as GitHub asks
	start := time.Now()
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 52
	base, head := repo.Commits["base"], repo.Commits["folded"]
	gh.SetPull(pr, head)
	dir := ghEnv(t, gh, repo.Dir)
	retrySleep = nil // real waits
	writeEvent(t, dir, pr, base, head)
	setFixtureInputs(t)
	// The gate's verdict is not what this test is about: two rounds on a loaded host may stay
	// inconclusive.
	t.Setenv("INPUT_THRESHOLD", "50%")
	t.Setenv("INPUT_ON_INCONCLUSIVE", "pass")

	gh.On(fakegithub.OpList, fakegithub.Reply{Status: http.StatusBadGateway})
	gh.On(fakegithub.OpCreate,
		fakegithub.Reply{Status: http.StatusForbidden, Header: map[string]string{"Retry-After": "2"}, Body: secondaryLimit},
		fakegithub.Reply{Status: http.StatusForbidden, Body: secondaryLimit},
		fakegithub.Reply{Status: http.StatusTooManyRequests, ResetIn: 3 * time.Second, Header: map[string]string{
			"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000"},
			Body: `{"message":"API rate limit exceeded for installation ID 1."}`})
	inv := invoke(t, "action")
	elapsed := time.Since(start)
	t.Logf("the run took %s", elapsed.Round(time.Second))

	if inv.code != record.ExitPass {
		t.Errorf("exit %d, want 0", inv.code)
	}
	_, md := checkRun(t, inv, dir, repo.Dir, pr, head)
	ours := mine(gh.Comments(pr))
	if len(ours) != 1 || gh.Writes() != 1 || ours[0].Body != md {
		t.Fatalf("%d perfgate comments, %d writes; want one, report.md", len(ours), gh.Writes())
	}
	creates := 0
	for _, r := range gh.Requests() {
		if strings.HasPrefix(r, "POST ") && strings.Contains(r, "/issues/") {
			creates++
		}
	}
	if creates != 4 {
		t.Errorf("%d creates of the comment reached GitHub, want 4 (3 refused, 1 stored)", creates)
	}
	if runs := gh.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != head {
		t.Errorf("check runs %+v, want one on head", runs)
	}
	for _, want := range []string{
		"GitHub answered 502; retrying in 1s",
		"perfgate: GitHub rate limit: waiting 2s (secondary limit, Retry-After)",
		"perfgate: GitHub rate limit: waiting 1m0s (secondary limit, no Retry-After)",
		"(primary limit, until X-RateLimit-Reset)",
		"created comment",
	} {
		if !strings.Contains(inv.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, tail(inv.stderr, 20))
		}
	}
	if strings.Contains(inv.stdout, "::warning::perfgate: could not") {
		t.Errorf("a warning although the comment was posted:\n%s", inv.stdout)
	}
}

// TestCommentRetries: perfgate comment reads the pull request and posts through the same client as
// the Action: a 502 and an answer cut short on the read, a secondary limit on the create, and it
// still posts (the waits are instant here).
func TestCommentRetries(t *testing.T) {
	gh := newFakeGitHub(t)
	const pr = 43
	head, info := commentEnv(t, gh, pr)
	dir := writeArtifact(t, syntheticResult(head, 3), info)
	gh.On(fakegithub.OpPull, fakegithub.Reply{Status: http.StatusBadGateway}, fakegithub.Reply{Cut: true})
	gh.On(fakegithub.OpCreate, fakegithub.Reply{Status: http.StatusTooManyRequests, Body: secondaryLimit})
	inv := invoke(t, "comment", dir)
	if inv.code != 0 {
		t.Fatalf("exit %d, want 0", inv.code)
	}
	if ours := mine(gh.Comments(pr)); len(ours) != 1 || gh.Writes() != 1 {
		t.Errorf("%d perfgate comments, %d writes; want 1 and 1", len(ours), gh.Writes())
	}
	if got := strings.Count(strings.Join(gh.Requests(), "\n"), "/pulls/43"); got != 3 {
		t.Errorf("%d reads of the pull request, want 3", got)
	}
	for _, want := range []string{"reading pull request #43: GitHub answered 502; retrying in 1s",
		"reading pull request #43: the request failed", "GitHub rate limit: waiting 1m0s (secondary limit, no Retry-After)"} {
		if !strings.Contains(inv.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, tail(inv.stderr, 20))
		}
	}
}

// TestCommentRateLimitOverBudget: a primary limit that resets in 50 minutes is more than the step
// has left: perfgate comment gives up at once, says how long GitHub asked and where the report is.
func TestCommentRateLimitOverBudget(t *testing.T) {
	gh := newFakeGitHub(t)
	const pr = 44
	head, info := commentEnv(t, gh, pr)
	dir := writeArtifact(t, syntheticResult(head, 3), info)
	gh.Always(fakegithub.OpCreate, fakegithub.Reply{Status: http.StatusForbidden, ResetIn: 50 * time.Minute,
		Header: map[string]string{"X-RateLimit-Remaining": "0"}, Body: `{"message":"API rate limit exceeded for user ID 1."}`})
	inv := invoke(t, "comment", dir)
	if inv.code != record.ExitCannotRun {
		t.Errorf("exit %d, want %d", inv.code, record.ExitCannotRun)
	}
	if n := gh.Count("POST"); n != 1 {
		t.Errorf("%d creates, want 1: no retry", n)
	}
	for _, want := range []string{"GitHub asks to wait 50m", "(primary limit, until X-RateLimit-Reset)",
		"the report is in the job summary"} {
		if !strings.Contains(inv.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, tail(inv.stderr, 20))
		}
	}
	if summary := readFile(t, os.Getenv("GITHUB_STEP_SUMMARY")); !strings.Contains(summary, "Bench00000") {
		t.Errorf("the job summary lacks the report")
	}
}
