package ghaction

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// apiVersion is the version of GitHub's REST API the requests are written for
// (docs.github.com/rest/about-the-rest-api/api-versions).
const apiVersion = "2022-11-28"

// maxResponse bounds the bytes of one answer that are read: a page of 100 comments of at most
// MaxBody characters each, with room to spare.
const maxResponse = 64 << 20

// Client calls the few endpoints of GitHub's REST API that perfgate uses: the token's user, a pull
// request, and a pull request's issue comments (list, create, edit).
type Client struct {
	// BaseURL is the API's root, ending in a slash: https://api.github.com/, or
	// https://HOST/api/v3/ on GitHub Enterprise Server. Request paths are resolved against it.
	BaseURL *url.URL
	HTTP    *http.Client
	token   string
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

// ResponseError is an answer of GitHub outside 2xx: the response (its status, and the headers
// that say when to try again: Retry-After, X-RateLimit-Remaining, X-RateLimit-Reset; its body
// already read) and GitHub's message.
type ResponseError struct {
	Response         *http.Response
	Message          string // GitHub's "message"
	DocumentationURL string // GitHub's "documentation_url"
}

func (e *ResponseError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Response.StatusCode)
	}
	s := fmt.Sprintf("%d %s", e.Response.StatusCode, msg)
	if req := e.Response.Request; req != nil {
		s = fmt.Sprintf("%s %s: %s", req.Method, req.URL.Redacted(), s)
	}
	if e.primaryLimit() {
		if reset, err := strconv.ParseInt(e.Response.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			s += fmt.Sprintf(" [rate reset in %s]", time.Until(time.Unix(reset, 0)).Round(time.Second))
		}
	}
	return s
}

// primaryLimit reports whether the answer is the primary rate limit: the token's requests for the
// hour are spent (a 403 with X-RateLimit-Remaining: 0, or GitHub's message saying so).
func (e *ResponseError) primaryLimit() bool {
	return e.Response.StatusCode == http.StatusForbidden && (e.Response.Header.Get("X-RateLimit-Remaining") == "0" ||
		strings.HasPrefix(e.Message, "API rate limit exceeded for "))
}

// documentedSecondary reports whether the answer is a 403 whose documentation_url points at the
// secondary rate limits ("…#about-secondary-rate-limits", or the older "…#abuse-rate-limits").
func (e *ResponseError) documentedSecondary() bool {
	return e.Response.StatusCode == http.StatusForbidden && (strings.HasSuffix(e.DocumentationURL, "#abuse-rate-limits") ||
		strings.HasSuffix(e.DocumentationURL, "secondary-rate-limits"))
}

// secondaryRetryAfter is how long a documented secondary rate limit asks to wait: Retry-After in
// seconds, else the time until X-RateLimit-Reset (seconds since the epoch), as GitHub support
// describes them; false when the answer has neither.
func (e *ResponseError) secondaryRetryAfter() (time.Duration, bool) {
	if v := e.Response.Header.Get("Retry-After"); v != "" {
		n, _ := strconv.ParseInt(v, 10, 64)
		return time.Duration(n) * time.Second, true
	}
	if v := e.Response.Header.Get("X-RateLimit-Reset"); v != "" {
		n, _ := strconv.ParseInt(v, 10, 64)
		return time.Until(time.Unix(n, 0)), true
	}
	return 0, false
}

// do sends method to path (relative to BaseURL, query included) with in as its JSON body (nil: no
// body) and decodes a 2xx answer's JSON into out (nil: discarded). Any other status is a
// *ResponseError; a failed connection is the *url.Error of net/http.
func (c *Client) do(ctx context.Context, method, path string, in, out any) (*http.Response, error) {
	u, err := c.BaseURL.Parse(path)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", apiVersion)
	req.Header.Set("User-Agent", "perfgate")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return resp, fmt.Errorf("%s %s: reading the answer: %w", method, u.Redacted(), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &ResponseError{Response: resp}
		var msg struct {
			Message          string `json:"message"`
			DocumentationURL string `json:"documentation_url"`
		}
		if json.Unmarshal(data, &msg) == nil {
			e.Message, e.DocumentationURL = msg.Message, msg.DocumentationURL
		}
		return resp, e
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp, fmt.Errorf("%s %s: decoding the answer: %w", method, u.Redacted(), err)
		}
	}
	return resp, nil
}

