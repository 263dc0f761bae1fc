package main

// End-to-end tests of `perfgate action` and `perfgate comment`: the command runs in-process against a real fixture
// repository (internal/demo) and an httptest server standing in for the GitHub REST API, mounted under /api/v3/ as
// on GitHub Enterprise Server, with the event payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY in a temporary
// directory. The tests set the process environment with t.Setenv, so none of them runs in parallel.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

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
		"verdict": res.Verdict.Status, "report": filepath.Join(results, "report.md"), "results-dir": results,
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

// TestActionStickyComment runs the action twice on a pull request from weird to base: weird has a benchmark whose
// name is full of Markdown and HTML, which head lacks (perfgate discovers benchmarks on base, so the name only
// reaches the report when base has it). The first run creates the comment (after a 500), the second edits it
// (after a 502); a comment by someone else that carries the marker stays as it was.
func TestActionStickyComment(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole comparison twice")
	}
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 7
	base, head := repo.Commits["weird"], repo.Commits["base"]
	gh.pulls[pr] = head
	foreign := report.Marker + "\nI copied perfgate's marker; do not touch."
	gh.add(pr, "mallory", foreign)
	for i := range 120 { // perfgate's comment lands on the second page of 100
		gh.add(pr, "alice", fmt.Sprintf("review comment %d", i))
	}
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, pr, base, head)
	setFixtureInputs(t)

	gh.script["create"] = []int{http.StatusInternalServerError}
	inv := invoke(t, "action")
	_, md := checkRun(t, inv, dir, repo.Dir, pr, head)
	comments, writes := gh.state(pr)
	ours := mine(comments)
	if len(ours) != 1 || writes != 1 {
		t.Fatalf("after the first run: %d perfgate comments, %d writes; want 1 and 1", len(ours), writes)
	}
	if ours[0].Body != md {
		t.Errorf("the comment is not report.md:\n%s", tail(ours[0].Body, 10))
	}
	if got, want := readOutputs(t, filepath.Join(dir, "output"))["comment-url"], fmt.Sprintf("#issuecomment-%d", ours[0].ID); !strings.HasSuffix(got, want) {
		t.Errorf("output comment-url = %q, want the comment's URL", got)
	}
	if !strings.Contains(inv.stderr, "retrying") || !strings.Contains(inv.stderr, "created comment") {
		t.Errorf("stderr does not tell of the retry and the new comment:\n%s", tail(inv.stderr, 10))
	}
	if strings.Contains(inv.stdout, "::warning::perfgate: could not") {
		t.Errorf("a warning although the comment was posted:\n%s", inv.stdout)
	}

	t.Run("escaped", func(t *testing.T) {
		// The fixture's sub-benchmark name (internal/demo/history/weird.txtar).
		name := "Weird/<b>x</b>|*y*_`z`_[l](http://e.x)_&amp;_@all_<!--c-->_#1\\"
		body := outsideFences(ours[0].Body)
		if !strings.Contains(body, report.EscapeMarkdown(name)) {
			t.Errorf("the comment lacks the escaped name %q", report.EscapeMarkdown(name))
		}
		for _, raw := range []string{"<b>", "<!--c-->", "[l](http", "@all", "`z`", "*in*"} {
			if strings.Contains(body, raw) {
				t.Errorf("the comment holds %q unescaped", raw)
			}
		}
		if !strings.Contains(body, "markup") {
			t.Errorf("the comment does not name the base commit's subject")
		}
	})

	gh.script["edit"] = []int{http.StatusBadGateway}
	inv = invoke(t, "action")
	_, md = checkRun(t, inv, dir, repo.Dir, pr, head)
	again, writes := gh.state(pr)
	ours2 := mine(again)
	switch {
	case len(again) != 122 || len(ours2) != 1 || writes != 2:
		t.Errorf("after the second run: %d comments, %d by perfgate, %d writes; want 122, 1, 2", len(again), len(ours2), writes)
	case ours2[0].ID != ours[0].ID:
		t.Errorf("the second run wrote comment %d, the first %d", ours2[0].ID, ours[0].ID)
	case ours2[0].Body != md:
		t.Errorf("the edited comment is not the second report.md")
	}
	if !strings.Contains(inv.stderr, "updated comment") {
		t.Errorf("stderr does not tell of the edit:\n%s", tail(inv.stderr, 10))
	}
	for _, c := range again {
		if c.Login == "mallory" && c.Body != foreign {
			t.Errorf("mallory's comment was changed to:\n%s", c.Body)
		}
	}
}

