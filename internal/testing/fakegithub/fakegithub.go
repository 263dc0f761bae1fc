// Package fakegithub is a small in-memory GitHub REST API for tests: pull requests, their issue
// comments, check runs, the token's user, and scripted failures. It stands in for the API the way
// go-github's own tests do: an httptest server with the API mounted under a path prefix (GitHub
// Enterprise Server's /api/v3), so a client that drops the prefix fails, and handlers that check
// the method, the token, the repository and the JSON body of every request.
//
// Only tests import it. A test makes a Server with New, points the code under test at Server.URL
// with Token, sets up pull requests (SetPull) and comments (Add), scripts failures (On, Always),
// and reads back what happened (Comments, CheckRuns, CheckRequests, Requests, Count, Writes).
package fakegithub

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
)

// The fake's fixed identity: the API prefix, the one repository it serves, and the token it
// accepts.
const (
	Prefix = "/api/v3"
	Owner  = "octo-org"
	Repo   = "hello-world"
	Token  = "ghs_perfgate-test-token-5b1e"
	// MaxBody is GitHub's limit on a comment body, in characters; the fake's default limit.
	MaxBody = 65536
	// Bot is the login of the comments a workflow's GITHUB_TOKEN writes (an installation token).
	Bot = "github-actions[bot]"
)

// The operations the fake serves. A scripted reply names one of them, or an HTTP method to match
// every operation of that method.
const (
	OpUser   = "user"   // GET /user
	OpPull   = "pull"   // GET /repos/{owner}/{repo}/pulls/{n}
	OpList   = "list"   // GET /repos/{owner}/{repo}/issues/{n}/comments
	OpCreate = "create" // POST /repos/{owner}/{repo}/issues/{n}/comments
	OpEdit   = "edit"   // PATCH /repos/{owner}/{repo}/issues/comments/{id}
	// POST /repos/{owner}/{repo}/check-runs
	OpCheckCreate = "check-create"
	// PATCH /repos/{owner}/{repo}/check-runs/{id}
	OpCheckUpdate = "check-update"
)

// MaxAnnotations and MaxSummary are GitHub's limits on a check run request: annotations in one
// request, and characters of output.summary. The fake rejects more with 422, as GitHub does.
const (
	MaxAnnotations = 50
	MaxSummary     = 65535
)

// CheckRun is a check run as the fake stores it, after every update.
type CheckRun struct {
	ID                 int64
	Name, HeadSHA      string
	Status, Conclusion string
	Title, Summary     string
	Annotations        []Annotation // every request's, in order: an update appends
	CompletedAt        string
	Requests           int // the create and the updates that reached it
}

// Annotation is one annotation of a check run.
type Annotation struct {
	Path                  string
	StartLine, EndLine    int
	Level, Title, Message string
}

// CheckRequest is the JSON body of one check-run request that the fake accepted or refused, as
// sent: Op is OpCheckCreate or OpCheckUpdate.
type CheckRequest struct {
	Op   string
	ID   int64 // the run updated; 0 for a create
	Body map[string]any
}

// Comment is one issue comment as the fake stores it.
type Comment struct {
	ID    int64
	Body  string
	Login string
}

// Reply is a scripted answer that replaces the fake's own.
type Reply struct {
	Status int
	Header map[string]string
	Body   string // JSON; "" answers {"message": the status text}
	// ResetIn, when not zero, sets X-RateLimit-Reset to the time this long after the answer is
	// played, in seconds since the epoch (rounded up), as GitHub writes it.
	ResetIn time.Duration
	// Cut makes the answer stop mid-body: the fake's own answer when Status is 0 (its effect, such
	// as a stored comment, kept), else the scripted one, is sent with its full Content-Length and
	// half its body, and the connection is closed.
	Cut bool
	// runs when the answer is played, e.g. to Add a comment that a failed create did store
	Do func()
}

// Server is the fake GitHub.
type Server struct {
	// URL is the API's base URL, prefix included: what GITHUB_API_URL holds.
	URL string

	t   testing.TB
	srv *httptest.Server

	mu    sync.Mutex
	login string // GET /user answers this login; "" answers 403, as for an installation token
	// with login "": the GitHub App whose installation token this is; "" the workflow's
	app string
	// foreignEdits answers an edit of somebody else's comment with GitHub's 403 instead of failing
	// the test: for a client that may only guess which comment is its own.
	foreignEdits bool
	maxBody      int              // a longer body (in characters) is rejected with 422; 0: no limit
	pulls        map[int]string   // pull request number → head SHA
	labels       map[int][]string // pull request number → its labels' names
	comments     map[int][]*Comment
	nextID       int64
	script       map[string][]Reply // operation or method → answers to its next requests, in order
	always       map[string]Reply   // operation or method → the answer to every request
	requests     []string           // "METHOD /api/v3/path?query" of every request, as sent
	writes       int                // creates and edits of comments answered with success
	checkRuns    []*CheckRun
	checkReqs    []CheckRequest
}

