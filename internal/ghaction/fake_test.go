package ghaction

import (
	"strings"
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

// commenter returns a Commenter on the fake whose Sleep records the waits instead of waiting.
func (f *fakeGitHub) commenter(slept *[]string) *Commenter {
	c, err := NewClient(f.URL, testToken)
	if err != nil {
		panic(err) // f.URL is the fake's: NewClient takes it
	}
	return &Commenter{
		Client: c, Owner: testOwner, Repo: testRepo, Marker: testMarker,
		Sleep: func(d time.Duration) { *slept = append(*slept, d.String()) },
	}
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