// TestActionForbiddenAndScrubbed runs the action from base to envdump, whose KeySetup/des benchmark writes its
// whole environment to the file PERFGATE_ENVDUMP names, with every kind of token in the action's environment, and
// with GitHub refusing the comment (403, a fork's read-only token). No token may reach the benchmark, the
// ordinary variable must; the job summary keeps the report, a ::warning says why there is no comment, and the
// exit code stays the gate's.
func TestActionForbiddenAndScrubbed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole comparison")
	}
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 12
	base, head := repo.Commits["base"], repo.Commits["envdump"]
	gh.pulls[pr] = head
	gh.deny["create"] = http.StatusForbidden
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, pr, base, head)
	setFixtureInputs(t)
	dump := filepath.Join(dir, "env.txt")
	secrets := map[string]string{
		"GITHUB_TOKEN":                   "ghs_secret-github-token-1",
		"INPUT_GITHUB-TOKEN":             "ghs_secret-dashed-input-2",
		"ACTIONS_RUNTIME_TOKEN":          "secret-runtime-token-3",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "secret-id-token-4",
		"GH_TOKEN":                       "ghp_secret-gh-token-5",
		"NPM_TOKEN":                      "npm_secret-6",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	secrets["INPUT_GITHUB_TOKEN"] = fakeToken // set by setFixtureInputs: the token that comments
	t.Setenv("PERFGATE_ENVDUMP", dump)

	inv := invoke(t, "action")
	_, md := checkRun(t, inv, dir, repo.Dir, pr, head)

	env := readFile(t, dump)
	if !strings.Contains(env, "PERFGATE_ENVDUMP="+dump+"\n") {
		t.Errorf("the benchmark did not see PERFGATE_ENVDUMP; its environment:\n%s", env)
	}
	for k, v := range secrets {
		if strings.Contains(env, v) {
			t.Errorf("the value of %s reached the benchmark process", k)
		}
	}
	for _, line := range strings.Split(env, "\n") {
		if k, _, _ := strings.Cut(line, "="); strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "ACTIONS_") {
			t.Errorf("the benchmark process has %s", k)
		}
	}

	comments, writes := gh.state(pr)
	if len(comments) != 0 || writes != 0 {
		t.Errorf("%d comments, %d writes after a 403", len(comments), writes)
	}
	if !strings.Contains(inv.stdout, "::warning::perfgate: could not update the pull-request comment") ||
		!strings.Contains(inv.stdout, "403") {
		t.Errorf("no ::warning about the refused comment:\n%s", inv.stdout)
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "summary.md")), md) {
		t.Errorf("the job summary lacks the report")
	}
}

// evil is text an untrusted pull request could put into any string of result.json.
const evil = "<img src=x onerror=alert(1)> <!-- hide --> [click](javascript:alert(1)) @everyone\n# heading\n```\n</details>"

// syntheticResult returns a failing result measured at head, with n benchmarks and evil in every string field.
func syntheticResult(head string, n int) *perfgate.Result {
	res := &perfgate.Result{
		Schema: perfgate.Schema, Package: "./pkg" + evil,
		Base:     perfgate.Revision{Ref: "main" + evil, Commit: strings.Repeat("a", 40), Subject: evil},
		Head:     perfgate.Revision{Ref: "pr" + evil, Commit: head, Subject: evil},
		Verdict:  perfgate.Verdict{Status: perfgate.StatusFail, ExitCode: 1, Reasons: []string{evil}, Acknowledged: []string{evil}},
		Failures: []perfgate.Failure{{Name: "Crash" + evil, Side: "head", Kind: "panic", Message: evil}},
		Functional: perfgate.Functional{
			Base: perfgate.TestRun{Ran: true, Passed: true},
			Head: perfgate.TestRun{Ran: true, Passed: false, Output: evil},
		},
		Differential: perfgate.Differential{Status: perfgate.DiffMismatch, Reason: evil, Ciphers: []perfgate.DiffCipher{{
			Name: "New" + evil, KeySizes: []int{8}, Keys: 1, Blocks: 1, Mismatches: 1, DigestBase: evil, DigestHead: evil,
			Examples: []perfgate.Mismatch{{Key: evil, Direction: "encrypt", Method: evil, Input: evil, Base: evil, Head: evil}},
		}}},
		Sizes: perfgate.Sizes{
			Sections: []perfgate.SectionSize{{Name: ".text" + evil, Base: 100, Head: 200}},
			Symbols:  []perfgate.SymbolSize{{Name: "sym" + evil, Section: ".text" + evil, Base: 1, Head: 2}},
			Error:    evil,
		},
		Env:    perfgate.Env{Go: "go" + evil, GOOS: "linux", GOARCH: "amd64", CPU: evil, Governor: evil, Kernel: evil},
		Method: perfgate.Method{Rounds: 5, Threshold: 2, Alpha: 0.05, Estimator: evil},
		Notes:  []string{evil},
	}
	for i := range n {
		res.Benchmarks = append(res.Benchmarks, perfgate.Benchmark{
			Name: fmt.Sprintf("Bench%05d/%s", i, evil), Unit: "sec/op", Class: perfgate.ClassSlower, Note: evil,
			Base:     perfgate.Summary{Center: 1e-6, Lo: 0.9e-6, Hi: 1.1e-6, N: 10},
			Head:     perfgate.Summary{Center: 2e-6, Lo: 1.9e-6, Hi: 2.1e-6, N: 10},
			DeltaPct: 100, P: 0.001, Paired: &perfgate.Paired{Ratio: 2, Lo: 1.9, Hi: 2.1},
		})
	}
	return res
}

