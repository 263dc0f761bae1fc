package ghaction

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"

	"github.com/perfgate/perfgate/internal/testing/fakegithub"
)

// GitHub's answers to a rate limit, from
// docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api ("Exceeding the rate
// limit"): the primary limit is a 403 or a 429 with x-ratelimit-remaining: 0; a secondary limit is
// a 403 or a 429 whose message says so (and whose documentation_url ends in
// "secondary-rate-limits", or the older "#abuse-rate-limits"), with retry-after or without.
const (
	secondaryMessage = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 8A2B:3C4D."
	secondaryDocs    = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	abuseDocs        = "https://docs.github.com/rest/overview/resources-in-the-rest-api#abuse-rate-limits"
	primaryMessage   = "API rate limit exceeded for installation ID 1."
	primaryDocs      = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit"
)

var (
	secondaryBody = `{"message":"` + secondaryMessage + `","documentation_url":"` + secondaryDocs + `"}`
	primaryBody   = `{"message":"` + primaryMessage + `","documentation_url":"` + primaryDocs + `"}`
)

// primaryHeader is the headers of a primary limit that resets in after fakeEpoch.
func primaryHeader(in time.Duration) map[string]string {
	return map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
		"X-RateLimit-Reset": strconv.FormatInt(fakeEpoch.Add(in).Unix(), 10), "X-RateLimit-Resource": "core"}
}

func TestRetryServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		method  string // the request that fails first
		replies []fakegithub.Reply
		slept   []string
	}{
		{"create 500", "POST", []fakegithub.Reply{{Status: 500, Body: `{"message":"Server Error"}`}}, []string{"1s"}},
		{"create 502 503", "POST", []fakegithub.Reply{{Status: 502}, {Status: 503, Body: `{"message":"Service Unavailable"}`}}, []string{"1s", "2s"}},
		{"create 503 Retry-After", "POST", []fakegithub.Reply{{Status: 503, Header: map[string]string{"Retry-After": "3"}}}, []string{"3s"}},
		{"create 503 Retry-After date", "POST", []fakegithub.Reply{{Status: 503, Header: map[string]string{
			"Retry-After": fakeEpoch.Add(9 * time.Second).UTC().Format(http.TimeFormat)}}}, []string{"9s"}},
		{"/user 500", "GET", []fakegithub.Reply{{Status: 500}}, []string{"1s"}},
		{"listing 500", "GET", []fakegithub.Reply{{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, {Status: 500}}, []string{"1s"}},
		{"listing cut short", fakegithub.OpList, []fakegithub.Reply{{Cut: true}}, []string{"1s"}},
		{"create cut short", fakegithub.OpCreate, []fakegithub.Reply{{Cut: true}}, []string{"1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.On(tc.method, tc.replies...)
			var slept []string
			c := f.commenter(&slept)
			var log bytes.Buffer
			c.Client.Log = &log
			p, err := c.Upsert(context.Background(), testPR, body("report"))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.marked(testPR); len(got) != 1 || got[0].ID != p.ID || p.Author != BotLogin {
				t.Errorf("Posted %+v, perfgate comments %+v; want one comment by %s", p, got, BotLogin)
			}
			if diff := cmp.Diff(tc.slept, slept); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if want := 1 + len(tc.replies); tc.method == "POST" && f.Count("POST") != want {
				t.Errorf("%d creates, want %d", f.Count("POST"), want)
			}
			if n := strings.Count(log.String(), "retrying in"); n != len(tc.slept) {
				t.Errorf("log has %d retry lines, want %d:\n%s", n, len(tc.slept), log.String())
			}
		})
	}
}

