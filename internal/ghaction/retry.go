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
// tries returns an error that says so and wraps the last one.
func (c *Commenter) retry(ctx context.Context, op string, f func() error) error {
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 4
	}
	backoff := time.Second
	for i := 1; ; i++ {
		err := f()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		st := status(err)
		again, wait := transient(err)
		var re *ResponseError
		if !again {
			if st >= 400 && !(errors.As(err, &re) && re.primaryLimit()) {
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
	}
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
// A 403 whose documentation_url names the secondary rate limits waits for Retry-After, else until
// X-RateLimit-Reset, else a minute; a secondary limit without that URL, or answered with 429, is
// recognised by status and message. A primary rate limit (X-RateLimit-Remaining: 0) resets within
// the hour: not retried.
func transient(err error) (bool, time.Duration) {
	var re *ResponseError
	if errors.As(err, &re) {
		switch {
		case re.primaryLimit():
			return false, 0
		case re.documentedSecondary():
			if wait, ok := re.secondaryRetryAfter(); ok {
				return true, max(wait, time.Second)
			}
			return true, secondaryWait
		}
		st := re.Response.StatusCode
		secondary := strings.Contains(strings.ToLower(re.Message), "secondary rate limit")
		switch {
		case st >= 500:
			return true, retryAfter(re.Response)
		case st == http.StatusTooManyRequests, st == http.StatusForbidden && secondary:
			if wait := retryAfter(re.Response); wait > 0 {
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

// status returns the HTTP status of an error from GitHub, or 0.
func status(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	var re *ResponseError
	if errors.As(err, &re) {
		return re.Response.StatusCode
	}
	return 0
}