// writeArtifact writes result.json and github.json into a new results directory.
func writeArtifact(t *testing.T, res *perfgate.Result, info prInfo) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "perfgate-results")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, filepath.Join(dir, "result.json"), res)
	writeJSONFile(t, filepath.Join(dir, prInfoFile), info)
	// The artifact's report.md is untrusted and ignored: perfgate comment renders its own.
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(report.Marker+"\n<img src=x>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// commentEnv sets up the environment of the workflow_run job and returns the measured head SHA and a valid
// github.json for pull request pr.
func commentEnv(t *testing.T, gh *fakeGitHub, pr int) (string, prInfo) {
	t.Helper()
	head := strings.Repeat("c0ffee", 7)[:40]
	gh.pulls[pr] = head
	dir := ghEnv(t, gh, t.TempDir())
	t.Setenv("GITHUB_EVENT_NAME", "workflow_run")
	t.Setenv("GITHUB_TOKEN", fakeToken)
	// A fork's pull request: GitHub leaves workflow_run.pull_requests empty, so only the artifact names it.
	writeJSONFile(t, filepath.Join(dir, "event.json"), map[string]any{
		"action":       "completed",
		"workflow_run": map[string]any{"id": 99, "event": "pull_request", "head_sha": head, "pull_requests": []any{}},
	})
	return head, prInfo{Repository: fakeOwner + "/" + fakeRepo, PR: pr, BaseSHA: strings.Repeat("a", 40), HeadSHA: head, Event: "pull_request"}
}

// TestComment posts a results directory from a workflow_run job: a result of thousands of benchmarks, every
// string of it hostile, comes out escaped and under GitHub's limit, also when GitHub rejects long bodies (422).
func TestComment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxBody int // the fake's limit on a body
	}{{"limit", maxCommentBody}, {"422", 20000}} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t)
			gh.maxBody = tc.maxBody
			const pr = 41
			head, info := commentEnv(t, gh, pr)
			dir := writeArtifact(t, syntheticResult(head, 3000), info)
			inv := invoke(t, "comment", dir)
			if inv.code != 0 {
				t.Fatalf("exit %d, want 0", inv.code)
			}
			comments, writes := gh.state(pr)
			ours := mine(comments)
			if len(ours) != 1 || writes != 1 {
				t.Fatalf("%d perfgate comments, %d writes; want 1 and 1", len(ours), writes)
			}
			body := ours[0].Body
			if n := utf8.RuneCountInString(body); n > tc.maxBody {
				t.Errorf("the comment has %d characters, more than %d", n, tc.maxBody)
			}
			if !strings.HasPrefix(body, report.Marker) || !strings.Contains(body, "Bench00000") || !strings.Contains(body, "omitted") {
				t.Errorf("the comment lacks the marker, the first benchmark or the note of what it left out:\n%s", tail(body, 5))
			}
			if strings.TrimSpace(inv.stdout) != fmt.Sprintf("https://github.example/%s/%s/pull/1#issuecomment-%d", fakeOwner, fakeRepo, ours[0].ID) {
				t.Errorf("stdout = %q, want the comment's URL", inv.stdout)
			}
			text := outsideFences(body)
			for _, raw := range []string{"<img", "<!-- hide", "](javascript", "@everyone", "\n# heading", "<script"} {
				if strings.Contains(text, raw) {
					i := strings.Index(text, raw)
					t.Errorf("the comment holds %q unescaped: …%s…", raw, text[max(i-80, 0):min(i+80, len(text))])
				}
			}
			if open, closed := strings.Count(text, "<details>"), strings.Count(text, "</details>"); open != closed {
				t.Errorf("the comment opens %d <details> and closes %d", open, closed)
			}
		})
	}
}