// New starts a fake GitHub that t closes at its end.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		t: t, maxBody: MaxBody, pulls: map[int]string{}, labels: map[int][]string{}, comments: map[int][]*Comment{},
		nextID: 1000,
		script: map[string][]Reply{}, always: map[string]Reply{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + Prefix
	t.Cleanup(s.srv.Close)
	return s
}

// SetLogin makes GET /user answer login, and the comments the token writes carry it; "" (the
// default) answers 403 and writes as Bot, like a workflow's GITHUB_TOKEN.
func (s *Server) SetLogin(login string) { s.locked(func() { s.login = login }) }

// SetApp makes the token a GitHub App's installation token: GET /user answers 403 and comments are
// written by "<app>[bot]" (SetLogin("") first).
func (s *Server) SetApp(app string) { s.locked(func() { s.app = app }) }

// AllowForeignEdits makes an edit of somebody else's comment answer 403, as GitHub does, rather
// than fail the test.
func (s *Server) AllowForeignEdits() { s.locked(func() { s.foreignEdits = true }) }

// SetMaxBody sets the longest comment body accepted, in characters; 0 accepts any.
func (s *Server) SetMaxBody(n int) { s.locked(func() { s.maxBody = n }) }

// SetPull creates or moves pull request n to head. Comments are accepted on known pull requests
// only.
func (s *Server) SetPull(n int, head string) { s.locked(func() { s.pulls[n] = head }) }

// SetLabels sets the labels of pull request n, as GET /repos/{owner}/{repo}/pulls/{n} reports them.
func (s *Server) SetLabels(n int, labels ...string) {
	s.locked(func() { s.labels[n] = append([]string(nil), labels...) })
}

// Add stores a comment on pull request pr as if login had written it.
func (s *Server) Add(pr int, login, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, Login: login}
	s.comments[pr] = append(s.comments[pr], c)
	return *c
}

// On scripts the answers to the next requests of op (an operation or an HTTP method), in order.
func (s *Server) On(op string, replies ...Reply) {
	s.locked(func() { s.script[op] = append(s.script[op], replies...) })
}

// Always answers every request of op (an operation or an HTTP method) with r.
func (s *Server) Always(op string, r Reply) { s.locked(func() { s.always[op] = r }) }

// Comments returns copies of pull request pr's comments, oldest first.
func (s *Server) Comments(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments[pr] {
		out = append(out, *c)
	}
	return out
}

// Requests returns "METHOD /api/v3/path?query" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Count returns how many requests with method reached the fake.
func (s *Server) Count(method string) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasPrefix(r, method+" ") {
			n++
		}
	}
	return n
}

// CheckRuns returns copies of the check runs created, oldest first.
func (s *Server) CheckRuns() []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, c := range s.checkRuns {
		cp := *c
		cp.Annotations = append([]Annotation(nil), c.Annotations...)
		out = append(out, cp)
	}
	return out
}

// CheckRequests returns the bodies of the check-run requests that reached the fake's own handlers
// (not those a scripted reply answered), in order.
func (s *Server) CheckRequests() []CheckRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CheckRequest(nil), s.checkReqs...)
}

// Writes returns how many comment creates and edits succeeded.
func (s *Server) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

