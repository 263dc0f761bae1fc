package fakegithub

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// do sends one request to s with the fake's token and returns the status, the Link header and the
// body.
func do(t *testing.T, s *Server, method, path, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+Token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Link"), string(data)
}

func TestCommentsAndPaging(t *testing.T) {
	s := New(t)
	s.SetPull(7, strings.Repeat("a", 40))
	for range 3 {
		s.Add(7, "alice", "hi")
	}
	comments := "/repos/" + Owner + "/" + Repo + "/issues/7/comments"
	if code, _, _ := do(t, s, "POST", comments, `{"body":"mine"}`); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	code, link, body := do(t, s, "GET", comments+"?per_page=3", "")
	if code != http.StatusOK || !strings.Contains(link, `page=2&per_page=3>; rel="next"`) {
		t.Errorf("page 1: %d, Link %q", code, link)
	}
	var page []struct {
		ID   int64
		Body string
		User struct{ Login string }
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page) != 3 {
		t.Fatalf("page 1: %v, %d comments", err, len(page))
	}
	_, link, body = do(t, s, "GET", comments+"?per_page=3&page=2", "")
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page) != 1 || page[0].Body != "mine" || page[0].User.Login != Bot || link != "" {
		t.Errorf("page 2: %v, %+v, Link %q", err, page, link)
	}
	edit := "/repos/" + Owner + "/" + Repo + "/issues/comments/" + jsonInt(page[0].ID)
	if code, _, _ := do(t, s, "PATCH", edit, `{"body":"edited"}`); code != http.StatusOK {
		t.Errorf("edit: %d", code)
	}
	if got := s.Comments(7)[3]; got.Body != "edited" || s.Writes() != 2 {
		t.Errorf("after the edit: %+v, %d writes", got, s.Writes())
	}
	// A pull request the fake does not know takes no comment.
	if code, _, _ := do(t, s, "POST", "/repos/"+Owner+"/"+Repo+"/issues/8/comments", `{"body":"x"}`); code != http.StatusNotFound {
		t.Errorf("create on an unknown pull request: %d, want 404", code)
	}
}

func TestScriptedReplies(t *testing.T) {
	s := New(t)
	s.SetPull(1, strings.Repeat("b", 40))
	s.On(OpCreate, Reply{Status: 502})
	s.On("GET", Reply{Status: 500}, Reply{Status: 503, Body: `{"message":"later"}`})
	comments := "/repos/" + Owner + "/" + Repo + "/issues/1/comments"
	var got []int
	for _, r := range []struct{ method, path, body string }{
		{"POST", comments, `{"body":"a"}`}, {"POST", comments, `{"body":"a"}`},
		{"GET", "/user", ""}, {"GET", comments, ""}, {"GET", "/user", ""},
		{"GET", "/repos/" + Owner + "/" + Repo + "/pulls/1", ""},
	} {
		code, _, _ := do(t, s, r.method, r.path, r.body)
		got = append(got, code)
	}
	want := []int{502, 201, 500, 503, 403, 200}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if n := s.Count("GET"); n != 4 {
		t.Errorf("Count(GET) = %d, want 4", n)
	}
	s.SetMaxBody(3)
	if code, _, body := do(t, s, "POST", comments, `{"body":"four"}`); code != http.StatusUnprocessableEntity || !strings.Contains(body, "maximum is 3 characters") {
		t.Errorf("a long body: %d %s", code, body)
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestCutAndReset: a cut answer arrives with its headers and half its body, then the connection
// closes (reading the rest fails); a Cut of the fake's own answer keeps its effect; ResetIn writes
// X-RateLimit-Reset when the answer is played.
func TestCutAndReset(t *testing.T) {
	s := New(t)
	s.SetPull(7, strings.Repeat("a", 40))
	comments := s.URL + "/repos/" + Owner + "/" + Repo + "/issues/7/comments"
	s.On(OpCreate, Reply{Cut: true})
	s.On(OpList, Reply{Status: 500, Body: `{"message":"Server Error"}`, Cut: true})
	s.On(OpPull, Reply{Status: 429, ResetIn: 3 * time.Second})

	req, _ := http.NewRequest("POST", comments, strings.NewReader(`{"body":"stored"}`))
	req.Header.Set("Authorization", "Bearer "+Token)
	req.Header.Set("Content-Type", "application/json")
	for _, r := range []*http.Request{req, mustGet(t, comments)} {
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(data) == 0 || int64(len(data)) >= resp.ContentLength {
			t.Errorf("%s: %d bytes of %d, %v; want half the body, then io.ErrUnexpectedEOF", r.Method, len(data),
				resp.ContentLength, err)
		}
	}
	if cs := s.Comments(7); len(cs) != 1 || cs[0].Body != "stored" {
		t.Errorf("comments %+v: the cut create stores its comment", cs)
	}

	before := time.Now().Unix()
	resp, err := http.DefaultClient.Do(mustGet(t, s.URL+"/repos/"+Owner+"/"+Repo+"/pulls/7"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if resp.StatusCode != 429 || err != nil || reset < before+3 || reset > time.Now().Unix()+4 {
		t.Errorf("%d, X-RateLimit-Reset %q; want 429 and about 3 s from now", resp.StatusCode,
			resp.Header.Get("X-RateLimit-Reset"))
	}
}

func mustGet(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+Token)
	return req
}
