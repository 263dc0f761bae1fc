package ghaction

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// maxWait is the longest Retry-After perfgate honours; GitHub asking for more ends the tries.
const maxWait = time.Minute

// secondaryWait is the wait after a secondary rate limit that names no time: GitHub's documentation
// says to "wait for at least one minute before retrying".
const secondaryWait = time.Minute

// retry calls f until it succeeds, fails for good, or Attempts run out. 5xx answers, network errors
// and secondary rate limits are retried, waiting for Retry-After when GitHub sends one, a minute
// after a secondary rate limit that names no time, and with exponential backoff from one second
// otherwise. An HTTP answer that no retry can fix returns at once as *APIError; running out of
// tries returns an error that says so and wraps the last one. f makes its call with the client it
// is given.
func (c *Commenter) retry(ctx context.Context, op string, f func(*github.Client) (*github.Response, error)) error {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 4
	}
	backoff := time.Second
	for i := 1; ; i++ {
		resp, err := f(c.client())
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		st := status(err)
		if st == 0 && resp != nil && resp.Response != nil {
			st = resp.StatusCode
		}
		again, wait := transient(err)
		var rl *github.RateLimitError
		if !again {
			if st >= 400 && !errors.As(err, &rl) {
				return &APIError{Op: op, Status: st, Err: err}
			}
			return fmt.Errorf("%s: %w", op, err)
		}
		if i >= attempts {
			return fmt.Errorf("%s: gave up after %d tries: %w", op, i, err)
		}
		if wait > maxWait {
			return fmt.Errorf("%s: GitHub asks to wait %s before trying again: %w", op, wait, err)
		}
		if wait <= 0 {
			wait = backoff
			backoff *= 2
		}
		what := fmt.Sprintf("GitHub answered %d", st)
		if st == 0 {
			what = "the request failed"
		}
		c.logf("%s: %s; retrying in %s (try %d of %d)", op, what, wait, i+1, attempts)
		if err := c.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		var abuse *github.AbuseRateLimitError
		if errors.As(err, &abuse) {
			c.forgetSecondaryLimit()
		}
	}
}

// client returns the client to call GitHub with: Client, or the copy forgetSecondaryLimit made of
// it.
func (c *Commenter) client() *github.Client {
	if c.fresh != nil && c.freshOf == c.Client {
		return c.fresh
	}
	return c.Client
}

// forgetSecondaryLimit makes later calls go through a copy of Client that has no memory of a
// secondary rate limit. After a 403 with Retry-After, go-github v60 refuses every request until
// that time has passed on the wall clock, answering with an *AbuseRateLimitError of its own without
// asking GitHub. perfgate has already waited as long as GitHub asked, by Sleep, which is the clock
// that counts (a test's Sleep returns at once).
func (c *Commenter) forgetSecondaryLimit() {
	fresh := github.NewClient(c.Client.Client()) // the same transport, so the same token
	fresh.BaseURL, fresh.UploadURL, fresh.UserAgent = c.Client.BaseURL, c.Client.UploadURL, c.Client.UserAgent
	c.fresh, c.freshOf = fresh, c.Client
}

// sleep waits d with Sleep, or on a timer the context can cancel.
func (c *Commenter) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		c.Sleep(d)
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transient reports whether another try of the call that failed with err may succeed, and how long
// GitHub asked to wait first (0: it did not say).
//
// go-github v60 returns *github.AbuseRateLimitError only when the 403's documentation_url ends in
// "#abuse-rate-limits" or "secondary-rate-limits"; a secondary limit without that URL, or answered
// with 429, is a plain *github.ErrorResponse, recognised here by status and message. A primary rate
// limit (*github.RateLimitError, X-RateLimit-Remaining: 0) resets within the hour: not retried.
func transient(err error) (bool, time.Duration) {
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		if abuse.RetryAfter != nil { // Retry-After, or go-github's reading of X-RateLimit-Reset
			return true, max(*abuse.RetryAfter, time.Second)
		}
		return true, secondaryWait
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return false, 0
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		st := er.Response.StatusCode
		secondary := strings.Contains(strings.ToLower(er.Message), "secondary rate limit")
		switch {
		case st >= 500:
			return true, retryAfter(er.Response)
		case st == http.StatusTooManyRequests, st == http.StatusForbidden && secondary:
			if wait := retryAfter(er.Response); wait > 0 {
				return true, max(wait, time.Second)
			}
			return true, secondaryWait
		}
		return false, 0
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return true, 0 // the connection failed or timed out: no answer at all
	}
	return false, 0
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date; 0 when there is none.
func retryAfter(r *http.Response) time.Duration {
	if r == nil {
		return 0
	}
	v := strings.TrimSpace(r.Header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// status returns the HTTP status of a go-github error, or 0.
func status(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) && abuse.Response != nil {
		return abuse.Response.StatusCode
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	return 0
}