func (s *Server) locked(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// serve routes a request, checks the token and the repository, and plays a scripted answer if there
// is one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	locked := true
	defer func() {
		if locked {
			s.mu.Unlock()
		}
	}()
	s.requests = append(s.requests, r.Method+" "+r.RequestURI)
	path, ok := strings.CutPrefix(r.URL.Path, Prefix+"/")
	if !ok {
		s.t.Errorf("fake GitHub: %s %s is outside %s/: the client lost its BaseURL path", r.Method, r.URL, Prefix)
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return
	}
	op, args := route(r.Method, strings.Split(path, "/"))
	if op == "" {
		s.t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL)
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Token {
		writeJSON(w, http.StatusUnauthorized, message("Bad credentials"))
		return
	}
	if op != OpUser && (args[0] != Owner || args[1] != Repo) {
		s.t.Errorf("fake GitHub: %s %s: want repository %s/%s", r.Method, r.URL.Path, Owner, Repo)
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return
	}
	rep, ok := s.scripted(op, r.Method)
	if ok && rep.Cut && rep.Status == 0 {
		rec := httptest.NewRecorder()
		s.dispatch(rec, r, op, args)
		s.mu.Unlock()
		locked = false
		s.cut(w, rec.Result())
		return
	}
	if ok {
		s.mu.Unlock() // Do may call the Server's methods
		locked = false
		io.Copy(io.Discard, r.Body)
		if rep.Do != nil {
			rep.Do()
		}
		rec := httptest.NewRecorder()
		for k, v := range rep.Header {
			rec.Header().Set(k, v)
		}
		if rep.ResetIn != 0 {
			reset := time.Now().Add(rep.ResetIn + time.Second - 1).Unix()
			rec.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
		}
		if rep.Body == "" {
			writeJSON(rec, rep.Status, message(http.StatusText(rep.Status)))
		} else {
			rec.Header().Set("Content-Type", "application/json; charset=utf-8")
			rec.WriteHeader(rep.Status)
			io.WriteString(rec, rep.Body)
		}
		if rep.Cut {
			s.cut(w, rec.Result())
			return
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	s.dispatch(w, r, op, args)
}

// cut sends resp with its full Content-Length but only half its body, then closes the connection:
// an answer cut short on the way.
func (s *Server) cut(w http.ResponseWriter, resp *http.Response) {
	body, _ := io.ReadAll(resp.Body)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		s.t.Errorf("fake GitHub: cannot cut the answer short: %v", err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.Header.Set("Connection", "close")
	resp.Header.Write(buf)
	buf.WriteString("\r\n")
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

// dispatch serves op with the fake's own answer; s.mu held.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, op string, args []string) {
	switch op {
	case OpUser:
		s.user(w)
	case OpPull:
		s.pull(w, args[2])
	case OpList:
		s.list(w, r, args[2])
	case OpCreate:
		s.create(w, r, args[2])
	case OpEdit:
		s.edit(w, r, args[2])
	case OpCheckCreate, OpCheckUpdate:
		s.checkRun(w, r, op, args[2])
	}
}

// route names the operation of method on path (split at slashes, the prefix removed) and its path
// arguments: owner, repo, and the number or id.
func route(method string, p []string) (op string, args []string) {
	switch {
	case len(p) == 1 && p[0] == "user" && method == http.MethodGet:
		return OpUser, nil
	case len(p) == 4 && p[0] == "repos" && p[3] == "check-runs" && method == http.MethodPost:
		return OpCheckCreate, []string{p[1], p[2], ""}
	case len(p) == 5 && p[0] == "repos" && p[3] == "check-runs" && method == http.MethodPatch:
		return OpCheckUpdate, []string{p[1], p[2], p[4]}
	case len(p) != 5 && len(p) != 6 || p[0] != "repos":
		return "", nil
	case len(p) == 5 && p[3] == "pulls" && method == http.MethodGet:
		return OpPull, []string{p[1], p[2], p[4]}
	case len(p) == 6 && p[3] == "issues" && p[5] == "comments" && method == http.MethodGet:
		return OpList, []string{p[1], p[2], p[4]}
	case len(p) == 6 && p[3] == "issues" && p[5] == "comments" && method == http.MethodPost:
		return OpCreate, []string{p[1], p[2], p[4]}
	case len(p) == 6 && p[3] == "issues" && p[4] == "comments" && method == http.MethodPatch:
		return OpEdit, []string{p[1], p[2], p[5]}
	}
	return "", nil
}

// scripted returns the scripted answer to a request of op with method, if any; s.mu held.
func (s *Server) scripted(op, method string) (Reply, bool) {
	for _, key := range []string{op, method} {
		if rep, ok := s.always[key]; ok {
			return rep, true
		}
		if q := s.script[key]; len(q) > 0 {
			s.script[key] = q[1:]
			return q[0], true
		}
	}
	return Reply{}, false
}

// user answers GET /user: the login of a personal token, or 403 for an installation token
// (GITHUB_TOKEN).
func (s *Server) user(w http.ResponseWriter) {
	if s.login == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
		})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": s.login, "id": 583231, "type": "User"})
}

func (s *Server) pull(w http.ResponseWriter, num string) {
	n, _ := strconv.Atoi(num)
	head, ok := s.pulls[n]
	if !ok {
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return
	}
	labels := []map[string]string{}
	for _, l := range s.labels[n] {
		labels = append(labels, map[string]string{"name": l})
	}
	writeJSON(w, http.StatusOK, map[string]any{"number": n, "head": map[string]any{"sha": head}, "labels": labels})
}

// list serves one page: per_page (default 30, at most 100) and page (from 1), with a Link header
// naming the next and last pages as GitHub does.
func (s *Server) list(w http.ResponseWriter, r *http.Request, num string) {
	pr, _ := strconv.Atoi(num)
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
	all := s.comments[pr]
	last := max((len(all)+per-1)/per, 1)
	out := []map[string]any{}
	for i := (page - 1) * per; i < min(page*per, len(all)); i++ {
		out = append(out, render(all[i], pr))
	}
	if page < last {
		link := func(p int) string { return fmt.Sprintf("<%s%s?page=%d&per_page=%d>", s.srv.URL, r.URL.Path, p, per) }
		w.Header().Set("Link", link(page+1)+`; rel="next", `+link(last)+`; rel="last"`)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, num string) {
	pr, _ := strconv.Atoi(num)
	if _, ok := s.pulls[pr]; !ok {
		writeJSON(w, http.StatusNotFound, message("Not Found"))
		return
	}
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, Login: s.poster()}
	s.comments[pr] = append(s.comments[pr], c)
	s.writes++
	writeJSON(w, http.StatusCreated, render(c, pr))
}

func (s *Server) edit(w http.ResponseWriter, r *http.Request, idText string) {
	id, _ := strconv.ParseInt(idText, 10, 64)
	for pr, cs := range s.comments {
		for _, c := range cs {
			if c.ID != id {
				continue
			}
			body, ok := s.body(w, r)
			if !ok {
				return
			}
			if poster := s.poster(); !strings.EqualFold(c.Login, poster) {
				// GitHub lets a token edit only its own comments (or any, with admin rights: the
				// fake is strict).
				if s.foreignEdits {
					writeJSON(w, http.StatusForbidden, message("Resource not accessible by integration"))
					return
				}
				s.t.Errorf("fake GitHub: %s edited comment %d written by %s", poster, id, c.Login)
				writeJSON(w, http.StatusForbidden, message("Resource not accessible by integration"))
				return
			}
			c.Body = body
			s.writes++
			writeJSON(w, http.StatusOK, render(c, pr))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, message("Not Found"))
}

// checkRun creates a check run, or updates run idText, as GitHub does: name and head_sha required
// on a create, a completed run needs a conclusion, at most MaxAnnotations annotations and
// MaxSummary characters of summary a request, each annotation with a path, lines and a level;
// annotations of an update are appended to the run's.
func (s *Server) checkRun(w http.ResponseWriter, r *http.Request, op, idText string) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("fake GitHub: %s %s: Content-Type %q, want application/json", r.Method, r.URL.Path, ct)
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.t.Errorf("fake GitHub: %s %s: body is not JSON: %v", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusBadRequest, message("Problems parsing JSON"))
		return
	}
	req := CheckRequest{Op: op, Body: body}
	var run *CheckRun
	if op == OpCheckUpdate {
		id, _ := strconv.ParseInt(idText, 10, 64)
		for _, c := range s.checkRuns {
			if c.ID == id {
				run = c
			}
		}
		req.ID = id
		if run == nil {
			writeJSON(w, http.StatusNotFound, message("Not Found"))
			return
		}
	}
	s.checkReqs = append(s.checkReqs, req)
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	invalid := func(why string) {
		s.t.Errorf("fake GitHub: %s %s: %s", r.Method, r.URL.Path, why)
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Invalid request.\n\n" + why})
	}
	next := CheckRun{Name: str(body, "name"), HeadSHA: str(body, "head_sha"), Status: str(body, "status"),
		Conclusion: str(body, "conclusion"), CompletedAt: str(body, "completed_at")}
	if op == OpCheckCreate && (next.Name == "" || len(next.HeadSHA) != 40) {
		invalid(fmt.Sprintf("name %q and head_sha %q are required", next.Name, next.HeadSHA))
		return
	}
	if next.Status == "completed" && next.Conclusion == "" {
		invalid("a completed check run needs a conclusion")
		return
	}
	var anns []Annotation
	out, hasOutput := body["output"].(map[string]any)
	if hasOutput {
		if utf8.RuneCountInString(str(out, "summary")) > MaxSummary {
			invalid(fmt.Sprintf("output.summary is longer than %d characters", MaxSummary))
			return
		}
		list, _ := out["annotations"].([]any)
		if len(list) > MaxAnnotations {
			invalid(fmt.Sprintf("%d annotations in one request, more than %d", len(list), MaxAnnotations))
			return
		}
		for _, a := range list {
			m, _ := a.(map[string]any)
			start, _ := m["start_line"].(float64)
			end, _ := m["end_line"].(float64)
			an := Annotation{Path: str(m, "path"), StartLine: int(start), EndLine: int(end),
				Level: str(m, "annotation_level"), Title: str(m, "title"), Message: str(m, "message")}
			if an.Path == "" || an.StartLine < 1 || an.EndLine < an.StartLine || an.Message == "" ||
				an.Level != "notice" && an.Level != "warning" && an.Level != "failure" {
				invalid(fmt.Sprintf("annotation %+v lacks a path, lines, a level or a message", an))
				return
			}
			anns = append(anns, an)
		}
	}
	if run == nil {
		s.nextID++
		run = &CheckRun{ID: s.nextID}
		s.checkRuns = append(s.checkRuns, run)
	}
	for dst, v := range map[*string]string{&run.Name: next.Name, &run.HeadSHA: next.HeadSHA, &run.Status: next.Status,
		&run.Conclusion: next.Conclusion, &run.CompletedAt: next.CompletedAt} {
		if v != "" {
			*dst = v
		}
	}
	if hasOutput {
		run.Title, run.Summary = str(out, "title"), str(out, "summary")
	}
	run.Annotations = append(run.Annotations, anns...)
	run.Requests++
	status := http.StatusOK
	if op == OpCheckCreate {
		status = http.StatusCreated
	}
	writeJSON(w, status, map[string]any{
		"id": run.ID, "name": run.Name, "head_sha": run.HeadSHA, "status": run.Status, "conclusion": run.Conclusion,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/runs/%d", Owner, Repo, run.ID),
	})
}

