package ghaction

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// BotLogin is the identity the workflow's GITHUB_TOKEN posts as. An installation token cannot read
// /user, so when discovery is forbidden this is the author perfgate looks for.
const BotLogin = "github-actions[bot]"

// MaxBody is GitHub's limit on the length of a comment body, in characters. Upsert shortens a
// longer body before sending it; a body of at most MaxBody bytes is at most MaxBody characters.
const MaxBody = 65536

// tooLong is the last-resort comment when GitHub rejects every shortened body: the marker keeps it
// sticky.
const tooLong = "perfgate's report did not fit in a pull-request comment; it is in the job summary."

// Commenter keeps one sticky comment per pull request: the comment whose body starts with Marker
// and that was written by perfgate's identity. It never edits a comment somebody else wrote, even
// one that carries the marker: another bot quoting perfgate's comment, or a user pasting it.
//
// Upsert first learns the author (Author, else GET /user). An installation token — the workflow's
// GITHUB_TOKEN or a GitHub App's token — cannot read /user; then perfgate's comments are those
// written by a GitHub App acting as itself (user type "Bot", performed_via_github_app naming the
// app whose bot login wrote it), which covers BotLogin and "<app>[bot]" alike, and of several the
// most recent is taken (a GitHub App that is not perfgate's token refuses the edit with 403, and
// Upsert then creates a comment instead). Upsert pages through the pull request's comments from the
// last page back (newest first), then edits the one it found or creates a new one. Every call goes
// through Client.Do, which retries it under GitHub's rules; a body GitHub rejects with a 422 that
// says it is too long is shortened and sent again, down to a short note that still starts with the
// marker.
type Commenter struct {
	Client *Client
	Owner  string
	Repo   string
	Marker string // hidden marker identifying perfgate's comment, e.g. mdreport.Marker
	// Author is the login whose comment may be edited; "" discovers it from /user (a personal
	// token), falling back to BotLogin when /user is forbidden (an installation token, whose
	// comments are then recognised by author type and app as well). Upsert stores what it
	// discovered.
	Author string
	// Shorten returns body cut to at most max bytes, still valid Markdown; used for a body over
	// MaxBody and when GitHub rejects a body as too long (422). nil cuts at a character boundary.
	// Upsert puts the marker back if Shorten drops it.
	Shorten func(body string, max int) string
	// Log receives a line when Upsert changes course (a shortened body, a comment gone); nil
	// discards. The Client's Log tells of its waits.
	Log io.Writer
	// EditOnly makes Upsert edit the sticky comment when there is one and create none: for comment:
	// on-alert, a passing run updates an earlier alert but does not start a conversation.
	EditOnly bool

	// app is set when the token cannot read /user: an installation token of the workflow or of a
	// GitHub App.
	app bool
}

// Posted describes the sticky comment after Upsert.
type Posted struct {
	ID      int64
	URL     string
	Created bool // a new comment; false when an existing one was edited
	Author  string
}

// Upsert edits the sticky comment on pull request pr to body, or creates it when there is none
// (with EditOnly, it returns nil and no error instead).
func (c *Commenter) Upsert(ctx context.Context, pr int, body string) (*Posted, error) {
	if pr <= 0 {
		return nil, fmt.Errorf("no pull request to comment on")
	}
	if c.Marker == "" || !strings.HasPrefix(body, c.Marker) {
		return nil, fmt.Errorf("the comment body lacks the marker %q at its start", c.Marker)
	}
	author, err := c.author(ctx)
	if err != nil {
		return nil, err
	}
	existing, err := c.find(ctx, pr, author)
	if err != nil {
		return nil, err
	}
	if existing == nil && c.EditOnly {
		return nil, nil
	}
	if len(body) > MaxBody {
		body = c.shorten(body, MaxBody)
	}
	stub := c.Marker + "\n" + tooLong
	for try := 1; ; try++ {
		got, err := c.put(ctx, pr, author, &existing, body)
		if err == nil {
			if login := got.User.Login; c.app && login != "" {
				// an installation token: now perfgate knows who it is
				author, c.Author = login, login
			}
			return &Posted{ID: got.ID, URL: got.HTMLURL, Created: existing == nil, Author: author}, nil
		}
		if !bodyTooLong(err) {
			return nil, err
		}
		next := c.shorten(body, len(body)/2)
		if try >= 4 || len(next) <= len(stub) {
			next = stub
		}
		if next == body {
			return nil, err
		}
		body = next
		c.logf("GitHub rejected the comment body as too long (422); retrying with %d bytes", len(body))
	}
}

