package main

// End-to-end tests of `perfgate action` and `perfgate comment`: the command runs in-process against
// a real fixture repository (internal/demo) and an httptest server standing in for the GitHub REST
// API, mounted under /api/v3/ as on GitHub Enterprise Server, with the event payload, GITHUB_OUTPUT
// and GITHUB_STEP_SUMMARY in a temporary directory. The tests set the process environment with
// t.Setenv, so none of them runs in parallel.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/fakegithub"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// TestActionStickyComment runs the action twice on a pull request from weird to base: weird has a
// benchmark whose name is full of Markdown and HTML, which head lacks (perfgate discovers
// benchmarks on base, so the name only reaches the report when base has it). The first run creates
// the comment (after a 500), the second edits it (after a 502); a comment by someone else that
// carries the marker stays as it was.
func TestActionStickyComment(t *testing.T) {
	testenv.Long(t) // runs the whole comparison twice
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 7
	base, head := repo.Commits["weird"], repo.Commits["base"]
	gh.SetPull(pr, head)
	foreign := mdreport.Marker + "\nI copied perfgate's marker; do not touch."
	gh.Add(pr, "mallory", foreign)
	for i := range 120 { // perfgate's comment lands on the second page of 100
		gh.Add(pr, "alice", fmt.Sprintf("review comment %d", i))
	}
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, pr, base, head)
	setFixtureInputs(t)

	gh.On(fakegithub.OpCreate, fakegithub.Reply{Status: http.StatusInternalServerError})
	inv := invoke(t, "action")
	_, md := checkRun(t, inv, dir, repo.Dir, pr, head)
	comments, writes := gh.Comments(pr), gh.Writes()
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
		if !strings.Contains(body, text.Markdown(name)) {
			t.Errorf("the comment lacks the escaped name %q", text.Markdown(name))
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

	gh.On(fakegithub.OpEdit, fakegithub.Reply{Status: http.StatusBadGateway})
	inv = invoke(t, "action")
	_, md = checkRun(t, inv, dir, repo.Dir, pr, head)
	again, writes := gh.Comments(pr), gh.Writes()
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

// TestActionForbiddenAndScrubbed runs the action from base to envdump, whose KeySetup/des benchmark
// writes its whole environment to the file PERFGATE_ENVDUMP names, with every kind of token in the
// action's environment, and with GitHub refusing the comment (403, a fork's read-only token). No
// token may reach the benchmark, the ordinary variable must; the job summary keeps the report, a
// ::warning says why there is no comment, and the exit code stays the gate's.
func TestActionForbiddenAndScrubbed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole comparison")
	}
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 12
	base, head := repo.Commits["base"], repo.Commits["envdump"]
	gh.SetPull(pr, head)
	gh.Always(fakegithub.OpCreate, fakegithub.Reply{Status: http.StatusForbidden})
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, pr, base, head)
	setFixtureInputs(t)
	// The fixture's benchmark writes what it sees into the package directory, which the sandbox
	// forbids: this test is about the environment (the sandbox has tests of its own).
	t.Setenv("INPUT_SANDBOX", "off")
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

	comments, writes := gh.Comments(pr), gh.Writes()
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

