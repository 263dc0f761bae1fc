package main

// The fake GitHub of the action and comment tests, and the helpers that drive perfgate against it.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/fakegithub"
	"github.com/perfgate/perfgate/record"
)

// The tests run against internal/testing/fakegithub: GitHub's REST API under /api/v3, serving one
// repository.
const (
	fakeOwner      = fakegithub.Owner
	fakeRepo       = fakegithub.Repo
	fakeToken      = fakegithub.Token
	maxCommentBody = fakegithub.MaxBody
)

type fakeGitHub = fakegithub.Server

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	if fakegithub.Bot != ghaction.BotLogin {
		t.Fatalf("fakegithub.Bot = %q, want ghaction.BotLogin %q", fakegithub.Bot, ghaction.BotLogin)
	}
	return fakegithub.New(t)
}

// mine returns the comments carrying the marker that the bot wrote.
func mine(cs []fakegithub.Comment) []fakegithub.Comment {
	var out []fakegithub.Comment
	for _, c := range cs {
		if c.Login == ghaction.BotLogin && strings.Contains(c.Body, mdreport.Marker) {
			out = append(out, c)
		}
	}
	return out
}

// ghEnv sets the variables every GitHub Actions step sees, pointing at f and files in a new
// temporary directory, and clears the inputs (the test process itself may run inside a workflow
// step). It returns that directory.
func ghEnv(t *testing.T, f *fakeGitHub, workspace string) string {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "INPUT_") {
			t.Setenv(k, "")
		}
	}
	// retries are instant
	retrySleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { retrySleep = nil })
	dir := t.TempDir()
	for k, v := range map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_REPOSITORY":   fakeOwner + "/" + fakeRepo,
		"GITHUB_API_URL":      f.URL,
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

// writeEvent writes a pull_request event payload for pull request pr from base to head, with
// labels.
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
	t.Setenv("INPUT_BUDGET", "0s") // exactly 2 rounds
	t.Setenv("INPUT_BENCHTIME", "20ms")
	// these tests are about the Action; the lanes have their own
	t.Setenv("INPUT_METRIC", "time")
	t.Setenv("INPUT_CONSTANT_TIME", "off") // and so has the constant-time check
	t.Setenv("INPUT_GITHUB_TOKEN", fakeToken)
}

// resultOf reads the result.json a run wrote.
func resultOf(t *testing.T, dir string) *record.Result {
	t.Helper()
	res, err := results.ReadResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkRun checks what every completed action run leaves behind: the exit code is the verdict's,
// the outputs name the verdict, report.md and the results directory, the job summary and report.md
// hold the same report, and github.json names the pull request and the measured head.
func checkRun(t *testing.T, inv invocation, ghDir, workspace string, pr int, head string) (res *record.Result, md string) {
	t.Helper()
	results := filepath.Join(workspace, "perfgate-results")
	res = resultOf(t, results)
	if inv.code != res.Verdict.ExitCode || inv.code == record.ExitUsage || inv.code == record.ExitCannotRun {
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
	if !strings.HasPrefix(md, mdreport.Marker) {
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

// checkCommands checks the workflow commands on stdout: outside ::stop-commands:: regions only the
// commands perfgate issues itself, and the text report (which holds the pull request's text) inside
// one.
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

// outsideFences returns the lines of Markdown body outside fenced code blocks, where raw text is
// inert.
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
