package ghaction

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/testing/fakegithub"
)

// GitHub's answers to a secondary rate limit, from
// docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api: a 403 whose
// documentation_url ends in "secondary-rate-limits" (or the older "#abuse-rate-limits"), or one
// that says so only in its message, or a 429. go-github v60's CheckResponse, which perfgate used
// before its own client, tells them apart the same way.
const (
	secondaryMessage = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
	secondaryDocs    = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	abuseDocs        = "https://docs.github.com/rest/overview/resources-in-the-rest-api#abuse-rate-limits"
)

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
		{"/user 500", "GET", []fakegithub.Reply{{Status: 500}}, []string{"1s"}},
		{"listing 500", "GET", []fakegithub.Reply{{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, {Status: 500}}, []string{"1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.On(tc.method, tc.replies...)
			var slept []string
			c := f.commenter(&slept)
			var log bytes.Buffer
			c.Log = &log
			p, err := c.Upsert(context.Background(), testPR, body("report"))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.marked(testPR); len(got) != 1 || got[0].ID != p.ID || !p.Created || p.Author != BotLogin {
				t.Errorf("Posted %+v, perfgate comments %+v; want one new comment by %s", p, got, BotLogin)
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
		{0, []string{"1s", "2s", "4s"}}, // the default: 4 tries
		{1, nil},
		{2, []string{"1s"}},
	} {
		f := newFakeGitHub(t)
		f.Always("POST", fakegithub.Reply{Status: 500, Body: `{"message":"Server Error"}`})
		var slept []string
		c := f.commenter(&slept)
		c.Attempts = tc.attempts
		_, err := c.Upsert(context.Background(), testPR, body("report"))
		tries := max(tc.attempts, 1)
		if tc.attempts == 0 {
			tries = 4
		}
		var er *ResponseError
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

func TestRetryRateLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply fakegithub.Reply
		slept []string
	}{
		{"secondary, documented", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "7"},
			Body: `{"message":"` + secondaryMessage + `","documentation_url":"` + secondaryDocs + `"}`}, []string{"7s"}},
		{"secondary, abuse URL", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "30"},
			Body: `{"message":"` + secondaryMessage + `","documentation_url":"` + abuseDocs + `"}`}, []string{"30s"}},
		{"secondary, message only", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "5"},
			Body: `{"message":"` + secondaryMessage + `"}`}, []string{"5s"}},
		{"secondary, no Retry-After", fakegithub.Reply{Status: 403,
			// GitHub: "wait for at least one minute"
			Body: `{"message":"` + secondaryMessage + `"}`}, []string{"1m0s"}},
		{"secondary, documented, no Retry-After", fakegithub.Reply{Status: 403,
			Body: `{"message":"` + secondaryMessage + `","documentation_url":"` + secondaryDocs + `"}`}, []string{"1m0s"}},
		{"429", fakegithub.Reply{Status: 429, Header: map[string]string{"Retry-After": "2"},
			Body: `{"message":"` + secondaryMessage + `"}`}, []string{"2s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.On("POST", tc.reply)
			var slept []string
			c := f.commenter(&slept)
			p, err := c.Upsert(context.Background(), testPR, body("report"))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.marked(testPR); len(got) != 1 || got[0].ID != p.ID {
				t.Errorf("Posted %+v, perfgate comments %+v; want one", p, got)
			}
			if diff := cmp.Diff(tc.slept, slept); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if n := f.Count("POST"); n != 2 {
				t.Errorf("%d creates reached GitHub, want 2", n)
			}
		})
	}
}

func TestRetryRateLimitsNotRetried(t *testing.T) {
	reset := time.Now().Add(30 * time.Minute).Unix()
	for _, tc := range []struct {
		name  string
		reply fakegithub.Reply
		want  string
	}{
		{"secondary, long wait", fakegithub.Reply{Status: 403, Header: map[string]string{"Retry-After": "120"},
			Body: `{"message":"` + secondaryMessage + `","documentation_url":"` + secondaryDocs + `"}`}, "asks to wait 2m0s"},
		{"primary", fakegithub.Reply{Status: 403, Header: map[string]string{
			"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": strconv.FormatInt(reset, 10)},
			Body: `{"message":"API rate limit exceeded for installation ID 1."}`}, "rate limit exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.On("POST", tc.reply)
			var slept []string
			c := f.commenter(&slept)
			_, err := c.Upsert(context.Background(), testPR, body("report"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Upsert: %v, want an error containing %q", err, tc.want)
			}
			if n := f.Count("POST"); n != 1 || len(slept) != 0 {
				t.Errorf("%d creates, waits %v; want one create and no wait", n, slept)
			}
		})
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
	c := &Commenter{Client: client, Owner: testOwner, Repo: testRepo, Marker: testMarker, Author: BotLogin, Attempts: 3,
		Sleep: func(d time.Duration) { slept = append(slept, d.String()) }}
	_, err = c.Upsert(context.Background(), testPR, body("report"))
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 tries") || !strings.Contains(err.Error(), "listing comments") {
		t.Errorf("Upsert: %v, want it to give up listing comments after 3 tries", err)
	}
	if diff := cmp.Diff([]string{"1s", "2s"}, slept); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestRetryCanceled(t *testing.T) {
	f := newFakeGitHub(t)
	f.Always("POST", fakegithub.Reply{Status: 500})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := f.commenter(new([]string))
	c.Sleep = func(time.Duration) { cancel() } // the job is cancelled while perfgate waits
	_, err := c.Upsert(ctx, testPR, body("report"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Upsert: %v, want context.Canceled", err)
	}
	if n := f.Count("POST"); n != 1 {
		t.Errorf("%d creates, want 1", n)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"7", 7 * time.Second},
		{" 12 ", 12 * time.Second},
		{"-3", 0},
		{"soon", 0},
		{"Wed, 21 Oct 2015 07:28:00 GMT", 0}, // an HTTP date in the past
	} {
		r := &http.Response{Header: http.Header{}}
		if tc.header != "" {
			r.Header.Set("Retry-After", tc.header)
		}
		if got := retryAfter(r); got != tc.want {
			t.Errorf("Retry-After %q: %s, want %s", tc.header, got, tc.want)
		}
	}
	future := &http.Response{Header: http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}}
	if got := retryAfter(future); got < 58*time.Minute || got > time.Hour {
		t.Errorf("Retry-After an hour from now: %s", got)
	}
	if got := retryAfter(nil); got != 0 {
		t.Errorf("retryAfter(nil) = %s", got)
	}
}