// TestActionConfig maps inputs and a pull_request event onto a Config, then checks the policy the
// mapping implies on a synthetic result: the acknowledge label lets a slower benchmark pass and the
// comment says so. (An end-to-end run cannot make a benchmark reliably slower in a test, so the
// gate is tested here on the Config the action built.)
func TestActionConfig(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "gate.yml"), []byte("keys: 16\nthresholds:\n  KeySetup: 50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, head := strings.Repeat("b", 40), strings.Repeat("e", 40)
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "INPUT_PACKAGE": "./cipher/des", "INPUT_BENCH": "Encrypt", "INPUT_ROUNDS": "7",
		"INPUT_BENCHTIME": "30ms", "INPUT_PIN_CPU": "0", "INPUT_THRESHOLD": "3%", "INPUT_CONFIG": "gate.yml",
		"INPUT_COMMENT": "false", "INPUT_ACKNOWLEDGE_LABEL": "slow-ok",
		// the workspace is no git repository: base's file cannot be read
		"INPUT_POLICY_FROM": "head",
	}
	newRunner := func() *ghaction.Runner {
		return ghaction.NewRunner(func(k string) string { return env[k] }, io.Discard)
	}
	ev := &ghaction.Event{Name: "pull_request", PR: 3, BaseSHA: base, HeadSHA: head, Labels: []string{"docs", "slow-ok"}}
	cfg, comment, err := actionConfig(newRunner(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if comment != commentNever {
		t.Errorf("comment = %q with the input comment: false", comment)
	}
	want := config.Default()
	want.Dir, want.Package, want.Bench, want.Rounds, want.BenchTime = ws, "./cipher/des", "Encrypt", 7, config.For(30*time.Millisecond)
	want.CPU, want.Threshold, want.Keys, want.Thresholds = 0, 3, 16, map[string]float64{"KeySetup": 50}
	want.Base, want.Head, want.AcknowledgeLabel, want.Acknowledged = base, head, "slow-ok", true
	want.Out = filepath.Join(ws, "perfgate-results")
	want.PolicyFrom, want.PolicyOrigin = config.PolicyFromHead, record.PolicyOrigin{From: "head"}
	if runtime.GOOS == "linux" {
		want.Sandbox = "required" // the Action's default where GitHub's runners have Landlock
	}
	if diff := cmp.Diff(want, cfg, cmpopts.IgnoreFields(config.Config{}, "Log")); diff != "" {
		t.Errorf("actionConfig (-want +got):\n%s", diff)
	}

	slower := func() *record.Result {
		return &record.Result{Schema: record.Schema, Benchmarks: []record.Benchmark{{
			Name: "Encrypt/des", Unit: "sec/op", Class: record.ClassSlower, DeltaPct: 20,
			Paired: &record.Paired{Ratio: 1.2, Lo: 1.15, Hi: 1.25},
		}}}
	}
	res := slower()
	res.Verdict = gate.Decide(*res, cfg.Policy())
	if res.Verdict.Status != record.StatusPass || len(res.Verdict.Acknowledged) != 1 {
		t.Errorf("with the label: verdict %+v, want a pass that acknowledges Encrypt/des", res.Verdict)
	}
	if md := mdreport.Markdown(res, report.Options{}); !strings.Contains(md, "slow-ok") {
		t.Errorf("the comment does not say the label acknowledged the slowdown:\n%s", md)
	}

	// the default label, but this repository chose another
	ev.Labels = []string{"perf-regression-ok"}
	cfg, _, err = actionConfig(newRunner(), ev)
	if err != nil {
		t.Fatal(err)
	}
	res = slower()
	res.Verdict = gate.Decide(*res, cfg.Policy())
	if res.Verdict.Status != record.StatusFail || res.Verdict.ExitCode != record.ExitFail {
		t.Errorf("without the label: verdict %+v, want fail", res.Verdict)
	}

	for k, v := range map[string]string{
		"INPUT_ROUNDS": "many", "INPUT_BENCHTIME": "1 s", "INPUT_PIN_CPU": "last", "INPUT_THRESHOLD": "two",
		"INPUT_COMMENT": "maybe", "INPUT_BENCH": "(", "INPUT_CONFIG": "missing.yml",
	} {
		old := env[k]
		env[k] = v
		if _, _, err := actionConfig(newRunner(), ev); err == nil {
			t.Errorf("%s=%q: no error", k, v)
		} else if want := "input: " + strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(k, "INPUT_")), "_", "-") + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s=%q: the error %q does not name the input", k, v, err)
		}
		env[k] = old
	}
}

// TestActionUsage: arguments and bad inputs exit 2 before anything runs, with an ::error annotation
// for the input.
func TestActionUsage(t *testing.T) {
	gh := newFakeGitHub(t)
	ghEnv(t, gh, t.TempDir())
	t.Setenv("GITHUB_EVENT_PATH", "")
	if inv := invoke(t, "action", "extra"); inv.code != record.ExitUsage || !strings.Contains(inv.stderr, "no arguments") {
		t.Errorf("perfgate action extra: exit %d, stderr %q", inv.code, inv.stderr)
	}
	t.Setenv("INPUT_ROUNDS", "lots")
	inv := invoke(t, "action")
	if inv.code != record.ExitUsage || !strings.Contains(inv.stdout, "::error::perfgate: input: rounds: invalid value \"lots\"") {
		t.Errorf("INPUT_ROUNDS=lots: exit %d, stdout %q", inv.code, inv.stdout)
	}
	if _, err := os.Stat(os.Getenv("GITHUB_OUTPUT")); err == nil {
		t.Errorf("outputs were set although the inputs are invalid")
	}
}

