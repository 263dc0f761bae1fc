package ghaction

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// The fake GitHub below stands in for the REST API the way go-github's own tests do: an httptest server with the
// API mounted under a path prefix, so a client that drops the prefix fails, and handlers that check the method,
// the Authorization header and the JSON body of every request.

const (
	apiPrefix = "/api/v3" // GitHub Enterprise Server's REST prefix; NewClient must keep it
	testOwner = "octo-org"
	testRepo  = "hello-world"
	testToken = "ghs_test-token"
)

// fakeComment is one issue comment as the fake stores it.
type fakeComment struct {
	ID    int64
	Body  string
	Login string
}

// reply is a scripted answer that replaces the fake's normal one.
type reply struct {
	status int
	header map[string]string
	body   string // JSON
	do     func() // runs when the answer is played, e.g. to store a comment that a failed create did store
}

// fakeGitHub is a small in-memory GitHub: comments per pull request, the token's user, scripted failures.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	login string // GET /user answers this login; "" answers 403 as for an installation token
	app   string // with login "": the GitHub App whose installation token this is; "" for the workflow's token
	// foreignEdits lets an edit of somebody else's comment be refused with 403 as GitHub does, instead of failing
	// the test: for a Commenter that may only guess which comment is its own.
	foreignEdits bool
	comments     map[int][]*fakeComment
	nextID       int64
	maxBody      int                // > 0: a longer body (in characters) is rejected with 422, like GitHub's 65,536
	script       map[string][]reply // method → answers for the next requests of that method, in order
	always       map[string]reply   // method → the answer to every request of that method
	requests     []string           // "METHOD /api/v3/path?query" of every request, as sent
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{
		t:        t,
		comments: map[int][]*fakeComment{},
		nextID:   1000,
		script:   map[string][]reply{},
		always:   map[string]reply{},
	}
	api := http.NewServeMux()
	// GitHub's two routes overlap as ServeMux patterns (issues/{number}/comments, issues/comments/{id}): one
	// pattern takes both and tells them apart.
	api.HandleFunc("/repos/{owner}/{repo}/issues/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		a, b, _ := strings.Cut(r.PathValue("rest"), "/")
		switch {
		case a == "comments" && b != "" && !strings.Contains(b, "/"):
			r.SetPathValue("id", b)
			f.editComment(w, r)
		case a != "" && b == "comments":
			r.SetPathValue("number", a)
			f.issueComments(w, r)
		default:
			t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL)
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		}
	})
	api.HandleFunc("/user", f.user)
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	root := http.NewServeMux()
	root.Handle(apiPrefix+"/", http.StripPrefix(apiPrefix, f.gate(api)))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: %s %s is outside %s/: the client lost its BaseURL path", r.Method, r.URL, apiPrefix)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	f.srv = httptest.NewServer(root)
	t.Cleanup(f.srv.Close)
	return f
}

// gate records the request, checks the token, and plays a scripted answer if there is one.
func (f *fakeGitHub) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		testHeader(f.t, r, "Authorization", "Bearer "+testToken)
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.RequestURI) // as sent, with the prefix
		rep, ok := f.always[r.Method]
		if q := f.script[r.Method]; !ok && len(q) > 0 {
			rep, ok = q[0], true
			f.script[r.Method] = q[1:]
		}
		f.mu.Unlock()
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		if rep.do != nil {
			rep.do()
		}
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	})
}

// client returns a go-github client for the fake, made the way the command makes one.
func (f *fakeGitHub) client() *github.Client {
	f.t.Helper()
	c, err := NewClient(f.srv.URL+apiPrefix, testToken)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// commenter returns a Commenter on the fake whose Sleep records the waits instead of waiting.
func (f *fakeGitHub) commenter(slept *[]string) *Commenter {
	return &Commenter{
		Client: f.client(), Owner: testOwner, Repo: testRepo, Marker: testMarker,
		Sleep: func(d time.Duration) { *slept = append(*slept, d.String()) },
	}
}

func (f *fakeGitHub) issueComments(w http.ResponseWriter, r *http.Request) {
	if !f.checkRepo(w, r) {
		return
	}
	pr, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	switch r.Method {
	case http.MethodGet:
		f.listComments(w, r, pr)
	case http.MethodPost:
		body := testCommentBody(f.t, r)
		if f.tooLong(w, body) {
			return
		}
		f.mu.Lock()
		f.nextID++
		c := &fakeComment{ID: f.nextID, Body: body, Login: f.poster()}
		f.comments[pr] = append(f.comments[pr], c)
		f.mu.Unlock()
		writeJSON(w, http.StatusCreated, f.render(c, pr))
	default:
		f.t.Errorf("fake GitHub: %s %s: method not allowed", r.Method, r.URL.Path)
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "Method Not Allowed"})
	}
}