// TestCommentRefusesTamperedArtifacts: an artifact that does not describe the triggering run's pull request and
// commit exactly, or that is not made of small regular files, is refused with exit code 2 and nothing is posted.
func TestCommentRefusesTamperedArtifacts(t *testing.T) {
	const pr = 41
	other := strings.Repeat("d", 40)
	type artifact struct {
		gh   *fakeGitHub
		res  *perfgate.Result
		info *prInfo
	}
	for _, tc := range []struct {
		name  string
		edit  func(a artifact)               // changes what is written, or what GitHub answers
		files func(t *testing.T, dir string) // changes the written results directory
		want  string                         // in stderr
	}{
		{name: "pr zero", edit: func(a artifact) { a.info.PR = 0 }, want: "out of range"},
		{name: "pr negative", edit: func(a artifact) { a.info.PR = -pr }, want: "out of range"},
		{name: "pr too large", edit: func(a artifact) { a.info.PR = 1<<31 + pr }, want: "out of range"},
		{name: "pull request moved on", edit: func(a artifact) { a.gh.pulls[pr] = other }, want: "not the measured"},
		{name: "other pull request", edit: func(a artifact) {
			a.gh.pulls[pr+1] = other // the artifact aims the comment at a pull request with another head
			a.info.PR = pr + 1
		}, want: "not the measured"},
		{name: "result head differs", edit: func(a artifact) { a.res.Head.Commit = other }, want: "result.json measured head"},
		{name: "not the triggering run's commit", edit: func(a artifact) {
			a.res.Head.Commit, a.info.HeadSHA, a.gh.pulls[pr] = other, other, other
		}, want: "triggering run was for"},
		{name: "malformed head", edit: func(a artifact) { a.res.Head.Commit, a.info.HeadSHA = "HEAD", "HEAD" }, want: "not a commit id"},
		{name: "other repository", edit: func(a artifact) { a.info.Repository = "mallory/minides" }, want: "repository"},
		{name: "unknown verdict", edit: func(a artifact) { a.res.Verdict.Status = "pass<img src=x>" }, want: "unknown verdict"},
		{name: "oversized github.json", edit: func(a artifact) { a.info.Event = strings.Repeat("x", maxInfoBytes) }, want: "bytes, more than"},
		{name: "oversized result.json", files: func(t *testing.T, dir string) {
			// A sparse file past the limit: the size is checked before anything is read.
			if err := os.Truncate(filepath.Join(dir, "result.json"), maxResultBytes+1); err != nil {
				t.Fatal(err)
			}
		}, want: "bytes, more than"},
		{name: "symlinked result.json", files: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "result.json")
			if err := os.Rename(p, p+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(p+".real", p); err != nil {
				t.Fatal(err)
			}
		}, want: "not a regular file"},
		{name: "github.json a directory", files: func(t *testing.T, dir string) {
			p := filepath.Join(dir, prInfoFile)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, want: "not a regular file"},
		{name: "event names another pull request", files: func(t *testing.T, _ string) {
			ev := filepath.Join(filepath.Dir(os.Getenv("GITHUB_OUTPUT")), "event.json")
			var payload struct {
				Action      string         `json:"action"`
				WorkflowRun map[string]any `json:"workflow_run"`
			}
			if err := json.Unmarshal([]byte(readFile(t, ev)), &payload); err != nil {
				t.Fatal(err)
			}
			payload.WorkflowRun["pull_requests"] = []map[string]int{{"number": pr + 1}}
			writeJSONFile(t, ev, payload)
		}, want: "triggering run was for #42"},
		{name: "github.json missing", files: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, prInfoFile)); err != nil {
				t.Fatal(err)
			}
		}, want: prInfoFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t)
			head, info := commentEnv(t, gh, pr)
			res := syntheticResult(head, 3)
			if tc.edit != nil {
				tc.edit(artifact{gh, res, &info})
			}
			dir := writeArtifact(t, res, info)
			if tc.files != nil {
				tc.files(t, dir)
			}
			inv := invoke(t, "comment", dir)
			if inv.code != perfgate.ExitUsage {
				t.Errorf("exit %d, want %d", inv.code, perfgate.ExitUsage)
			}
			if !strings.Contains(inv.stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, inv.stderr)
			}
			if comments, writes := gh.state(pr); len(comments) != 0 || writes != 0 {
				t.Errorf("%d comments, %d writes: the artifact was posted", len(comments), writes)
			}
			if inv.stdout != "" && !strings.HasPrefix(inv.stdout, "::error::") {
				t.Errorf("stdout = %q, want nothing but an ::error annotation", inv.stdout)
			}
		})
	}
}