// TestActionNoComment: a fork's pull request (read-only token), a push and the input comment: false
// make no API call at all, and a comparison that stops early still writes its report and exits with
// its code: the package does not exist on either side, a configuration error found while running
// (exit 2), so each run stops early.
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
			gh.SetPull(5, head)
			dir := ghEnv(t, gh, repo.Dir)
			setFixtureInputs(t)
			t.Setenv("INPUT_PACKAGE", "./nope")
			t.Setenv("GITHUB_EVENT_NAME", tc.event)
			tc.setup(dir)
			inv := invoke(t, "action")
			res := resultOf(t, filepath.Join(repo.Dir, "perfgate-results"))
			if inv.code != record.ExitUsage || res.Verdict.Status != record.StatusError || res.Head.Commit != head {
				t.Errorf("exit %d, verdict %s, head %s; want 2, error, %s", inv.code, res.Verdict.Status, res.Head.Commit, head)
			}
			if out := readOutputs(t, filepath.Join(dir, "output")); out["verdict"] != string(record.StatusError) {
				t.Errorf("output verdict = %q, want error", out["verdict"])
			}
			if !strings.Contains(readFile(t, filepath.Join(dir, "summary.md")), mdreport.Marker) {
				t.Errorf("the job summary lacks the report")
			}
			if !strings.Contains(inv.stderr, tc.want) {
				t.Errorf("stderr does not say %q", tc.want)
			}
			if len(gh.Requests()) != 0 {
				t.Errorf("GitHub was called: %v", gh.Requests())
			}
		})
	}
}

// TestActionConfigFilePrecedence runs the action on the fixture with a .perfgate.yml in the
// workspace (and policy-from head, so that the workspace's file sets the policy keys too) and
// inputs the workflow leaves out, so that they take action.yml's defaults: the file's bench filter
// and threshold apply, an input that is set (rounds) wins over the file, and a key neither sets
// keeps its default.
func TestActionConfigFilePrecedence(t *testing.T) {
	testenv.Long(t) // runs a comparison
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 9
	base, head := repo.Commits["base"], repo.Commits["folded"]
	gh.SetPull(pr, head)
	file := "# the repository's gate\nbench: Encrypt/^des$\nrounds: 5\nthreshold: 50\ndifferential: false\n"
	if err := os.WriteFile(filepath.Join(repo.Dir, config.FileName), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, pr, base, head)
	// The runner gives an input the workflow leaves out its default from action.yml.
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	for name, in := range a.Inputs {
		if in.Default != nil {
			t.Setenv(inputEnv(name), *in.Default)
		}
	}
	setFixtureInputs(t) // the workflow sets package, rounds: 2, benchtime and the token
	t.Setenv("INPUT_COMMENT", "false")
	t.Setenv("INPUT_POLICY_FROM", "head") // the file in the work tree is not committed on base

	inv := invoke(t, "action")
	res, _ := checkRun(t, inv, dir, repo.Dir, pr, head)
	var names []string
	for _, b := range res.Benchmarks {
		if !slices.Contains(names, b.Name) {
			names = append(names, b.Name)
		}
	}
	if diff := cmp.Diff([]string{"Encrypt/des"}, names); diff != "" {
		t.Errorf("benchmarks: the file's bench filter did not apply (-want +got):\n%s", diff)
	}
	m := res.Method
	if m.Rounds != 2 || m.Threshold != 50 || m.Alpha != 0.05 {
		t.Errorf("method: rounds %d, threshold %v%%, alpha %v; want 2 (input), 50 (file), 0.05 (default)", m.Rounds, m.Threshold, m.Alpha)
	}
	if res.Differential.Status != record.DiffSkipped {
		t.Errorf("differential %s: the file's differential: false did not apply", res.Differential.Status)
	}
	if len(gh.Requests()) != 0 {
		t.Errorf("GitHub was called with comment: false: %v", gh.Requests())
	}
}

// TestRepoURL: the links of "why it changed" go to the repository the Action runs in, and nowhere
// odd.
func TestRepoURL(t *testing.T) {
	for _, tc := range []struct{ server, repo, want string }{
		{"", "o/r", "https://github.com/o/r"},
		{"https://ghe.example.com/", "o/r.go", "https://ghe.example.com/o/r.go"},
		{"http://github.com", "o/r", ""},
		{"https://github.com/x?y", "o/r", ""},
		{"", "o/r/extra", ""},
		{"", "", ""},
		{"", "o/r)[x](y", ""},
	} {
		env := map[string]string{"GITHUB_SERVER_URL": tc.server, "GITHUB_REPOSITORY": tc.repo}
		r := ghaction.NewRunner(func(k string) string { return env[k] }, io.Discard)
		if got := repoURL(r); got != tc.want {
			t.Errorf("repoURL(%q, %q) = %q, want %q", tc.server, tc.repo, got, tc.want)
		}
	}
}
