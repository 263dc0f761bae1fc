package main

// A fake GitHub REST API for the action and comment tests, and the helpers that drive perfgate against it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/perfgate/perfgate"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/report"
)

const (
	apiPrefix      = "/api/v3"
	fakeOwner      = "octo"
	fakeRepo       = "minides"
	fakeToken      = "ghs_perfgate-test-token-5b1e"
	maxCommentBody = 65536 // GitHub's limit on a comment body, in characters
)

// fakeComment is one issue comment as the fake stores it.
type fakeComment struct {
	ID    int64
	Body  string
	Login string
}

// fakeGitHub is a small in-memory GitHub: pull requests, their comments, and scripted failures. Comments it creates
// are written by ghaction.BotLogin, the identity of a workflow's GITHUB_TOKEN, whose GET /user answers 403.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	pulls    map[int]string // pull request number → head SHA
	comments map[int][]*fakeComment
	nextID   int64
	maxBody  int              // a longer body (in characters) is rejected with 422
	script   map[string][]int // operation → statuses answered to its next requests, in order
	deny     map[string]int   // operation → status answered to every request
	writes   int              // create and edit requests answered with success
	log      []string         // "op status" of every request
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{
		t: t, pulls: map[int]string{}, comments: map[int][]*fakeComment{}, nextID: 100,
		maxBody: maxCommentBody, script: map[string][]int{}, deny: map[string]int{},
	}
	api := http.NewServeMux()
	api.HandleFunc("GET /user", f.op("user", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
	}))
	api.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}", f.op("pull", f.getPull))
	api.HandleFunc("GET /repos/{owner}/{repo}/issues/{n}/comments", f.op("list", f.listComments))
	api.HandleFunc("POST /repos/{owner}/{repo}/issues/{n}/comments", f.op("create", f.createComment))
	api.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", f.op("edit", f.editComment))
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL)
		reply(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	root := http.NewServeMux()
	root.Handle(apiPrefix+"/", http.StripPrefix(apiPrefix, api))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake GitHub: %s %s is outside %s/", r.Method, r.URL, apiPrefix)
		reply(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	f.srv = httptest.NewServer(root)
	t.Cleanup(f.srv.Close)
	return f
}

// op wraps a handler: it checks the token and the repository, and plays scripted failures.
func (f *fakeGitHub) op(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		status := 0
		switch {
		case r.Header.Get("Authorization") != "Bearer "+fakeToken:
			status = http.StatusUnauthorized
		case r.PathValue("owner") != "" && (r.PathValue("owner") != fakeOwner || r.PathValue("repo") != fakeRepo):
			status = http.StatusNotFound
		case f.deny[name] != 0:
			status = f.deny[name]
		case len(f.script[name]) > 0:
			status, f.script[name] = f.script[name][0], f.script[name][1:]
		}
		if status != 0 {
			f.log = append(f.log, fmt.Sprintf("%s %d", name, status))
			reply(w, status, map[string]string{"message": http.StatusText(status)})
			return
		}
		f.log = append(f.log, name)
		h(w, r)
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) commentJSON(c *fakeComment) map[string]any {
	return map[string]any{
		"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.Login},
		"html_url": fmt.Sprintf("https://github.example/%s/%s/pull/1#issuecomment-%d", fakeOwner, fakeRepo, c.ID),
	}
}

func (f *fakeGitHub) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	sha, ok := f.pulls[n]
	if !ok {
		reply(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	reply(w, http.StatusOK, map[string]any{"number": n, "head": map[string]any{"sha": sha}})
}

// listComments pages like GitHub: per_page (default 30) and page, with a Link header to the next page.
func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	all := f.comments[n]
	out := []map[string]any{}
	for i := (page - 1) * per; i < min(page*per, len(all)); i++ {
		out = append(out, f.commentJSON(all[i]))
	}
	if page*per < len(all) {
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?per_page=%d&page=%d>; rel="next"`, f.srv.URL, r.URL.Path, per, page+1))
	}
	reply(w, http.StatusOK, out)
}

func (f *fakeGitHub) readBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
		f.t.Errorf("fake GitHub: %s %s: bad JSON body (%v)", r.Method, r.URL, err)
		reply(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return "", false
	}
	if utf8.RuneCountInString(*in.Body) > f.maxBody {
		reply(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: body is too long"})
		return "", false
	}
	return *in.Body, true
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	if _, ok := f.pulls[n]; !ok {
		reply(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	body, ok := f.readBody(w, r)
	if !ok {
		return
	}
	c := f.add(n, ghaction.BotLogin, body)
	f.writes++
	reply(w, http.StatusCreated, f.commentJSON(c))
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for _, cs := range f.comments {
		for _, c := range cs {
			if c.ID != id {
				continue
			}
			body, ok := f.readBody(w, r)
			if !ok {
				return
			}
			c.Body = body
			f.writes++
			reply(w, http.StatusOK, f.commentJSON(c))
			return
		}
	}
	reply(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// add stores a comment; the caller holds f.mu or owns f exclusively.
func (f *fakeGitHub) add(pr int, login, body string) *fakeComment {
	f.nextID++
	c := &fakeComment{ID: f.nextID, Body: body, Login: login}
	f.comments[pr] = append(f.comments[pr], c)
	return c
}

// state returns copies of pull request pr's comments and the number of successful writes.
func (f *fakeGitHub) state(pr int) ([]fakeComment, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeComment
	for _, c := range f.comments[pr] {
		out = append(out, *c)
	}
	return out, f.writes
}

// mine returns the comments carrying the marker that the bot wrote.
func mine(cs []fakeComment) []fakeComment {
	var out []fakeComment
	for _, c := range cs {
		if c.Login == ghaction.BotLogin && strings.Contains(c.Body, report.Marker) {
			out = append(out, c)
		}
	}
	return out
}

// ghEnv sets the variables every GitHub Actions step sees, pointing at f and files in a new temporary directory,
// and clears the inputs (the test process itself may run inside a workflow step). It returns that directory.
func ghEnv(t *testing.T, f *fakeGitHub, workspace string) string {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "INPUT_") {
			t.Setenv(k, "")
		}
	}
	retrySleep = func(time.Duration) {} // retries are instant
	t.Cleanup(func() { retrySleep = nil })
	dir := t.TempDir()
	for k, v := range map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_REPOSITORY":   fakeOwner + "/" + fakeRepo,
		"GITHUB_API_URL":      f.srv.URL + apiPrefix,
		"GITHUB_WORKSPACE":    workspace,
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_EVENT_PATH":   filepath.Join(dir, "event.json"),
		"GITHUB_EVENT_NAME":   "pull_request",
	} {
		t.Setenv(k, v)
	}
	return dir
}

// writeEvent writes a pull_request event payload for pull request pr from base to head, with labels.
func writeEvent(t *testing.T, dir string, pr int, base, head string, labels ...string) {
	t.Helper()
	repo := map[string]string{"full_name": fakeOwner + "/" + fakeRepo}
	var ls []map[string]string
	for _, l := range labels {
		ls = append(ls, map[string]string{"name": l})
	}
	writeJSONFile(t, filepath.Join(dir, "event.json"), map[string]any{
		"action": "synchronize", "number": pr,
		"pull_request": map[string]any{
			"number": pr, "labels": ls,
			"base": map[string]any{"sha": base, "repo": repo},
			"head": map[string]any{"sha": head, "repo": repo},
		},
	})
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// invocation is one in-process run of the command.
type invocation struct {
	code           int
	stdout, stderr string
}

func invoke(t *testing.T, args ...string) invocation {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	t.Logf("perfgate %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout.String(), tail(stderr.String(), 40))
	return invocation{code, stdout.String(), stderr.String()}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// readOutputs parses a GITHUB_OUTPUT file of name<<delimiter blocks.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name<<delimiter", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("GITHUB_OUTPUT: output %s lacks its closing delimiter", name)
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// materialize writes the fixture history into a new temporary directory.
func materialize(t *testing.T) *demo.Repo {
	t.Helper()
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "minides"))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// setFixtureInputs sets the inputs of a small, quick comparison of the fixture.
func setFixtureInputs(t *testing.T) {
	t.Setenv("INPUT_PACKAGE", demo.Package)
	t.Setenv("INPUT_ROUNDS", "2")
	t.Setenv("INPUT_BENCHTIME", "20ms")
	t.Setenv("INPUT_GITHUB_TOKEN", fakeToken)
}

// resultOf reads the result.json a run wrote.
func resultOf(t *testing.T, dir string) *perfgate.Result {
	t.Helper()
	res, err := perfgate.ReadResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkRun checks what every completed action run leaves behind: the exit code is the verdict's, the outputs name
// the verdict, report.md and the results directory, the job summary and report.md hold the same report, and
// github.json names the pull request and the measured head.
func checkRun(t *testing.T, inv invocation, ghDir, workspace string, pr int, head string) (res *perfgate.Result, md string) {
	t.Helper()
	results := filepath.Join(workspace, "perfgate-results")
	res = resultOf(t, results)
	if inv.code != res.Verdict.ExitCode || inv.code == perfgate.ExitUsage || inv.code == perfgate.ExitCannotRun {
		t.Errorf("exit code %d, result.json's verdict %s with exit code %d", inv.code, res.Verdict.Status, res.Verdict.ExitCode)
	}
	if res.Head.Commit != head {
		t.Errorf("result.json's head is %s, want %s", res.Head.Commit, head)
	}
	checkCommands(t, inv.stdout)
	outputs := readOutputs(t, filepath.Join(ghDir, "output"))
	for k, want := range map[string]string{
		"verdict": string(res.Verdict.Status), "report": filepath.Join(results, "report.md"), "results-dir": results,
	} {
		if outputs[k] != want {
			t.Errorf("output %s = %q, want %q", k, outputs[k], want)
		}
	}
	md = readFile(t, filepath.Join(results, "report.md"))
	if !strings.HasPrefix(md, report.Marker) {
		t.Errorf("report.md does not start with the marker:\n%s", tail(md, 5))
	}
	if summary := readFile(t, filepath.Join(ghDir, "summary.md")); !strings.Contains(summary, md) {
		t.Errorf("the job summary does not hold report.md; it has %d bytes", len(summary))
	}
	var info prInfo
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(results, prInfoFile))), &info); err != nil {
		t.Fatal(err)
	}
	want := prInfo{Repository: fakeOwner + "/" + fakeRepo, PR: pr, BaseSHA: res.Base.Commit, HeadSHA: head, Event: "pull_request"}
	if info != want {
		t.Errorf("%s = %+v, want %+v", prInfoFile, info, want)
	}
	return res, md
}

// checkCommands checks the workflow commands on stdout: outside ::stop-commands:: regions only the commands
// perfgate issues itself, and the text report (which holds the pull request's text) inside one.
func checkCommands(t *testing.T, stdout string) {
	t.Helper()
	stop, stopped := "", 0
	for _, l := range strings.Split(stdout, "\n") {
		l = strings.TrimLeft(l, " \t") // the runner trims leading white space too
		switch {
		case stop != "" && l == "::"+stop+"::":
			stop = ""
		case stop != "":
			if strings.HasPrefix(l, "sec/op") {
				stopped++
			}
		case strings.HasPrefix(l, "::stop-commands::"):
			stop = strings.TrimPrefix(l, "::stop-commands::")
			if len(stop) < 32 {
				t.Errorf("stop-commands token %q is guessable", stop)
			}
		case strings.HasPrefix(l, "sec/op"):
			t.Errorf("the text report is outside a stop-commands region")
		case strings.HasPrefix(l, "::"):
			cmd, _, _ := strings.Cut(strings.TrimPrefix(l, "::"), "::")
			cmd, _, _ = strings.Cut(cmd, " ")
			if !slices.Contains([]string{"group", "endgroup", "error", "warning", "notice"}, cmd) {
				t.Errorf("workflow command %q outside a stop-commands region", l)
			}
		}
	}
	if stop != "" {
		t.Errorf("stop-commands %s is never resumed", stop)
	}
	if stopped == 0 {
		t.Errorf("no text report inside a stop-commands region")
	}
}

// outsideFences returns the lines of Markdown body outside fenced code blocks, where raw text is inert.
func outsideFences(body string) string {
	var out []string
	fence := ""
	for _, l := range strings.Split(body, "\n") {
		ticks := len(l) - len(strings.TrimLeft(l, "`"))
		switch {
		case fence == "" && ticks >= 3:
			fence = l[:ticks]
		case fence != "" && ticks >= len(fence) && strings.TrimSpace(l[ticks:]) == "":
			fence = ""
		case fence == "":
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