// body checks that the request carries a JSON object with exactly one key, "body", within the
// length limit, and returns it; otherwise it answers as GitHub does.
func (s *Server) body(w http.ResponseWriter, r *http.Request) (string, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		s.t.Errorf("fake GitHub: %s %s: Content-Type %q, want application/json", r.Method, r.URL.Path, ct)
	}
	var got map[string]any
	if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
		s.t.Errorf("fake GitHub: %s %s: body is not JSON: %v", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusBadRequest, message("Problems parsing JSON"))
		return "", false
	}
	body, ok := got["body"].(string)
	if !ok || len(got) != 1 {
		s.t.Errorf("fake GitHub: %s %s: JSON body %v, want exactly {\"body\": string}", r.Method, r.URL.Path, got)
	}
	if s.maxBody > 0 && utf8.RuneCountInString(body) > s.maxBody {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
			"message": "Validation Failed",
			"errors": []map[string]string{{
				"resource": "IssueComment", "code": "custom", "field": "body",
				"message": fmt.Sprintf("body is too long (maximum is %d characters)", s.maxBody),
			}},
			"documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
		})
		return "", false
	}
	return body, true
}

// poster is the login that comments made with the token get; s.mu held.
func (s *Server) poster() string {
	if s.login == "" && s.app != "" {
		return s.app + "[bot]"
	}
	if s.login == "" {
		return Bot
	}
	return s.login
}

func render(c *Comment, pr int) map[string]any {
	m := map[string]any{
		"id":       c.ID,
		"body":     c.Body,
		"user":     map[string]any{"login": c.Login, "type": "User"},
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", Owner, Repo, pr, c.ID),
	}
	// A login ending in [bot] is a GitHub App acting as itself, as GitHub renders it (Bot is the
	// app github-actions). A user's login cannot contain brackets.
	if slug, ok := strings.CutSuffix(c.Login, "[bot]"); ok {
		m["user"] = map[string]any{"login": c.Login, "type": "Bot"}
		m["performed_via_github_app"] = map[string]any{"slug": slug, "name": slug}
	}
	return m
}

func message(m string) map[string]string { return map[string]string{"message": m} }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