// TestActionConfig maps inputs and a pull_request event onto a Config, then checks the policy the mapping implies
// on a synthetic result: the acknowledge label lets a slower benchmark pass and the comment says so. (An end-to-end
// run cannot make a benchmark reliably slower in a test, so the gate is tested here on the Config the action built.)
func TestActionConfig(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "gate.yml"), []byte("keys: 16\nthresholds:\n  KeySetup: 50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, head := strings.Repeat("b", 40), strings.Repeat("e", 40)
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "INPUT_PACKAGE": "./cipher/des", "INPUT_BENCH": "Encrypt", "INPUT_ROUNDS": "7",
		"INPUT_BENCHTIME": "30ms", "INPUT_CPU": "0", "INPUT_THRESHOLD": "3%", "INPUT_CONFIG": "gate.yml",
		"INPUT_COMMENT": "false", "INPUT_ACKNOWLEDGE_LABEL": "slow-ok",
	}
	newRunner := func() *ghaction.Runner {
		return ghaction.NewRunner(func(k string) string { return env[k] }, io.Discard)
	}
	ev := &ghaction.Event{Name: "pull_request", PR: 3, BaseSHA: base, HeadSHA: head, Labels: []string{"docs", "slow-ok"}}
	cfg, comment, err := actionConfig(newRunner(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if comment {
		t.Error("comment = true with the input comment: false")
	}
	want := perfgate.DefaultConfig()
	want.Dir, want.Package, want.Bench, want.Rounds, want.BenchTime = ws, "./cipher/des", "Encrypt", 7, 30*time.Millisecond
	want.CPU, want.Threshold, want.Keys, want.Thresholds = 0, 3, 16, map[string]float64{"KeySetup": 50}
	want.Base, want.Head, want.AcknowledgeLabel, want.Acknowledged = base, head, "slow-ok", true
	want.Out = filepath.Join(ws, "perfgate-results")
	if diff := cmp.Diff(want, cfg, cmpopts.IgnoreFields(perfgate.Config{}, "Log")); diff != "" {
		t.Errorf("actionConfig (-want +got):\n%s", diff)
	}

	slower := func() *perfgate.Result {
		return &perfgate.Result{Schema: perfgate.Schema, Benchmarks: []perfgate.Benchmark{{
			Name: "Encrypt/des", Unit: "sec/op", Class: perfgate.ClassSlower, DeltaPct: 20,
			Paired: &perfgate.Paired{Ratio: 1.2, Lo: 1.15, Hi: 1.25},
		}}}
	}
	res := slower()
	cfg.Decide(res, false, nil)
	if res.Verdict.Status != perfgate.StatusPass || len(res.Verdict.Acknowledged) != 1 {
		t.Errorf("with the label: verdict %+v, want a pass that acknowledges Encrypt/des", res.Verdict)
	}
	if md := report.Markdown(res, report.Options{}); !strings.Contains(md, "slow-ok") {
		t.Errorf("the comment does not say the label acknowledged the slowdown:\n%s", md)
	}

	ev.Labels = []string{"perf-regression-ok"} // the default label, but this repository chose another
	cfg, _, err = actionConfig(newRunner(), ev)
	if err != nil {
		t.Fatal(err)
	}
	res = slower()
	cfg.Decide(res, false, nil)
	if res.Verdict.Status != perfgate.StatusFail || res.Verdict.ExitCode != perfgate.ExitFail {
		t.Errorf("without the label: verdict %+v, want fail", res.Verdict)
	}

	for k, v := range map[string]string{
		"INPUT_ROUNDS": "many", "INPUT_BENCHTIME": "1 s", "INPUT_CPU": "last", "INPUT_THRESHOLD": "two",
		"INPUT_COMMENT": "maybe", "INPUT_BENCH": "(", "INPUT_CONFIG": ".", // a directory
	} {
		old := env[k]
		env[k] = v
		if _, _, err := actionConfig(newRunner(), ev); err == nil {
			t.Errorf("%s=%q: no error", k, v)
		} else if !strings.Contains(err.Error(), strings.ToLower(strings.TrimPrefix(k, "INPUT_"))) && k != "INPUT_CONFIG" {
			t.Errorf("%s=%q: the error %q does not name the input", k, v, err)
		}
		env[k] = old
	}
}

// TestActionUsage: arguments and bad inputs exit 2 before anything runs, with an ::error annotation for the input.
func TestActionUsage(t *testing.T) {
	gh := newFakeGitHub(t)
	ghEnv(t, gh, t.TempDir())
	t.Setenv("GITHUB_EVENT_PATH", "")
	if inv := invoke(t, "action", "extra"); inv.code != perfgate.ExitUsage || !strings.Contains(inv.stderr, "no arguments") {
		t.Errorf("perfgate action extra: exit %d, stderr %q", inv.code, inv.stderr)
	}
	t.Setenv("INPUT_ROUNDS", "lots")
	inv := invoke(t, "action")
	if inv.code != perfgate.ExitUsage || !strings.Contains(inv.stdout, "::error::perfgate: input: rounds: invalid value \"lots\"") {
		t.Errorf("INPUT_ROUNDS=lots: exit %d, stdout %q", inv.code, inv.stdout)
	}
	if _, err := os.Stat(os.Getenv("GITHUB_OUTPUT")); err == nil {
		t.Errorf("outputs were set although the inputs are invalid")
	}
}

// actionYAML is the part of action.yml the tests read.
type actionYAML struct {
	Inputs  map[string]struct{ Default *string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }    `yaml:"outputs"`
	Runs    struct {
		Using string
		Steps []struct {
			ID  string
			Run string
			Env map[string]string
		}
	}
}

// TestActionYAML: inputs reach the program only through env: (a ${{ }} inside run: would let an input's value
// become shell code), every input the program reads is declared and mapped to its INPUT_ variable, and the outputs
// are the ones the program sets.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	var declared []string
	for name := range a.Inputs {
		declared = append(declared, name)
	}
	if diff := cmp.Diff(actionInputs, declared, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("inputs: the program reads (-) and action.yml declares (+):\n%s", diff)
	}
	var runStep map[string]string
	for i, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %d: run: contains ${{ }}:\n%s", i, s.Run)
		}
		if s.ID == "perfgate" {
			runStep = s.Env
		}
	}
	if runStep == nil {
		t.Fatal("no step with id perfgate")
	}
	want := map[string]string{}
	for name := range a.Inputs {
		want["INPUT_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))] = "${{ inputs." + name + " }}"
	}
	got := map[string]string{}
	for k, v := range runStep {
		if strings.HasPrefix(k, "INPUT_") {
			got[k] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the perfgate step's INPUT_ variables (-want +got):\n%s", diff)
	}
	for _, name := range []string{"verdict", "report", "results-dir", "comment-url"} {
		if v := a.Outputs[name].Value; v != "${{ steps.perfgate.outputs."+name+" }}" {
			t.Errorf("output %s = %q", name, v)
		}
	}
}

// TestWorkflows checks the repository's workflows against the fork-safe design: no ${{ }} inside run:, a
// least-privilege token everywhere, the job that runs the pull request's code (uses: ./) has no write permission
// and a full history, and the job that may write runs only on workflow_run and never checks out or runs the pull
// request's code.
func TestWorkflows(t *testing.T) {
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var w struct {
			On          map[string]any    `yaml:"on"`
			Permissions map[string]string `yaml:"permissions"`
			Jobs        map[string]struct {
				Permissions map[string]string `yaml:"permissions"`
				Steps       []struct {
					Uses string
					Run  string
					With map[string]any
				}
			}
		}
		if err := yaml.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v (permissions must be a map, not write-all)", file, err)
		}
		name := filepath.Base(file)
		if w.Permissions == nil {
			t.Errorf("%s: no top-level permissions: the token gets the repository's default", name)
		}
		if _, ok := w.On["pull_request_target"]; ok {
			t.Errorf("%s: runs on pull_request_target", name)
		}
		writes := false
		for k, v := range w.Permissions {
			if v == "write" {
				writes = true
				if k != "pull-requests" {
					t.Errorf("%s: permission %s: write", name, k)
				}
			}
		}
		for job, j := range w.Jobs {
			if j.Permissions != nil {
				t.Errorf("%s: job %s overrides the permissions", name, job)
			}
			for i, s := range j.Steps {
				where := fmt.Sprintf("%s: job %s step %d", name, job, i)
				if strings.Contains(s.Run, "${{") {
					t.Errorf("%s: run: contains ${{ }}:\n%s", where, s.Run)
				}
				if strings.HasPrefix(s.Uses, "actions/checkout@") {
					if s.With["persist-credentials"] != false {
						t.Errorf("%s: checkout keeps the token in .git/config (persist-credentials)", where)
					}
					if writes && s.With["ref"] != nil {
						t.Errorf("%s: a job with write permission checks out %v", where, s.With["ref"])
					}
				}
				if s.Uses == "./" {
					if writes {
						t.Errorf("%s: runs the pull request's action with write permission", where)
					}
					if !fetchesAll(j.Steps) {
						t.Errorf("%s: perfgate needs the base commit: check out with fetch-depth: 0", where)
					}
				}
			}
		}
		if writes {
			if len(w.On) != 1 || w.On["workflow_run"] == nil {
				t.Errorf("%s: may write, so it must run only on workflow_run, not %v", name, w.On)
			}
		}
	}
}