// listComments serves one page: per_page (default 30, at most 100) and page (from 1), with a Link header naming
// the next and last pages as GitHub does.
func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request, pr int) {
	q := r.URL.Query()
	per, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		per, _ = strconv.Atoi(v)
		per = min(max(per, 1), 100)
	}
	if v := q.Get("page"); v != "" {
		page, _ = strconv.Atoi(v)
		page = max(page, 1)
	}
	f.mu.Lock()
	all := f.comments[pr]
	last := max((len(all)+per-1)/per, 1)
	out := []map[string]any{}
	for i := (page - 1) * per; i < min(page*per, len(all)); i++ {
		out = append(out, f.render(all[i], pr))
	}
	f.mu.Unlock()
	if page < last {
		link := func(p int) string {
			return fmt.Sprintf("<%s%s%s?page=%d&per_page=%d>", f.srv.URL, apiPrefix, r.URL.Path, p, per)
		}
		w.Header().Set("Link", link(page+1)+`; rel="next", `+link(last)+`; rel="last"`)
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	if !f.checkRepo(w, r) {
		return
	}
	testMethod(f.t, r, http.MethodPatch)
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	body := testCommentBody(f.t, r)
	f.mu.Lock()
	var found *fakeComment
	pr := 0
	for n, cs := range f.comments {
		for _, c := range cs {
			if c.ID == id {
				found, pr = c, n
			}
		}
	}
	f.mu.Unlock()
	if found == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	if f.tooLong(w, body) {
		return
	}
	f.mu.Lock()
	poster := f.poster()
	if !strings.EqualFold(found.Login, poster) {
		f.mu.Unlock()
		// GitHub lets a token edit only its own comments (or any, with admin rights: the fake is strict).
		if f.foreignEdits {
			writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			return
		}
		f.t.Errorf("fake GitHub: %s edited comment %d written by %s", poster, id, found.Login)
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
		return
	}
	found.Body = body
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, f.render(found, pr))
}

// user answers GET /user: the login of a personal token, or 403 for an installation token (GITHUB_TOKEN).
func (f *fakeGitHub) user(w http.ResponseWriter, r *http.Request) {
	testMethod(f.t, r, http.MethodGet)
	f.mu.Lock()
	login := f.login
	f.mu.Unlock()
	if login == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
		})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": login, "id": 583231, "type": "User"})
}

// tooLong answers 422 as GitHub does for a body over maxBody characters.
func (f *fakeGitHub) tooLong(w http.ResponseWriter, body string) bool {
	f.mu.Lock()
	limit := f.maxBody
	f.mu.Unlock()
	if limit <= 0 || utf8.RuneCountInString(body) <= limit {
		return false
	}
	writeJSON(w, http.StatusUnprocessableEntity, unprocessable(limit))
	return true
}

// unprocessable is GitHub's 422 answer to a comment body over the limit.
func unprocessable(limit int) map[string]any {
	return map[string]any{
		"message": "Validation Failed",
		"errors": []map[string]string{{
			"resource": "IssueComment", "code": "custom", "field": "body",
			"message": fmt.Sprintf("body is too long (maximum is %d characters)", limit),
		}},
		"documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
	}
}

// poster is the login that comments made with the token get; f.mu held.
func (f *fakeGitHub) poster() string {
	if f.login == "" && f.app != "" {
		return f.app + "[bot]"
	}
	if f.login == "" {
		return BotLogin
	}
	return f.login
}

func (f *fakeGitHub) render(c *fakeComment, pr int) map[string]any {
	m := map[string]any{
		"id":       c.ID,
		"body":     c.Body,
		"user":     map[string]any{"login": c.Login, "type": "User"},
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", testOwner, testRepo, pr, c.ID),
	}
	// A login ending in [bot] is a GitHub App acting as itself, as GitHub renders it (github-actions[bot] is the
	// app github-actions). A user's login cannot contain brackets.
	if slug, ok := strings.CutSuffix(c.Login, "[bot]"); ok {
		m["user"] = map[string]any{"login": c.Login, "type": "Bot"}
		m["performed_via_github_app"] = map[string]any{"slug": slug, "name": slug}
	}
	return m
}

func (f *fakeGitHub) checkRepo(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("owner") != testOwner || r.PathValue("repo") != testRepo {
		f.t.Errorf("fake GitHub: %s %s: want repository %s/%s", r.Method, r.URL.Path, testOwner, testRepo)
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return false
	}
	return true
}

// add stores a comment on pr as if login had written it, and returns it.
func (f *fakeGitHub) add(pr int, login, body string) *fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	c := &fakeComment{ID: f.nextID, Body: body, Login: login}
	f.comments[pr] = append(f.comments[pr], c)
	return c
}

// on scripts the answers to the next requests with method.
func (f *fakeGitHub) on(method string, replies ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script[method] = append(f.script[method], replies...)
}

// set changes the fake's state (login, maxBody, always) with its lock held, as its handlers read it.
func (f *fakeGitHub) set(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
}

// log returns "METHOD /path?query" of every request so far.
func (f *fakeGitHub) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// count returns how many requests with method reached the fake.
func (f *fakeGitHub) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, method+" ") {
			n++
		}
	}
	return n
}

// marked returns the comments on pr that carry the test marker.
func (f *fakeGitHub) marked(pr int) []fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeComment
	for _, c := range f.comments[pr] {
		if strings.Contains(c.Body, testMarker) {
			out = append(out, *c)
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func testMethod(t *testing.T, r *http.Request, want string) {
	t.Helper()
	if r.Method != want {
		t.Errorf("%s %s: method %s, want %s", r.Method, r.URL.Path, r.Method, want)
	}
}

func testHeader(t *testing.T, r *http.Request, header, want string) {
	t.Helper()
	if got := r.Header.Get(header); got != want {
		t.Errorf("%s %s: header %s = %q, want %q", r.Method, r.URL.Path, header, got, want)
	}
}

// testCommentBody checks that the request carries a JSON object with exactly one key, "body", and returns it.
func testCommentBody(t *testing.T, r *http.Request) string {
	t.Helper()
	testHeader(t, r, "Content-Type", "application/json")
	var got map[string]any
	if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
		t.Errorf("%s %s: body is not JSON: %v", r.Method, r.URL.Path, err)
		return ""
	}
	body, ok := got["body"].(string)
	if !ok || len(got) != 1 {
		t.Errorf("%s %s: JSON body %v, want exactly {\"body\": string}", r.Method, r.URL.Path, got)
	}
	return body
}
