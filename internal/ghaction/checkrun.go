package ghaction

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// GitHub's limits on a check run's output (docs.github.com/rest/checks/runs): at most
// MaxAnnotations annotations in one request, more added by updating the run, and a summary of at
// most MaxSummary characters.
const (
	MaxAnnotations = 50
	MaxSummary     = 65535
)

// Conclusions of a completed check run that perfgate uses.
const (
	ConclusionSuccess = "success"
	ConclusionFailure = "failure"
	ConclusionNeutral = "neutral"
)

// Annotation levels.
const (
	LevelNotice  = "notice"
	LevelWarning = "warning"
	LevelFailure = "failure"
)

// CheckRun is a completed check run on one commit: a named check with a conclusion, a title and a
// Markdown summary, and annotations on lines of the commit's files. Every string is the caller's,
// escaped for where it goes (Markdown for Summary, plain text elsewhere).
type CheckRun struct {
	Name       string // e.g. "perfgate"
	HeadSHA    string // the commit, 40 hex digits
	Conclusion string // ConclusionSuccess, ConclusionFailure or ConclusionNeutral
	Title      string
	// Summary is Markdown; Create shortens one over MaxSummary characters with Shorten.
	Summary     string
	Annotations []Annotation
	// Shorten returns summary cut to at most max bytes, with a note; nil cuts at a character
	// boundary.
	Shorten func(summary string, max int) string
}

// Annotation is one line of a file at the check run's commit, with a message.
type Annotation struct {
	Path    string // relative to the repository root, slash-separated
	Line    int    // from 1
	Level   string // LevelNotice, LevelWarning or LevelFailure
	Title   string
	Message string
}

// PostedCheckRun is the check run Create made.
type PostedCheckRun struct {
	ID  int64
	URL string
	// Annotations is how many annotations GitHub accepted: all of them unless an update failed.
	Annotations int
}

// CreateCheckRun creates run on owner/repo (POST /repos/{owner}/{repo}/check-runs) with its first
// MaxAnnotations annotations, then adds the rest MaxAnnotations at a time by updating it (PATCH
// /repos/{owner}/{repo}/check-runs/{id}), which appends them. Every call goes through Do. A token
// without checks: write gets a 403, an *APIError naming that permission. When an update fails, the
// run exists with the annotations sent so far: the result says how many, beside the error.
func (c *Client) CreateCheckRun(ctx context.Context, owner, repo string, run CheckRun) (*PostedCheckRun, error) {
	summary := run.Summary
	if utf8.RuneCountInString(summary) > MaxSummary {
		// A summary of at most MaxSummary bytes has at most MaxSummary characters.
		if run.Shorten != nil {
			summary = run.Shorten(summary, MaxSummary)
		}
		if len(summary) > MaxSummary {
			summary = cutAtRune(summary, MaxSummary)
		}
	}
	output := func(as []Annotation) *github.CheckRunOutput {
		o := &github.CheckRunOutput{Title: github.String(run.Title), Summary: github.String(summary)}
		for _, a := range as {
			o.Annotations = append(o.Annotations, &github.CheckRunAnnotation{
				Path: github.String(a.Path), StartLine: github.Int(a.Line), EndLine: github.Int(a.Line),
				AnnotationLevel: github.String(a.Level), Title: github.String(a.Title), Message: github.String(a.Message),
			})
		}
		return o
	}
	first, rest := batch(run.Annotations)
	var created *github.CheckRun
	err := c.Do(ctx, "creating the check run", func(gh *github.Client) (*github.Response, error) {
		var resp *github.Response
		var err error
		created, resp, err = gh.Checks.CreateCheckRun(ctx, owner, repo, github.CreateCheckRunOptions{
			Name: run.Name, HeadSHA: run.HeadSHA, Status: github.String("completed"),
			Conclusion: github.String(run.Conclusion), CompletedAt: &github.Timestamp{Time: c.now()},
			Output: output(first),
		})
		return resp, err
	})
	if err != nil {
		return nil, checksError(err)
	}
	posted := &PostedCheckRun{ID: created.GetID(), URL: created.GetHTMLURL(), Annotations: len(first)}
	for len(rest) > 0 {
		var next []Annotation
		next, rest = batch(rest)
		op := fmt.Sprintf("adding annotations %d–%d to the check run", posted.Annotations+1, posted.Annotations+len(next))
		err := c.Do(ctx, op, func(gh *github.Client) (*github.Response, error) {
			_, resp, err := gh.Checks.UpdateCheckRun(ctx, owner, repo, posted.ID, github.UpdateCheckRunOptions{
				Name: run.Name, Output: output(next),
			})
			return resp, err
		})
		if err != nil {
			return posted, checksError(err)
		}
		posted.Annotations += len(next)
	}
	return posted, nil
}

// batch splits as into the first MaxAnnotations and the rest.
func batch(as []Annotation) (first, rest []Annotation) {
	if len(as) <= MaxAnnotations {
		return as, nil
	}
	return as[:MaxAnnotations], as[MaxAnnotations:]
}

// checksError names the permission a check run needs in a 403.
func checksError(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusForbidden {
		ae.Need = "checks: write"
	}
	return err
}

// IsForbidden reports whether err is GitHub's 403 that no retry fixes: the token lacks the
// permission (a fork's read-only token, or a workflow that does not grant it).
func IsForbidden(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusForbidden
}

// cutAtRune returns s cut to at most max bytes at a character boundary.
func cutAtRune(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}