func TestRetryGivesUp(t *testing.T) {
	for _, tc := range []struct {
		attempts int
		slept    []string
	}{
		// the default: 10 tries
		{0, []string{"1s", "2s", "4s", "8s", "16s", "30s", "30s", "30s", "30s"}},
		{1, nil},
		{3, []string{"1s", "2s"}},
	} {
		f := newFakeGitHub(t)
		f.Always("POST", fakegithub.Reply{Status: 500, Body: `{"message":"Server Error"}`})
		var slept []string
		c := f.commenter(&slept)
		c.Client.Attempts = tc.attempts
		_, err := c.Upsert(context.Background(), testPR, body("report"))
		tries := len(tc.slept) + 1
		var er *github.ErrorResponse
		if err == nil || !errors.As(err, &er) || er.Response.StatusCode != 500 {
			t.Errorf("Attempts %d: %v, want GitHub's 500", tc.attempts, err)
		} else if tries > 1 && !strings.Contains(err.Error(), "gave up after") {
			t.Errorf("Attempts %d: %v, want it to say it gave up", tc.attempts, err)
		}
		if n := f.Count("POST"); n != tries {
			t.Errorf("Attempts %d: %d creates, want %d", tc.attempts, n, tries)
		}
		if diff := cmp.Diff(tc.slept, slept); diff != "" {
			t.Errorf("Attempts %d: waits (-want +got):\n%s", tc.attempts, diff)
		}
	}
}

// TestRetryRateLimits answers a create with each shape of rate limit, then lets it through: the
// wait is the one GitHub's rules name, and the second create reaches the fake (go-github's memory
// of the limit does not answer in its place).
func TestRetryRateLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply fakegithub.Reply
		wait  string
		why   string
	}{
		{"403 primary", fakegithub.Reply{Status: 403, Header: primaryHeader(5 * time.Second), Body: primaryBody},
			"5s", "primary limit, until X-RateLimit-Reset"},
		// not a minute: a 429 is not always the secondary limit
		{"429 primary", fakegithub.Reply{Status: 429, Header: primaryHeader(3 * time.Second), Body: primaryBody},
			"3s", "primary limit, until X-RateLimit-Reset"},
		{"403 primary, Retry-After", fakegithub.Reply{Status: 403, Header: merge(primaryHeader(time.Hour), map[string]string{"Retry-After": "4"}),
			Body: primaryBody}, "4s", "primary limit, Retry-After"},
		{"403 secondary, Retry-After", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "7"},
			Body: secondaryBody}, "7s", "secondary limit, Retry-After"},
		{"403 secondary, Retry-After date", fakegithub.Reply{Status: 403, Header: map[string]string{
			"Retry-After": fakeEpoch.Add(42 * time.Second).UTC().Format(http.TimeFormat)}, Body: secondaryBody},
			"42s", "secondary limit, Retry-After"},
		{"403 secondary, abuse URL", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "30"},
			Body: `{"message":"` + secondaryMessage + `","documentation_url":"` + abuseDocs + `"}`}, "30s", "secondary limit, Retry-After"},
		{"403 secondary, message only", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "5"},
			Body: `{"message":"` + secondaryMessage + `"}`}, "5s", "secondary limit, Retry-After"},
		// GitHub: "wait for at least one minute before retrying"
		{"403 secondary, no header", fakegithub.Reply{Status: 403, Body: secondaryBody}, "1m0s", "secondary limit, no Retry-After"},
		{"403 secondary, message only, no header", fakegithub.Reply{Status: 403, Body: `{"message":"` + secondaryMessage + `"}`},
			"1m0s", "secondary limit, no Retry-After"},
		// X-RateLimit-Reset is the primary window's: a secondary limit does not wait for it
		{"403 secondary, X-RateLimit-Reset only", fakegithub.Reply{Status: 403, Header: map[string]string{
			"X-RateLimit-Remaining": "4321", "X-RateLimit-Reset": strconv.FormatInt(fakeEpoch.Add(50*time.Minute).Unix(), 10)},
			Body: secondaryBody}, "1m0s", "secondary limit, no Retry-After"},
		{"429 secondary", fakegithub.Reply{Status: 429, Body: secondaryBody}, "1m0s", "secondary limit, no Retry-After"},
		{"429 secondary, Retry-After", fakegithub.Reply{Status: 429, Header: map[string]string{"Retry-After": "2"},
			Body: secondaryBody}, "2s", "secondary limit, Retry-After"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.On("POST", tc.reply)
			var slept []string
			c := f.commenter(&slept)
			var log bytes.Buffer
			c.Client.Log = &log
			p, err := c.Upsert(context.Background(), testPR, body("report"))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.marked(testPR); len(got) != 1 || got[0].ID != p.ID {
				t.Errorf("Posted %+v, perfgate comments %+v; want one", p, got)
			}
			if diff := cmp.Diff([]string{tc.wait}, slept); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if n := f.Count("POST"); n != 2 {
				t.Errorf("%d creates reached GitHub, want 2", n)
			}
			want := "perfgate: GitHub rate limit: waiting " + tc.wait + " (" + tc.why + ")"
			if !strings.Contains(log.String(), want) {
				t.Errorf("log:\n%s\nwant a line starting %q", log.String(), want)
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for _, x := range []map[string]string{a, b} {
		for k, v := range x {
			m[k] = v
		}
	}
	return m
}

// TestRetrySecondaryBackoff: secondary limits without headers in a row wait a minute, then two,
// then four; a success starts over.
func TestRetrySecondaryBackoff(t *testing.T) {
	f := newFakeGitHub(t)
	limit := fakegithub.Reply{Status: 403, Body: secondaryBody}
	f.On("POST", limit, limit, limit)
	var slept []string
	c := f.commenter(&slept)
	if _, err := c.Upsert(context.Background(), testPR, body("report")); err != nil {
		t.Fatal(err)
	}
	f.On("PATCH", limit)
	if _, err := c.Upsert(context.Background(), testPR, body("report 2")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1m0s", "2m0s", "4m0s", "1m0s"}, slept); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if got := f.marked(testPR); len(got) != 1 || got[0].Body != body("report 2") {
		t.Errorf("perfgate comments %+v, want one with the second report", got)
	}
}

// TestRetryBudget: a wait that would end after the budget gives up at once, saying how long GitHub
// asked and how long was left.
func TestRetryBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		budget  time.Duration
		replies []fakegithub.Reply
		slept   []string
		want    string
	}{
		{"primary, 49m59s", 0, []fakegithub.Reply{{Status: 403, Header: primaryHeader(49*time.Minute + 59*time.Second), Body: primaryBody}},
			nil, "GitHub asks to wait 49m59s (primary limit, until X-RateLimit-Reset), more than the 10m0s left"},
		{"secondary, Retry-After 1h", 0, []fakegithub.Reply{{Status: 429, Header: map[string]string{"Retry-After": "3600"}, Body: secondaryBody}},
			nil, "GitHub asks to wait 1h0m0s (secondary limit, Retry-After), more than the 10m0s left"},
		{"secondary twice, budget 90s", 90 * time.Second, []fakegithub.Reply{{Status: 403, Body: secondaryBody}, {Status: 403, Body: secondaryBody}},
			[]string{"1m0s"}, "GitHub asks to wait 2m0s (secondary limit, no Retry-After), more than the 30s left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.On("POST", tc.replies...)
			var slept []string
			c := f.commenter(&slept)
			c.Client.Budget = tc.budget
			_, err := c.Upsert(context.Background(), testPR, body("report"))
			var we *WaitError
			if !errors.As(err, &we) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Upsert: %v, want a *WaitError saying %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "commenting on pull request #") || !strings.Contains(err.Error(), "rate limit") {
				t.Errorf("Upsert: %v, want the operation and GitHub's message", err)
			}
			if diff := cmp.Diff(tc.slept, slept); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if n := f.Count("POST"); n != len(tc.replies) {
				t.Errorf("%d creates, want %d", n, len(tc.replies))
			}
		})
	}
}

