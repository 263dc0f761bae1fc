package ghaction

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/testing/fakegithub"
)

// testMarker is mdreport.Marker, the hidden line that identifies perfgate's comment (copied: report
// imports nothing from here and this package must not import report).
const testMarker = "<!-- perfgate:comment -->"

const testPR = 42

func body(text string) string { return testMarker + "\n" + text }

func TestNewClient(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "https://api.github.com/"},
		{"https://api.github.com", "https://api.github.com/"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/"},
		{"http://127.0.0.1:8080/api/v3", "http://127.0.0.1:8080/api/v3/"},
	} {
		c, err := NewClient(tc.in, testToken)
		if err != nil {
			t.Errorf("NewClient(%q): %v", tc.in, err)
			continue
		}
		if got := c.BaseURL.String(); got != tc.want {
			t.Errorf("NewClient(%q).BaseURL = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, in := range []string{"ftp://ghe.example.com/api/v3", "ghe.example.com/api/v3", "https://", "http://%zz"} {
		if _, err := NewClient(in, testToken); err == nil || !strings.Contains(err.Error(), "GITHUB_API_URL") {
			t.Errorf("NewClient(%q): error %v, want one naming GITHUB_API_URL", in, err)
		}
	}
}

func TestUpsertCreatesThenEdits(t *testing.T) {
	f := newFakeGitHub(t)
	f.Add(testPR, "octocat", "LGTM")
	f.Add(testPR+1, BotLogin, body("another pull request's report")) // must not be found for testPR
	var slept []string
	c := f.commenter(&slept)
	var first *Posted
	for run := 1; run <= 3; run++ {
		text := body(fmt.Sprintf("run %d", run))
		p, err := c.Upsert(context.Background(), testPR, text)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if run == 1 {
			first = p
			if !p.Created {
				t.Errorf("run 1: Created = false, want a new comment")
			}
		} else if p.Created || p.ID != first.ID {
			t.Errorf("run %d: Created %v, ID %d; want the edit of comment %d", run, p.Created, p.ID, first.ID)
		}
		if p.Author != BotLogin {
			t.Errorf("run %d: Author %q, want %q", run, p.Author, BotLogin)
		}
		want := []fakegithub.Comment{{ID: first.ID, Body: text, Login: BotLogin}}
		if diff := cmp.Diff(want, f.marked(testPR)); diff != "" {
			t.Errorf("run %d: perfgate comments (-want +got):\n%s", run, diff)
		}
	}
	wantURL := fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", testOwner, testRepo, testPR, first.ID)
	if first.URL != wantURL {
		t.Errorf("URL %q, want %q", first.URL, wantURL)
	}
	// One GET /user (the author is remembered), three listings, one create, two edits.
	if got := [4]int{f.Count("GET"), f.Count("POST"), f.Count("PATCH"), len(slept)}; got != [4]int{4, 1, 2, 0} {
		t.Errorf("GET, POST, PATCH, sleeps = %v, want [4 1 2 0]; requests:\n%s", got, strings.Join(f.Requests(), "\n"))
	}
	if c.Author != BotLogin {
		t.Errorf("Commenter.Author = %q after discovery, want %q", c.Author, BotLogin)
	}
}

func TestUpsertPagesThroughComments(t *testing.T) {
	f := newFakeGitHub(t)
	var mine fakegithub.Comment
	for i := range 250 {
		if i == 230 { // on page 3 of 100 per page
			mine = f.Add(testPR, BotLogin, body("old report"))
			continue
		}
		f.Add(testPR, "octocat", fmt.Sprintf("comment %d", i))
	}
	var slept []string
	c := f.commenter(&slept)
	c.Author = BotLogin
	p, err := c.Upsert(context.Background(), testPR, body("new report"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Created || p.ID != mine.ID {
		t.Errorf("Posted %+v, want the edit of comment %d", p, mine.ID)
	}
	want := []string{
		fmt.Sprintf("GET %s/repos/%s/%s/issues/%d/comments?per_page=100", apiPrefix, testOwner, testRepo, testPR),
		fmt.Sprintf("GET %s/repos/%s/%s/issues/%d/comments?page=3&per_page=100", apiPrefix, testOwner, testRepo, testPR),
		fmt.Sprintf("PATCH %s/repos/%s/%s/issues/comments/%d", apiPrefix, testOwner, testRepo, mine.ID),
	}
	if diff := cmp.Diff(want, f.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if got := f.marked(testPR); len(got) != 1 || got[0].Body != body("new report") {
		t.Errorf("perfgate comments %+v, want the one edited", got)
	}
}

// TestUpsertFindsCommentOnAnyPage: in a thread of more than 100 pages of 100 comments, perfgate's
// comment is found on the first page (walking back from the last), in the middle and on the last
// page; three runs in a row leave one comment, edited three times.
func TestUpsertFindsCommentOnAnyPage(t *testing.T) {
	const n = 101*100 + 37 // 102 pages
	for _, at := range []int{5, 5000, n - 3} {
		t.Run(strconv.Itoa(at), func(t *testing.T) {
			f := newFakeGitHub(t)
			var mine fakegithub.Comment
			for i := range n {
				if i == at {
					mine = f.Add(testPR, BotLogin, body("old report"))
					continue
				}
				f.Add(testPR, "octocat", "comment")
			}
			var slept []string
			c := f.commenter(&slept)
			c.Author = BotLogin
			for run := range 3 {
				p, err := c.Upsert(context.Background(), testPR, body(fmt.Sprintf("report %d", run)))
				if err != nil {
					t.Fatal(err)
				}
				if p.Created || p.ID != mine.ID {
					t.Fatalf("run %d: Posted %+v, want the edit of comment %d", run, p, mine.ID)
				}
			}
			if got := f.marked(testPR); len(got) != 1 || got[0].Body != body("report 2") {
				t.Errorf("perfgate comments %+v, want the one, edited", got)
			}
			// Each run reads page 1, then from the last page back to the comment's (page 1 is not
			// read twice).
			want := 3 * (1 + 102 - max(at/100+1, 2) + 1)
			if f.Count("GET") != want {
				t.Errorf("%d GETs, want %d", f.Count("GET"), want)
			}
		})
	}
}

func TestUpsertLeavesForeignCommentsAlone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		login   string // the token's user; "" for an installation token
		foreign string // who wrote a comment that carries the marker
		author  string // who perfgate is
	}{
		{"installation token", "", "mallory", BotLogin},
		{"personal token", "octocat", BotLogin, "octocat"},
		{"personal token, another user", "octocat", "mallory", "octocat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.SetLogin(tc.login)
			foreign := f.Add(testPR, tc.foreign, body("copied the marker"))
			var slept []string
			c := f.commenter(&slept)
			p, err := c.Upsert(context.Background(), testPR, body("report"))
			if err != nil {
				t.Fatal(err)
			}
			if !p.Created || p.ID == foreign.ID || p.Author != tc.author {
				t.Errorf("Posted %+v, want a new comment by %s", p, tc.author)
			}
			want := []fakegithub.Comment{foreign, {ID: p.ID, Body: body("report"), Login: tc.author}}
			if diff := cmp.Diff(want, f.marked(testPR)); diff != "" {
				t.Errorf("perfgate comments (-want +got):\n%s", diff)
			}
			if n := f.Count("PATCH"); n != 0 {
				t.Errorf("%d edits, want none", n)
			}
			// The next run edits its own comment, still not the foreign one.
			p2, err := c.Upsert(context.Background(), testPR, body("report 2"))
			if err != nil {
				t.Fatal(err)
			}
			want[1].Body = body("report 2")
			if diff := cmp.Diff(want, f.marked(testPR)); diff != "" || p2.ID != p.ID || p2.Created {
				t.Errorf("second run: Posted %+v; perfgate comments (-want +got):\n%s", p2, diff)
			}
		})
	}
}

func TestUpsertAuthor(t *testing.T) {
	t.Run("given", func(t *testing.T) {
		f := newFakeGitHub(t)
		f.SetLogin("octocat")
		var slept []string
		c := f.commenter(&slept)
		c.Author = "OctoCat" // logins compare without case, as GitHub's do
		mine := f.Add(testPR, "octocat", body("old"))
		p, err := c.Upsert(context.Background(), testPR, body("new"))
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != mine.ID || p.Created || p.Author != "OctoCat" {
			t.Errorf("Posted %+v, want the edit of %d", p, mine.ID)
		}
		for _, r := range f.Requests() {
			if strings.Contains(r, "/user") {
				t.Errorf("%s: the author was given, want no discovery", r)
			}
		}
	})
	t.Run("/user fails", func(t *testing.T) {
		f := newFakeGitHub(t)
		f.On("GET", fakegithub.Reply{Status: 401, Body: `{"message":"Bad credentials"}`})
		var slept []string
		c := f.commenter(&slept)
		_, err := c.Upsert(context.Background(), testPR, body("report"))
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || c.Author != "" {
			t.Fatalf("Upsert: %v (Author %q), want *APIError 401 and no author", err, c.Author)
		}
		if n := f.Count("POST"); n != 0 {
			t.Errorf("%d comments created without knowing the author", n)
		}
	})
}

func TestUpsertRejected(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		hint   string
	}{
		// GitHub's answers to a fork's read-only GITHUB_TOKEN and to a repository the token cannot
		// see.
		{http.StatusForbidden, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`, "read-only token"},
		{http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`, "no such repository"},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			f := newFakeGitHub(t)
			f.Always("POST", fakegithub.Reply{Status: tc.status, Body: tc.body})
			var slept []string
			c := f.commenter(&slept)
			p, err := c.Upsert(context.Background(), testPR, body("report"))
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != tc.status {
				t.Fatalf("Upsert = %+v, %v; want *APIError with status %d", p, err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.hint) || !strings.Contains(err.Error(), "#42") {
				t.Errorf("error %q lacks the hint %q or the pull request", err, tc.hint)
			}
			if n := f.Count("POST"); n != 1 || len(slept) != 0 {
				t.Errorf("%d creates, sleeps %v; want one create and no retry", n, slept)
			}
		})
	}
}

