package ghaction

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/go-github/v60/github"
)

// The waits of the policy. GitHub's rules
// (docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit):
// with a retry-after header, wait that many seconds; else with x-ratelimit-remaining 0, wait
// until x-ratelimit-reset; else "wait for at least one minute", longer (exponentially) when the
// secondary limit goes on. 5xx answers and failed connections back off from a second.
const (
	secondaryWait = time.Minute
	firstBackoff  = time.Second
	maxBackoff    = 30 * time.Second
)

// Do calls call with a new go-github client until it succeeds, fails for good, the attempts run
// out or the next wait would outlast the budget. A call that GitHub's answer or the network says
// may succeed later is tried again after the wait the policy names (see wait), printed to Log:
//
//   - Retry-After (seconds or an HTTP date) on a 403, a 429 or a 5xx;
//   - a 403 or 429 with X-RateLimit-Remaining: 0 (the primary limit): until X-RateLimit-Reset;
//   - a 403 or 429 that is a secondary limit (a 429, or a message or documentation_url that says
//     so) without those headers: a minute, doubled for each such limit until the call that met
//     one succeeds;
//   - a 5xx, a failed connection, an answer cut short: exponential backoff from a second;
//   - a certificate GitHub's name cannot be verified with, or any other answer: no retry.
//
// A wait longer than the time left returns a *WaitError at once. An answer no retry can fix is an
// *APIError that carries GitHub's message and errors[].
func (c *Client) Do(ctx context.Context, op string, call func(gh *github.Client) (*github.Response, error)) error {
	c.mu.Lock()
	if c.start.IsZero() {
		c.start = c.now()
	}
	c.mu.Unlock()
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 10
	}
	backoff := firstBackoff
	limited := false // by a secondary limit without Retry-After
	for try := 1; ; try++ {
		_, err := call(c.GitHub())
		if err == nil {
			if limited { // the limit is over: the next one waits a minute again
				c.mu.Lock()
				c.secondary = 0
				c.mu.Unlock()
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		w := c.wait(err)
		limited = limited || w.repeat
		if !w.retry {
			if st := status(err); st != 0 {
				return &APIError{Op: op, Status: st, Err: err}
			}
			return fmt.Errorf("%s: %w", op, err)
		}
		if w.d <= 0 {
			w.d = backoff
			backoff = min(2*backoff, maxBackoff)
		}
		if try >= attempts {
			return fmt.Errorf("%s: gave up after %d tries: %w", op, try, err)
		}
		if left := c.left(ctx); w.d > left {
			return &WaitError{Op: op, Wait: w.d, Why: w.why, Left: left, Err: err}
		}
		if w.limit {
			c.logf("GitHub rate limit: waiting %s (%s); then %s, try %d of %d", w.d.Round(time.Second), w.why, op,
				try+1, attempts)
		} else {
			c.logf("%s: %s; retrying in %s (try %d of %d)", op, w.why, w.d, try+1, attempts)
		}
		if err := c.sleep(ctx, w.d); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
}

// WaitError is a rate limit, or a Retry-After, that asks to wait longer than the step has left:
// Do gives up at once rather than wait in vain.
type WaitError struct {
	Op   string
	Wait time.Duration // what GitHub asked
	Why  string        // which rule named the wait
	Left time.Duration // what was left of the budget
	Err  error         // the answer
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("%s: GitHub asks to wait %s (%s), more than the %s left: gave up without waiting: %v",
		e.Op, e.Wait.Round(time.Second), e.Why, e.Left.Round(time.Second), e.Err)
}

func (e *WaitError) Unwrap() error { return e.Err }

// APIError is a GitHub answer that no retry can fix: 401, 403 (a fork's read-only token), 404,
// 422. Its text holds GitHub's message and errors[].
type APIError struct {
	Op     string
	Status int
	Err    error
	// Need is the permission the call needs, named in a 403's hint; "" for a comment's
	// (pull-requests: write).
	Need string
}

func (e *APIError) Error() string {
	hint := ""
	switch {
	case e.Status == http.StatusForbidden && e.Need != "":
		hint = " (the token lacks '" + e.Need + "': a fork's read-only token, or a workflow that does not grant it)"
	case e.Status == http.StatusForbidden:
		hint = " (the token may not write pull-request comments: a fork's read-only token, or missing 'pull-requests: write')"
	case e.Status == http.StatusNotFound:
		hint = " (no such repository or pull request, or the token cannot see it)"
	case e.Status == http.StatusUnauthorized:
		hint = " (the token is missing or expired)"
	}
	return fmt.Sprintf("%s: GitHub answered %d%s: %s", e.Op, e.Status, hint, said(e.Err))
}

func (e *APIError) Unwrap() error { return e.Err }

// said is what GitHub said in an error answer: its message and each of its errors[]
// ("resource.field code: message"), or the error's text when it is not an answer.
func said(err error) string {
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		return err.Error()
	}
	s := er.Message
	if s == "" && er.Response != nil {
		s = http.StatusText(er.Response.StatusCode)
	}
	var parts []string
	for _, e := range er.Errors {
		p := strings.Trim(e.Resource+"."+e.Field, ".")
		if e.Code != "" {
			p = strings.TrimSpace(p + " " + e.Code)
		}
		if e.Message != "" {
			p = strings.TrimPrefix(p+": "+e.Message, ": ")
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		s += " [" + strings.Join(parts, "; ") + "]"
	}
	if er.Response != nil && er.Response.Request != nil {
		s = fmt.Sprintf("%s %s: %s", er.Response.Request.Method, er.Response.Request.URL.Redacted(), s)
	}
	return s
}

// bodyTooLong reports whether err is a 422 whose errors[] say that the body is too long (GitHub:
// "Body is too long (maximum is 65536 characters)"); any other 422 is not fixed by shortening.
func bodyTooLong(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}
	for _, e := range er.Errors {
		if strings.Contains(strings.ToLower(e.Message), "too long") || e.Code == "too_long" {
			return true
		}
	}
	return false
}

// verdict is the policy's answer to a failed try: whether to try again and after how long
// (0: the backoff), which rule said so, and whether it was a rate limit.
type verdict struct {
	retry  bool
	d      time.Duration
	why    string
	limit  bool
	repeat bool // a secondary limit without Retry-After: the next one waits twice as long
}

// wait applies the policy to a failed try's error.
func (c *Client) wait(err error) verdict {
	if certificate(err) {
		return verdict{}
	}
	if resp := response(err); resp != nil {
		return c.answered(err, resp)
	}
	if network(err) {
		return verdict{retry: true, why: fmt.Sprintf("the request failed (%v)", err)}
	}
	return verdict{}
}

// answered applies the policy to an HTTP answer outside 2xx.
func (c *Client) answered(err error, resp *http.Response) verdict {
	st, h := resp.StatusCode, resp.Header
	now := c.now()
	limited := st == http.StatusForbidden || st == http.StatusTooManyRequests
	primary := limited && h.Get("X-RateLimit-Remaining") == "0"
	secondary := limited && !primary && secondaryLimit(err, st)
	if ra, ok := retryAfter(h, now); ok && (primary || secondary || st >= 500) {
		if st >= 500 {
			return verdict{retry: true, d: ra, why: fmt.Sprintf("GitHub answered %d, Retry-After %s", st, ra)}
		}
		kind := "primary"
		if secondary {
			kind = "secondary"
		}
		return verdict{retry: true, d: max(ra, time.Second), why: kind + " limit, Retry-After", limit: true}
	}
	switch {
	case primary:
		reset, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64)
		if err != nil {
			return verdict{retry: true, d: secondaryWait, why: "primary limit, no X-RateLimit-Reset", limit: true}
		}
		return verdict{retry: true, d: max(time.Unix(reset, 0).Sub(now), time.Second),
			why: "primary limit, until X-RateLimit-Reset", limit: true}
	case secondary:
		c.mu.Lock()
		d := secondaryWait << min(c.secondary, 6)
		c.secondary++
		c.mu.Unlock()
		return verdict{retry: true, d: d, why: "secondary limit, no Retry-After", limit: true, repeat: true}
	case st >= 500:
		return verdict{retry: true, why: fmt.Sprintf("GitHub answered %d", st)}
	}
	return verdict{}
}