// PullRequest is the part of a pull request perfgate reads.
type PullRequest struct {
	Number int `json:"number"`
	Head   struct {
		SHA string `json:"sha"`
	} `json:"head"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
}

// PullRequest reads pull request n of owner/repo (GET /repos/{owner}/{repo}/pulls/{n}).
func (c *Client) PullRequest(ctx context.Context, owner, repo string, n int) (*PullRequest, error) {
	var pr PullRequest
	if _, err := c.do(ctx, http.MethodGet, repoPath(owner, repo)+"/pulls/"+strconv.Itoa(n), nil, &pr); err != nil {
		return nil, err
	}
	return &pr, nil
}

// user is the part of GET /user perfgate reads.
type user struct {
	Login string `json:"login"`
}

// user reads the token's user (GET /user).
func (c *Client) user(ctx context.Context) (*user, error) {
	var u user
	if _, err := c.do(ctx, http.MethodGet, "user", nil, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// comment is an issue comment as GitHub returns it, with the app that wrote it.
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

// commentBody is the JSON body of a create or an edit.
type commentBody struct {
	Body string `json:"body"`
}

// listComments lists page (from 1) of pull request pr's comments, 100 a page, and returns the
// number of the last page that the Link header names (0 when it names none: this is the only
// page).
func (c *Client) listComments(ctx context.Context, owner, repo string, pr, page int) ([]*comment, int, error) {
	path := fmt.Sprintf("%s/issues/%d/comments?", repoPath(owner, repo), pr)
	if page > 1 {
		path += "page=" + strconv.Itoa(page) + "&"
	}
	path += "per_page=100"
	var comments []*comment
	resp, err := c.do(ctx, http.MethodGet, path, nil, &comments)
	if err != nil {
		return nil, 0, err
	}
	return comments, lastPage(resp.Header.Get("Link")), nil
}

// createComment adds a comment to pull request pr
// (POST /repos/{owner}/{repo}/issues/{pr}/comments).
func (c *Client) createComment(ctx context.Context, owner, repo string, pr int, body string) (*comment, error) {
	var got comment
	path := fmt.Sprintf("%s/issues/%d/comments", repoPath(owner, repo), pr)
	if _, err := c.do(ctx, http.MethodPost, path, commentBody{body}, &got); err != nil {
		return nil, err
	}
	return &got, nil
}

// editComment replaces the body of comment id (PATCH /repos/{owner}/{repo}/issues/comments/{id}).
func (c *Client) editComment(ctx context.Context, owner, repo string, id int64, body string) (*comment, error) {
	var got comment
	path := fmt.Sprintf("%s/issues/comments/%d", repoPath(owner, repo), id)
	if _, err := c.do(ctx, http.MethodPatch, path, commentBody{body}, &got); err != nil {
		return nil, err
	}
	return &got, nil
}

// repoPath is the path of a repository's endpoints, relative to the API's root.
func repoPath(owner, repo string) string {
	return "repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo)
}

// lastPage returns the page number of the rel="last" link of a Link header
// (`<https://…?page=3&per_page=100>; rel="last"`), or 0.
func lastPage(link string) int {
	for _, part := range strings.Split(link, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		last := false
		for _, p := range strings.Split(params, ";") {
			if strings.TrimSpace(p) == `rel="last"` {
				last = true
			}
		}
		if !last {
			continue
		}
		u, err := url.Parse(target[1 : len(target)-1])
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(u.Query().Get("page"))
		return n
	}
	return 0
}