// put edits *existing to body, or creates a comment when it is nil. A create that failed with a
// transient error may have been stored all the same, so before trying again put looks for the
// comment and edits it if it is there; an edit of a comment deleted meanwhile (404) creates a new
// one. On success *existing is the comment edited, or nil when put created one.
func (c *Commenter) put(ctx context.Context, pr int, author string, existing **comment, body string) (*comment,
	error) {
	var got *comment
	tries := 0
	create := func() error {
		op := fmt.Sprintf("commenting on pull request #%d", pr)
		return c.Client.Do(ctx, op, func(gh *github.Client) (*github.Response, error) {
			if tries++; tries > 1 {
				// A failed look leaves the create to decide: it fails the same way, or succeeds.
				if found, err := c.find(ctx, pr, author); err == nil && found != nil {
					*existing = found
					var resp *github.Response
					got, resp, err = editComment(ctx, gh, c.Owner, c.Repo, found.ID, body)
					return resp, err
				}
			}
			var resp *github.Response
			var err error
			got, resp, err = createComment(ctx, gh, c.Owner, c.Repo, pr, body)
			return resp, err
		})
	}
	if *existing == nil {
		return got, create()
	}
	id := (*existing).ID
	err := c.Client.Do(ctx, fmt.Sprintf("editing comment %d", id), func(gh *github.Client) (*github.Response, error) {
		var resp *github.Response
		var err error
		got, resp, err = editComment(ctx, gh, c.Owner, c.Repo, id, body)
		return resp, err
	})
	switch {
	case status(err) == http.StatusNotFound:
		c.logf("comment %d is gone; creating a new one", id)
		*existing = nil
		return got, create()
	case status(err) == http.StatusForbidden && c.app:
		// Recognised by author type and app only: another GitHub App's comment, which this token
		// may not edit.
		c.logf("comment %d belongs to another GitHub App; creating perfgate's own", id)
		*existing = nil
		return got, create()
	}
	return got, err
}

// shorten cuts body to at most max bytes with Shorten, and makes sure the result still carries the
// marker and is no longer than max (plus the marker's line, when Shorten dropped it).
func (c *Commenter) shorten(body string, max int) string {
	s := body
	if c.Shorten != nil {
		s = c.Shorten(body, max)
	}
	s = cut(s, max)
	if !strings.HasPrefix(s, c.Marker) {
		s = c.Marker + "\n" + cut(s, max-len(c.Marker)-1)
	}
	return s
}

// cut returns s cut to at most max bytes at a character boundary.
func cut(s string, max int) string {
	if max < 0 {
		max = 0
	}
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// author returns the login whose comments perfgate may edit.
func (c *Commenter) author(ctx context.Context) (string, error) {
	if c.Author != "" {
		return c.Author, nil
	}
	var login string
	err := c.Client.Do(ctx, "reading the token's user", func(gh *github.Client) (*github.Response, error) {
		var resp *github.Response
		var err error
		login, resp, err = user(ctx, gh)
		return resp, err
	})
	var ae *APIError
	switch {
	case err == nil && login != "":
		c.Author = login
	case err == nil, errors.As(err, &ae) && (ae.Status == http.StatusForbidden || ae.Status == http.StatusNotFound):
		// An installation token: GET /user is "Resource not accessible by integration". The
		// workflow's token writes as BotLogin, a GitHub App's as "<app>[bot]": find recognises both
		// (see ours).
		c.Author, c.app = BotLogin, true
	default:
		return "", err
	}
	return c.Author, nil
}

// ours reports whether cm is perfgate's sticky comment: its body starts with the marker (a comment
// that merely quotes it is somebody else's), and author wrote it or, with an installation token, a
// GitHub App acting as itself.
func (c *Commenter) ours(cm *comment, author string) bool {
	if !strings.HasPrefix(cm.Body, c.Marker) {
		return false
	}
	if strings.EqualFold(cm.User.Login, author) {
		return true
	}
	return c.app && cm.User.Type == "Bot" && cm.App != nil && cm.App.Slug != "" &&
		strings.EqualFold(cm.User.Login, cm.App.Slug+"[bot]")
}

// find pages through the pull request's comments for perfgate's (see ours): the most recent by
// author, else, with an installation token, the most recent by a GitHub App acting as itself. It
// reads the first page for the Link header's last page and walks back from there, newest first, so
// that a sticky comment is found on any page of a long thread, and the usual case — perfgate's
// comment near the end — costs two requests.
func (c *Commenter) find(ctx context.Context, pr int, author string) (*comment, error) {
	comments, last, err := c.listPage(ctx, pr, 1)
	if err != nil {
		return nil, err
	}
	first := comments
	var app *comment
	for page := max(last, 1); page >= 1; page-- {
		comments = first
		if page > 1 {
			if comments, _, err = c.listPage(ctx, pr, page); err != nil {
				return nil, err
			}
		}
		for i := len(comments) - 1; i >= 0; i-- {
			cm := comments[i]
			switch {
			case !c.ours(cm, author):
			case strings.EqualFold(cm.User.Login, author):
				return cm, nil
			case app == nil:
				app = cm // the most recent; an earlier one by author still wins
			}
		}
	}
	if app != nil {
		return app, nil
	}
	return nil, nil
}

// listPage lists one page of 100 of the pull request's comments and returns the number of the last
// page (0 when the Link header names none: this is the only page).
func (c *Commenter) listPage(ctx context.Context, pr, page int) ([]*comment, int, error) {
	var comments []*comment
	var last int
	what := fmt.Sprintf("listing comments of pull request #%d", pr)
	err := c.Client.Do(ctx, what, func(gh *github.Client) (*github.Response, error) {
		var resp *github.Response
		var err error
		comments, last, resp, err = listComments(ctx, gh, c.Owner, c.Repo, pr, page)
		return resp, err
	})
	return comments, last, err
}

func (c *Commenter) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "perfgate: "+format+"\n", args...)
	}
}