// secondaryLimit reports whether a 403 or 429 is a secondary rate limit: a 429 always is; a 403
// when go-github took it for one (documentation_url "…secondary-rate-limits" or
// "…#abuse-rate-limits") or its message says "rate limit".
func secondaryLimit(err error, st int) bool {
	if st == http.StatusTooManyRequests {
		return true
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		return true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		doc := er.DocumentationURL
		return strings.Contains(strings.ToLower(er.Message), "rate limit") ||
			strings.HasSuffix(doc, "secondary-rate-limits") || strings.HasSuffix(doc, "#abuse-rate-limits")
	}
	var rl *github.RateLimitError
	return errors.As(err, &rl)
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date; false when there is none
// that parses. A date in the past is a wait of 0.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, 1<<31)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// response returns the HTTP answer of go-github's error types, or nil.
func response(err error) *http.Response {
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	switch {
	case errors.As(err, &er):
		return er.Response
	case errors.As(err, &rl):
		return rl.Response
	case errors.As(err, &abuse):
		return abuse.Response
	}
	return nil
}

// status returns the HTTP status of an error from GitHub, or 0.
func status(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	if resp := response(err); resp != nil {
		return resp.StatusCode
	}
	return 0
}

// certificate reports whether err is a failed verification of the server's certificate: trying
// again meets the same certificate.
func certificate(err error) bool {
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	var verify *tls.CertificateVerificationError
	return errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &host) || errors.As(err, &verify)
}

// network reports whether err is a failure of the connection rather than an answer: no answer at
// all, a reset or timeout, or an answer whose body was cut short.
func network(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// left is the time the calls have left: until the context's deadline or the end of the budget,
// whichever comes first.
func (c *Client) left(ctx context.Context) time.Duration {
	budget := c.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	c.mu.Lock()
	end := c.start.Add(budget)
	c.mu.Unlock()
	if d, ok := ctx.Deadline(); ok && d.Before(end) {
		end = d
	}
	return end.Sub(c.now())
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// sleep waits d with Sleep, or on a timer the context can cancel.
func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
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

func (c *Client) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "perfgate: "+format+"\n", args...)
	}
}