// fetchesAll reports whether the steps check out the whole history.
func fetchesAll(steps []struct {
	Uses string
	Run  string
	With map[string]any
}) bool {
	for _, s := range steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["fetch-depth"] == 0 {
			return true
		}
	}
	return false
}

// TestActionNoComment: a fork's pull request (read-only token), a push and the input comment: false make no API
// call at all, and a comparison that stops early still writes its report and exits with its code: the package does
// not exist on either side, a configuration error found while running (exit 2), so each run stops early.
func TestActionNoComment(t *testing.T) {
	repo := materialize(t)
	base, head := repo.Commits["base"], repo.Commits["folded"]
	for _, tc := range []struct {
		name  string
		event string
		setup func(dir string)
		want  string // in stderr
	}{
		{"fork", "pull_request", func(dir string) {
			writeJSONFile(t, filepath.Join(dir, "event.json"), map[string]any{"number": 5, "pull_request": map[string]any{
				"number": 5,
				"base":   map[string]any{"sha": base, "repo": map[string]string{"full_name": fakeOwner + "/" + fakeRepo}},
				"head":   map[string]any{"sha": head, "repo": map[string]string{"full_name": "mallory/" + fakeRepo}},
			}})
		}, "a fork's pull request"},
		{"push", "push", func(dir string) {
			writeJSONFile(t, filepath.Join(dir, "event.json"), map[string]any{"before": base, "after": head})
		}, "no pull request in this push event"},
		{"comment false", "pull_request", func(dir string) {
			writeEvent(t, dir, 5, base, head)
			t.Setenv("INPUT_COMMENT", "false")
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t)
			gh.pulls[5] = head
			dir := ghEnv(t, gh, repo.Dir)
			setFixtureInputs(t)
			t.Setenv("INPUT_PACKAGE", "./nope")
			t.Setenv("GITHUB_EVENT_NAME", tc.event)
			tc.setup(dir)
			inv := invoke(t, "action")
			res := resultOf(t, filepath.Join(repo.Dir, "perfgate-results"))
			if inv.code != perfgate.ExitUsage || res.Verdict.Status != perfgate.StatusError || res.Head.Commit != head {
				t.Errorf("exit %d, verdict %s, head %s; want 2, error, %s", inv.code, res.Verdict.Status, res.Head.Commit, head)
			}
			if out := readOutputs(t, filepath.Join(dir, "output")); out["verdict"] != perfgate.StatusError {
				t.Errorf("output verdict = %q, want error", out["verdict"])
			}
			if !strings.Contains(readFile(t, filepath.Join(dir, "summary.md")), report.Marker) {
				t.Errorf("the job summary lacks the report")
			}
			if !strings.Contains(inv.stderr, tc.want) {
				t.Errorf("stderr does not say %q", tc.want)
			}
			if len(gh.log) != 0 {
				t.Errorf("GitHub was called: %v", gh.log)
			}
		})
	}
}
