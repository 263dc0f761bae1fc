package ghaction

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
)

// DefaultBudget is how long the GitHub calls of one Client may take in all, waits included, when
// Budget is 0: a wait for a rate limit that would end later gives up at once.
const DefaultBudget = 10 * time.Minute

// Client is perfgate's way to GitHub's REST API: go-github makes every call, and Do retries it
// under one policy that follows GitHub's documented rules (see retry.go). One Client serves one
// step: its Budget counts from its first call.
//
// A call is a function of a *github.Client, so any endpoint go-github knows goes through the same
// retries:
//
//	err := c.Do(ctx, "creating the check run", func(gh *github.Client) (*github.Response, error) {
//		_, resp, err := gh.Checks.CreateCheckRun(ctx, owner, repo, opts)
//		return resp, err
//	})
type Client struct {
	// BaseURL is the API's root, ending in a slash: https://api.github.com/, or
	// https://HOST/api/v3/ on GitHub Enterprise Server. Request paths are resolved against it.
	BaseURL *url.URL
	HTTP    *http.Client
	// Budget bounds the time all calls may take, waits included, counted from the first call;
	// 0 is DefaultBudget. A context deadline that comes sooner bounds them too.
	Budget time.Duration
	// Attempts bounds the tries of one call (default 10); the budget usually ends them first.
	Attempts int
	// Now tells the time; nil is time.Now. Sleep waits d or until ctx is done, returning ctx's
	// error then; nil waits on a timer. Tests give both a fake clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Log receives one progress line per wait; nil discards.
	Log io.Writer

	token string

	mu        sync.Mutex
	start     time.Time // the first call's
	secondary int       // secondary limits without Retry-After in a row: each doubles the next wait
}

// NewClient returns a client for the REST API at apiURL ("" for api.github.com; GITHUB_API_URL on
// a runner, which on GitHub Enterprise Server ends in /api/v3) authenticated with token.
func NewClient(apiURL, token string) (*Client, error) {
	c := &Client{HTTP: &http.Client{Timeout: 30 * time.Second}, token: token}
	if apiURL == "" {
		apiURL = "https://api.github.com"
	}
	u, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", apiURL, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q is not an http(s) URL", apiURL)
	}
	c.BaseURL = u
	return c, nil
}

// GitHub returns a new go-github client on c's transport, base URL and token. Do gives every try a
// new one: go-github v60 remembers the rate limits of its answers and refuses, without sending it,
// any request it believes would be limited (a *github.RateLimitError or AbuseRateLimitError of its
// own, on the wall clock); perfgate's policy has decided when to try again, so nothing of an
// earlier answer may be remembered.
func (c *Client) GitHub() *github.Client {
	gh := github.NewClient(c.HTTP)
	if c.token != "" {
		gh = gh.WithAuthToken(c.token)
	}
	u := *c.BaseURL
	gh.BaseURL = &u
	gh.UserAgent = "perfgate"
	return gh
}

// PullRequest is the part of a pull request perfgate reads.
type PullRequest struct {
	Number int
	Head   struct{ SHA string }
	Labels []struct{ Name string }
}

// PullRequest reads pull request n of owner/repo (GET /repos/{owner}/{repo}/pulls/{n}).
func (c *Client) PullRequest(ctx context.Context, owner, repo string, n int) (*PullRequest, error) {
	var got *github.PullRequest
	err := c.Do(ctx, fmt.Sprintf("reading pull request #%d", n), func(gh *github.Client) (*github.Response, error) {
		var resp *github.Response
		var err error
		got, resp, err = gh.PullRequests.Get(ctx, owner, repo, n)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	pr := &PullRequest{Number: got.GetNumber()}
	pr.Head.SHA = got.GetHead().GetSHA()
	for _, l := range got.Labels {
		pr.Labels = append(pr.Labels, struct{ Name string }{l.GetName()})
	}
	return pr, nil
}

// comment is an issue comment as the list endpoint returns it, with the app that wrote it, which
// go-github's IssueComment lacks.
type comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
	App *struct {
		Slug string `json:"slug"`
	} `json:"performed_via_github_app"`
}

// fromIssueComment is the comment go-github returned from a create or an edit.
func fromIssueComment(ic *github.IssueComment) *comment {
	cm := &comment{ID: ic.GetID(), Body: ic.GetBody(), HTMLURL: ic.GetHTMLURL()}
	cm.User.Login, cm.User.Type = ic.GetUser().GetLogin(), ic.GetUser().GetType()
	return cm
}

// user reads the token's user's login (GET /user), without retries: the caller retries.
func user(ctx context.Context, gh *github.Client) (string, *github.Response, error) {
	u, resp, err := gh.Users.Get(ctx, "")
	return u.GetLogin(), resp, err
}

// listComments lists page (from 1) of pull request pr's comments, 100 a page
// (GET /repos/{owner}/{repo}/issues/{pr}/comments), and returns the number of the last page that
// the Link header names (0 when it names none: this is the only page).
func listComments(ctx context.Context, gh *github.Client, owner, repo string, pr, page int) ([]*comment, int,
	*github.Response, error) {
	u := fmt.Sprintf("repos/%s/%s/issues/%d/comments?", url.PathEscape(owner), url.PathEscape(repo), pr)
	if page > 1 {
		u += fmt.Sprintf("page=%d&", page)
	}
	u += "per_page=100"
	req, err := gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, nil, err
	}
	var comments []*comment
	resp, err := gh.Do(ctx, req, &comments)
	if err != nil {
		return nil, 0, resp, err
	}
	return comments, resp.LastPage, resp, nil
}

// createComment adds a comment to pull request pr
// (POST /repos/{owner}/{repo}/issues/{pr}/comments).
func createComment(ctx context.Context, gh *github.Client, owner, repo string, pr int, body string) (*comment,
	*github.Response, error) {
	ic, resp, err := gh.Issues.CreateComment(ctx, owner, repo, pr, &github.IssueComment{Body: &body})
	if err != nil {
		return nil, resp, err
	}
	return fromIssueComment(ic), resp, nil
}

// editComment replaces the body of comment id (PATCH /repos/{owner}/{repo}/issues/comments/{id}).
func editComment(ctx context.Context, gh *github.Client, owner, repo string, id int64, body string) (*comment,
	*github.Response, error) {
	ic, resp, err := gh.Issues.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
	if err != nil {
		return nil, resp, err
	}
	return fromIssueComment(ic), resp, nil
}