// TestRetryContextDeadline: the context's deadline bounds the waits as the budget does.
func TestRetryContextDeadline(t *testing.T) {
	f := newFakeGitHub(t)
	f.On("POST", fakegithub.Reply{Status: 403, Body: secondaryBody})
	var slept []string
	c := f.commenter(&slept)
	c.Client.Now = time.Now // the deadline is on the wall clock
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Upsert(ctx, testPR, body("report"))
	var we *WaitError
	if !errors.As(err, &we) || we.Wait != time.Minute || we.Left > 30*time.Second {
		t.Fatalf("Upsert: %v, want a *WaitError for a minute with at most 30s left", err)
	}
	if len(slept) != 0 {
		t.Errorf("slept %v", slept)
	}
}

// TestRetryGoGitHubMemory: go-github v60 remembers X-RateLimit-Remaining: 0 of a successful answer
// and would refuse the next request itself until the reset; perfgate's client sends it.
func TestRetryGoGitHubMemory(t *testing.T) {
	f := newFakeGitHub(t)
	h := map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
		"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}
	f.On(fakegithub.OpPull, fakegithub.Reply{Status: 200, Header: h, Body: `{"number":7,"head":{"sha":"abc"}}`})
	c := f.client(nil)
	for i := range 2 {
		pr, err := c.PullRequest(context.Background(), testOwner, testRepo, testPR)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if i == 1 && pr.Head.SHA != strings.Repeat("a", 40) {
			t.Errorf("call 2: head %q, want the fake's", pr.Head.SHA)
		}
	}
	if n := f.Count("GET"); n != 2 {
		t.Errorf("%d requests reached GitHub, want 2", n)
	}
}