func TestUpsertEditOfDeletedComment(t *testing.T) {
	f := newFakeGitHub(t)
	old := f.Add(testPR, BotLogin, body("old"))
	// deleted after the listing
	f.On("PATCH", fakegithub.Reply{Status: http.StatusNotFound, Body: `{"message":"Not Found"}`})
	var slept []string
	c := f.commenter(&slept)
	p, err := c.Upsert(context.Background(), testPR, body("new"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Created || p.ID == old.ID {
		t.Errorf("Posted %+v, want a new comment", p)
	}
	if n := f.Count("POST"); n != 1 {
		t.Errorf("%d creates, want 1", n)
	}
}

// A create that GitHub stored but answered with 502 must not leave two comments: the retry finds it
// and edits it.
func TestUpsertCreateStoredDespiteError(t *testing.T) {
	f := newFakeGitHub(t)
	f.On("POST", fakegithub.Reply{Status: http.StatusBadGateway, Body: `{"message":"Server Error"}`, Do: func() {
		f.Add(testPR, BotLogin, body("report"))
	}})
	var slept []string
	c := f.commenter(&slept)
	p, err := c.Upsert(context.Background(), testPR, body("report"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.marked(testPR); len(got) != 1 || p.ID != got[0].ID || p.Created {
		t.Errorf("Posted %+v, perfgate comments %+v; want the edit of the one stored", p, got)
	}
	if got := [2]int{f.Count("POST"), f.Count("PATCH")}; got != [2]int{1, 1} {
		t.Errorf("POST, PATCH = %v, want [1 1]", got)
	}
}

func TestUpsertShortensRejectedBody(t *testing.T) {
	long := body(strings.Repeat("é", 3000) + "\nTHE END") // 3,000 two-byte characters
	for _, tc := range []struct {
		name    string
		maxBody int
		shorten func(string, int) string
		edit    bool
	}{
		{"cut", 1000, nil, false},
		{"cut, edit", 1000, nil, true},
		{"Shorten keeps marker", 500, func(s string, n int) string {
			return cut(s, n-len("\n(truncated)")) + "\n(truncated)"
		}, false},
		{"Shorten drops marker", 1000, func(s string, n int) string { return strings.Repeat("x", n) }, false},
		{"Shorten does nothing", 700, func(s string, n int) string { return s }, false},
		{"only the stub fits", len(body(tooLong)), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.SetMaxBody(tc.maxBody)
			var mine fakegithub.Comment
			if tc.edit {
				mine = f.Add(testPR, BotLogin, body("old"))
			}
			var slept []string
			c := f.commenter(&slept)
			var calls []int
			if tc.shorten != nil {
				c.Shorten = func(s string, n int) string { calls = append(calls, n); return tc.shorten(s, n) }
			}
			p, err := c.Upsert(context.Background(), testPR, long)
			if err != nil {
				t.Fatal(err)
			}
			got := f.marked(testPR)
			if len(got) != 1 || got[0].ID != p.ID || (tc.edit && p.ID != mine.ID) {
				t.Fatalf("Posted %+v, perfgate comments %+v; want exactly one", p, got)
			}
			b := got[0].Body
			if !strings.HasPrefix(b, testMarker) || !utf8.ValidString(b) || utf8.RuneCountInString(b) > tc.maxBody {
				t.Errorf("stored body (%d characters) lacks the marker, is not UTF-8 or is too long: %.80q…", utf8.RuneCountInString(b), b)
			}
			if tc.shorten != nil && len(calls) == 0 {
				t.Errorf("Shorten never called")
			}
			if len(slept) != 0 {
				t.Errorf("slept %v: a 422 is not retried by waiting", slept)
			}
			if n := f.Count("POST") + f.Count("PATCH"); n > 6 {
				t.Errorf("%d writes for one comment", n)
			}
		})
	}
}

func TestUpsertStubRejected(t *testing.T) {
	f := newFakeGitHub(t)
	f.SetMaxBody(20) // shorter than the marker and the note
	var slept []string
	c := f.commenter(&slept)
	_, err := c.Upsert(context.Background(), testPR, body(strings.Repeat("x", 5000)))
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnprocessableEntity {
		t.Fatalf("Upsert: %v, want *APIError 422", err)
	}
	if n := f.Count("POST"); n < 2 || n > 6 {
		t.Errorf("%d creates; want a few shortened tries, then giving up", n)
	}
}

func TestUpsertOverMaxBody(t *testing.T) {
	f := newFakeGitHub(t)
	f.SetMaxBody(MaxBody) // GitHub's limit: 65,536 characters
	var slept []string
	c := f.commenter(&slept)
	if _, err := c.Upsert(context.Background(), testPR, body(strings.Repeat("ü", MaxBody))); err != nil {
		t.Fatal(err)
	}
	got := f.marked(testPR)
	if len(got) != 1 {
		t.Fatalf("%d perfgate comments, want 1", len(got))
	}
	if b := got[0].Body; len(b) > MaxBody || !utf8.ValidString(b) || !strings.HasPrefix(b, testMarker) {
		t.Errorf("stored body of %d bytes; want at most %d, valid UTF-8, with the marker", len(b), MaxBody)
	}
	if n := f.Count("POST"); n != 1 {
		t.Errorf("%d creates, want 1: the body is cut before it is sent", n)
	}
}

func TestUpsertInvalid(t *testing.T) {
	f := newFakeGitHub(t)
	var slept []string
	c := f.commenter(&slept)
	for _, tc := range []struct {
		pr   int
		body string
		want string
	}{
		{0, body("report"), "no pull request"},
		{-1, body("report"), "no pull request"},
		{testPR, "report without the marker", "lacks the marker"},
	} {
		if _, err := c.Upsert(context.Background(), tc.pr, tc.body); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Upsert(%d, %q): %v, want an error containing %q", tc.pr, tc.body, err, tc.want)
		}
	}
	c.Marker = ""
	if _, err := c.Upsert(context.Background(), testPR, body("report")); err == nil {
		t.Errorf("Upsert with no marker: no error")
	}
	if got := f.Requests(); len(got) != 0 {
		t.Errorf("requests %v, want none", got)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: not split
		{"héllo", 3, "hé"},
		{"€uro", 2, ""}, // € is three bytes
		{"abc", -1, ""},
	} {
		if got := cut(tc.s, tc.max); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// TestUpsertMarkerAtStart: a comment that carries the marker anywhere but at its start is a quote
// of perfgate's comment — by another bot, or by perfgate's own identity in a reply — and is never
// overwritten.
func TestUpsertMarkerAtStart(t *testing.T) {
	for _, login := range []string{"", "octocat"} {
		t.Run("login "+login, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.SetLogin(login)
			author := login
			if author == "" {
				author = BotLogin
			}
			quoted := f.Add(testPR, author, "> "+body("an older report, quoted"))
			bot := f.Add(testPR, "dependabot[bot]", "Note: "+body("quoted by another bot"))
			var slept []string
			p, err := f.commenter(&slept).Upsert(context.Background(), testPR, body("report"))
			if err != nil {
				t.Fatal(err)
			}
			if !p.Created || p.ID == quoted.ID || p.ID == bot.ID {
				t.Errorf("Posted %+v, want a new comment", p)
			}
			if n := f.Count("PATCH"); n != 0 {
				t.Errorf("%d edits, want none", n)
			}
			if _, err := f.commenter(&slept).Upsert(context.Background(), testPR, "x"+body("report")); err == nil ||
				!strings.Contains(err.Error(), "at its start") {
				t.Errorf("Upsert of a body with the marker inside: %v, want an error", err)
			}
		})
	}
}

// TestUpsertGitHubAppToken: with a GitHub App's installation token /user answers 403 and the
// comments are written by "<app>[bot]", not github-actions[bot]. The second run must edit the first
// run's comment (before the fix every run posted a new one); comments by users and by other bots
// that carry the marker are left alone.
func TestUpsertGitHubAppToken(t *testing.T) {
	f := newFakeGitHub(t)
	f.SetApp("perfgate-ci")
	user := f.Add(testPR, "mallory", body("a user's copy"))
	quote := f.Add(testPR, "dependabot[bot]", "> "+body("a bot's quote"))
	var slept []string
	p1, err := f.commenter(&slept).Upsert(context.Background(), testPR, body("run 1"))
	if err != nil {
		t.Fatal(err)
	}
	if !p1.Created || p1.Author != "perfgate-ci[bot]" {
		t.Errorf("first run: Posted %+v, want a new comment by perfgate-ci[bot]", p1)
	}
	p2, err := f.commenter(&slept).Upsert(context.Background(), testPR, body("run 2"))
	if err != nil {
		t.Fatal(err)
	}
	if p2.Created || p2.ID != p1.ID {
		t.Errorf("second run: Posted %+v, want the edit of %d", p2, p1.ID)
	}
	want := []fakegithub.Comment{user, quote, {ID: p1.ID, Body: body("run 2"), Login: "perfgate-ci[bot]"}}
	if diff := cmp.Diff(want, f.marked(testPR)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	// Another GitHub App's comment that starts with the marker, more recent than perfgate's:
	// perfgate may take it for its own, GitHub refuses the edit, and perfgate posts its own instead
	// of failing.
	other := f.Add(testPR, "other-app[bot]", body("another app's report"))
	f.AllowForeignEdits()
	p3, err := f.commenter(&slept).Upsert(context.Background(), testPR, body("run 3"))
	if err != nil {
		t.Fatal(err)
	}
	if !p3.Created || p3.ID == other.ID {
		t.Errorf("third run: Posted %+v, want a new comment", p3)
	}
	if got := f.marked(testPR); got[3].Body != other.Body {
		t.Errorf("the other app's comment changed: %q", got[3].Body)
	}
}

// TestUpsertEditOnly: with EditOnly, Upsert creates no comment, but edits the one there is.
func TestUpsertEditOnly(t *testing.T) {
	f := newFakeGitHub(t)
	var slept []string
	c := f.commenter(&slept)
	c.EditOnly = true
	p, err := c.Upsert(context.Background(), testPR, body("pass"))
	if err != nil || p != nil || f.Count("POST") != 0 {
		t.Fatalf("no comment yet: Upsert = %+v, %v, %d POSTs; want nil, nil, none", p, err, f.Count("POST"))
	}
	f.Add(testPR, BotLogin, body("fail"))
	p, err = c.Upsert(context.Background(), testPR, body("pass again"))
	if err != nil || p == nil || p.Created {
		t.Fatalf("with a comment: Upsert = %+v, %v; want an edit", p, err)
	}
	if got := f.marked(testPR); len(got) != 1 || got[0].Body != body("pass again") {
		t.Errorf("perfgate comments %+v, want the one edited", got)
	}
}
