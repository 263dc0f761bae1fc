package ghaction

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testing/fakegithub"
)

// The tests run against internal/testing/fakegithub: GitHub's REST API under /api/v3, serving one
// repository.
const (
	apiPrefix = fakegithub.Prefix // GitHub Enterprise Server's REST prefix; NewClient must keep it
	testOwner = fakegithub.Owner
	testRepo  = fakegithub.Repo
	testToken = fakegithub.Token
)

// fakeGitHub is the fake with pull requests testPR and testPR+1 open, no limit on a comment's
// length unless a test sets one, and the helpers of this package's tests.
type fakeGitHub struct{ *fakegithub.Server }

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	if fakegithub.Bot != BotLogin {
		t.Fatalf("fakegithub.Bot = %q, want BotLogin %q", fakegithub.Bot, BotLogin)
	}
	s := fakegithub.New(t)
	s.SetPull(testPR, strings.Repeat("a", 40))
	s.SetPull(testPR+1, strings.Repeat("b", 40))
	s.SetMaxBody(0)
	return &fakeGitHub{s}
}

// commenter returns a Commenter on the fake whose client's Sleep records the waits instead of
// waiting (see fakeClock).
func (f *fakeGitHub) commenter(slept *[]string) *Commenter {
	return &Commenter{Client: f.client(slept), Owner: testOwner, Repo: testRepo, Marker: testMarker}
}

// client returns a Client of the fake on a fake clock whose Sleep records the waits.
func (f *fakeGitHub) client(slept *[]string) *Client {
	c, err := NewClient(f.URL, testToken)
	if err != nil {
		panic(err) // f.URL is the fake's: NewClient takes it
	}
	clock := newFakeClock(slept)
	c.Now, c.Sleep = clock.Now, clock.Sleep
	return c
}

// fakeEpoch is where every fake clock starts (2030-01-01 UTC): tests write rate-limit headers
// relative to it.
var fakeEpoch = time.Unix(1_893_456_000, 0)

// fakeClock is a clock that Sleep moves forward at once, recording each wait.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept *[]string
}

func newFakeClock(slept *[]string) *fakeClock {
	return &fakeClock{now: fakeEpoch, slept: slept}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	if c.slept != nil {
		*c.slept = append(*c.slept, d.String())
	}
	return ctx.Err()
}

// marked returns the comments on pr that carry the test marker.
func (f *fakeGitHub) marked(pr int) []fakegithub.Comment {
	var out []fakegithub.Comment
	for _, c := range f.Comments(pr) {
		if strings.Contains(c.Body, testMarker) {
			out = append(out, c)
		}
	}
	return out
}