func TestRetryUnprocessable(t *testing.T) {
	f := newFakeGitHub(t)
	f.On("POST", fakegithub.Reply{Status: 422, Body: `{"message":"Validation Failed","errors":[{"resource":"IssueComment",` +
		`"code":"unprocessable","field":"data","message":"Body cannot mention more than 50 users"}],` +
		`"documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`})
	var slept []string
	c := f.commenter(&slept)
	_, err := c.Upsert(context.Background(), testPR, body("report"))
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 422 {
		t.Fatalf("Upsert: %v, want an *APIError 422", err)
	}
	for _, want := range []string{"Validation Failed", "IssueComment.data unprocessable: Body cannot mention more than 50 users"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Upsert: %v\nwant it to say %q", err, want)
		}
	}
	if n := f.Count("POST"); n != 1 || len(slept) != 0 {
		t.Errorf("%d creates, waits %v; want one create: a 422 that is not about length is not shortened", n, slept)
	}
}

func TestRetryNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens: every request fails to connect
	client, err := NewClient(srv.URL+apiPrefix, testToken)
	if err != nil {
		t.Fatal(err)
	}
	var slept []string
	clock := newFakeClock(&slept)
	client.Now, client.Sleep, client.Attempts = clock.Now, clock.Sleep, 3
	c := &Commenter{Client: client, Owner: testOwner, Repo: testRepo, Marker: testMarker, Author: BotLogin}
	_, err = c.Upsert(context.Background(), testPR, body("report"))
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 tries") || !strings.Contains(err.Error(), "listing comments") {
		t.Errorf("Upsert: %v, want it to give up listing comments after 3 tries", err)
	}
	if diff := cmp.Diff([]string{"1s", "2s"}, slept); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestRetryCertificate: a server whose certificate the client does not trust fails at once; trying
// again would meet the same certificate.
func TestRetryCertificate(t *testing.T) {
	requests := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests++ }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake's failure, told by the client
	srv.StartTLS()
	defer srv.Close()
	// its transport trusts the system's roots only
	client, err := NewClient(srv.URL+apiPrefix, testToken)
	if err != nil {
		t.Fatal(err)
	}
	var slept []string
	clock := newFakeClock(&slept)
	client.Now, client.Sleep = clock.Now, clock.Sleep
	_, err = client.PullRequest(context.Background(), testOwner, testRepo, testPR)
	if err == nil || !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), "gave up") {
		t.Errorf("PullRequest: %v, want a certificate error, not retried", err)
	}
	if len(slept) != 0 || requests != 0 {
		t.Errorf("waits %v, %d requests served; want none", slept, requests)
	}
}

func TestRetryCanceled(t *testing.T) {
	f := newFakeGitHub(t)
	f.Always("POST", fakegithub.Reply{Status: 500})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := f.commenter(new([]string))
	// the job is cancelled while perfgate waits
	c.Client.Sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	_, err := c.Upsert(ctx, testPR, body("report"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Upsert: %v, want context.Canceled", err)
	}
	if n := f.Count("POST"); n != 1 {
		t.Errorf("%d creates, want 1", n)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := fakeEpoch
	for _, tc := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 12 ", 12 * time.Second, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"Wed, 21 Oct 2015 07:28:00 GMT", 0, true}, // an HTTP date in the past
		{now.Add(time.Hour).UTC().Format(http.TimeFormat), time.Hour, true},
		// the obsolete forms too
		{now.Add(90 * time.Second).UTC().Format(time.RFC850), 90 * time.Second, true},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		if got, ok := retryAfter(h, now); got != tc.want || ok != tc.ok {
			t.Errorf("Retry-After %q: %s, %t; want %s, %t", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}
