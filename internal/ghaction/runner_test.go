package ghaction

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runner returns a Runner on the environment env whose workflow commands go to the returned buffer.
func runner(env map[string]string) (*Runner, *bytes.Buffer) {
	var out bytes.Buffer
	return NewRunner(func(k string) string { return env[k] }, &out), &out
}

func TestNewRunner(t *testing.T) {
	env := map[string]string{
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": "/home/runner/work/_temp/_github_workflow/event.json",
		"GITHUB_REPOSITORY": "octo-org/hello-world", "GITHUB_API_URL": "https://api.github.com",
		"GITHUB_WORKSPACE": "/home/runner/work/hello-world/hello-world",
	}
	r, _ := runner(env)
	got := [5]string{r.EventName, r.EventPath, r.Repository, r.APIURL, r.Workspace}
	want := [5]string{env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"], env["GITHUB_REPOSITORY"], env["GITHUB_API_URL"], env["GITHUB_WORKSPACE"]}
	if got != want {
		t.Errorf("NewRunner read %q, want %q", got, want)
	}

	t.Setenv("GITHUB_REPOSITORY", "from/os-env")
	if r := NewRunner(nil, nil); r.Repository != "from/os-env" || r.Action == nil {
		t.Errorf("NewRunner(nil, nil): Repository %q, want the process environment's", r.Repository)
	}
}

func TestInput(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		name string
		want string
	}{
		// composite action: env: INPUT_GITHUB_TOKEN
		{map[string]string{"INPUT_GITHUB_TOKEN": "ghs_a"}, "github-token", "ghs_a"},
		// the runner's own form keeps the dash
		{map[string]string{"INPUT_GITHUB-TOKEN": "ghs_b"}, "github-token", "ghs_b"},
		{map[string]string{"INPUT_GITHUB_TOKEN": "ghs_a", "INPUT_GITHUB-TOKEN": "ghs_b"}, "github-token", "ghs_a"},
		{map[string]string{"INPUT_GITHUB_TOKEN": "", "INPUT_GITHUB-TOKEN": "ghs_b"}, "github-token", "ghs_b"},
		{map[string]string{"INPUT_BENCH": "  BenchmarkEncrypt$ \n"}, "bench", "BenchmarkEncrypt$"},
		{map[string]string{"INPUT_ACKNOWLEDGE_LABEL": "perf-ack"}, "Acknowledge-Label", "perf-ack"},
		{map[string]string{"INPUT_FAIL_ON": "size"}, "fail on", "size"},
		{map[string]string{"GITHUB_TOKEN": "ghs_c"}, "github-token", ""},
		{nil, "package", ""},
	} {
		r, _ := runner(tc.env)
		if got := r.Input(tc.name); got != tc.want {
			t.Errorf("Input(%q) with %v = %q, want %q", tc.name, tc.env, got, tc.want)
		}
	}
}

func TestOwner(t *testing.T) {
	r, _ := runner(map[string]string{"GITHUB_REPOSITORY": "octo-org/hello-world"})
	if o, n, err := r.Owner(); o != "octo-org" || n != "hello-world" || err != nil {
		t.Errorf("Owner() = %q, %q, %v", o, n, err)
	}
	for _, repo := range []string{"", "hello-world", "/hello-world", "octo-org/", "a/b/c"} {
		r, _ := runner(map[string]string{"GITHUB_REPOSITORY": repo})
		if _, _, err := r.Owner(); err == nil || !strings.Contains(err.Error(), "GITHUB_REPOSITORY") {
			t.Errorf("Owner() of %q: %v, want an error naming GITHUB_REPOSITORY", repo, err)
		}
	}
}

var delimRE = regexp.MustCompile(`^ghadelimiter_[0-9a-f]{32}$`)

// parseOutputFile reads a GITHUB_OUTPUT file the way the runner does (actions/runner's
// SetOutputFileCommand): name=value, or name<<delimiter, the value's lines, and the delimiter alone
// on a line. It checks each heredoc's delimiter against the format SetOutput uses.
func parseOutputFile(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(data, "\n")
	if lines[len(lines)-1] != "" {
		t.Errorf("the output file does not end with a newline: %q", data)
	}
	lines = lines[:len(lines)-1]
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok || strings.Contains(name, "=") {
			name, value, ok := strings.Cut(lines[i], "=")
			if !ok {
				t.Fatalf("line %d of the output file is neither name=value nor name<<delimiter: %q", i+1, lines[i])
			}
			out[name] = value
			continue
		}
		if !delimRE.MatchString(delim) {
			t.Errorf("output %s: delimiter %q, want ghadelimiter_ and 32 hex digits", name, delim)
		}
		var value []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			value = append(value, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("output %s: delimiter %q never closes", name, delim)
		}
		out[name] = strings.Join(value, "\n")
	}
	return out
}

func TestSetOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	r, stdout := runner(map[string]string{"GITHUB_OUTPUT": path})
	// A value from the pull request that tries to end its heredoc and set an output of its own,
	// with both the delimiter go-githubactions v1.3.1 uses and one in SetOutput's format.
	hostile := "x\n_GitHubActionsFileCommandDelimeter_\nverdict=pass\nghadelimiter_00000000000000000000000000000000\nverdict<<EOF\npass\nEOF"
	want := map[string]string{
		"verdict":     "fail",
		"report":      "/tmp/perfgate-results/report.md",
		"multi-line":  "line 1\n\nline 3",
		"empty":       "",
		"benchmark":   hostile,
		"comment-url": "https://github.com/octo-org/hello-world/pull/42#issuecomment-1",
	}
	for _, k := range []string{"verdict", "report", "multi-line", "empty", "benchmark", "comment-url"} {
		r.SetOutput(k, want[k])
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, parseOutputFile(t, string(data))); diff != "" {
		t.Errorf("outputs read back (-want +got):\n%s\nfile:\n%s", diff, data)
	}
	// Every value gets its own delimiter.
	delims := regexp.MustCompile(`(?m)^[a-z-]+<<(ghadelimiter_[0-9a-f]{32})$`).FindAllStringSubmatch(string(data), -1)
	seen := map[string]bool{}
	for _, d := range delims {
		seen[d[1]] = true
	}
	if len(delims) != len(want) || len(seen) != len(want) {
		t.Errorf("%d heredocs with %d distinct delimiters, want %d of each", len(delims), len(seen), len(want))
	}
	if stdout.Len() != 0 {
		t.Errorf("SetOutput wrote to stdout: %q", stdout)
	}
}

func TestSetOutputRejects(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "output")
	r, stdout := runner(map[string]string{"GITHUB_OUTPUT": path})
	for _, name := range []string{"", "a=b", "a\nb", "a\rb", "a<<b"} {
		stdout.Reset()
		r.SetOutput(name, "v")
		if !strings.HasPrefix(stdout.String(), "::warning::perfgate: could not set the output") || strings.Count(stdout.String(), "\n") != 1 {
			t.Errorf("SetOutput(%q): stdout %q, want one warning", name, stdout)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the output file exists after only invalid names: %v", err)
	}

	r, stdout = runner(map[string]string{"GITHUB_OUTPUT": filepath.Join(dir, "missing", "output")})
	r.SetOutput("verdict", "pass")
	if !strings.HasPrefix(stdout.String(), "::warning::perfgate: could not set the output verdict") {
		t.Errorf("SetOutput to an unwritable file: stdout %q, want a warning", stdout)
	}
}

func TestAddStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary")
	r, stdout := runner(map[string]string{"GITHUB_STEP_SUMMARY": path})
	r.AddStepSummary("## perfgate\n\n| a | b |\n|---|---|")
	r.AddStepSummary("second")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "## perfgate\n\n| a | b |\n|---|---|\nsecond\n"; string(data) != want {
		t.Errorf("summary %q, want %q", data, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("AddStepSummary wrote to stdout: %q", stdout)
	}

	r, stdout = runner(map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(t.TempDir(), "missing", "summary")})
	r.AddStepSummary("x")
	if !strings.HasPrefix(stdout.String(), "::warning::perfgate: could not write the job summary") {
		t.Errorf("AddStepSummary to an unwritable file: stdout %q, want a warning", stdout)
	}
}

// Outside a runner GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are unset: go-githubactions v1.3.1 panics
// there, Runner does nothing.
func TestOutsideRunner(t *testing.T) {
	r, stdout := runner(nil)
	r.SetOutput("verdict", "pass")
	r.AddStepSummary("## perfgate")
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	ev, err := r.Event()
	if err != nil || ev.Name != "" || ev.PR != 0 {
		t.Errorf("Event() = %+v, %v; want an empty event", ev, err)
	}
}

func TestWorkflowCommands(t *testing.T) {
	r, stdout := runner(nil)
	// A benchmark name from the pull request that tries to start workflow commands of its own.
	hostile := "BenchmarkX\n::set-output name=verdict::pass\r\n::add-mask::x%0A::error::y"
	r.Errorf("perfgate: %s failed", hostile)
	want := "::error::perfgate: BenchmarkX%0A::set-output name=verdict::pass%0D%0A::add-mask::x%250A::error::y failed\n"
	if got := stdout.String(); got != want {
		t.Errorf("Errorf wrote %q, want %q", got, want)
	}
	stdout.Reset()
	r.Errorf("perfgate: %s failed", "x ##[add-mask]ghs")
	if got, want := stdout.String(), "::error::perfgate: x ##\\[add-mask]ghs failed\n"; got != want {
		t.Errorf("Errorf wrote %q, want %q", got, want)
	}
	stdout.Reset()
	r.Errorf("perfgate: %s failed", hostile)
	if n := commandLines(stdout.String()); n != 1 {
		t.Errorf("Errorf wrote %d lines starting with ::, want 1:\n%s", n, stdout)
	}

	stdout.Reset()
	r.Warningf("slower: %s", hostile)
	r.Group("perfgate: compare main → " + hostile)
	r.EndGroup()
	if n := commandLines(stdout.String()); n != 3 || strings.Count(stdout.String(), "\n") != 3 {
		t.Errorf("Warningf, Group, EndGroup wrote %d command lines, want 3:\n%s", n, stdout)
	}
	for _, prefix := range []string{"::warning::slower: BenchmarkX%0A", "::group::perfgate: compare main → BenchmarkX%0A", "::endgroup::"} {
		if !strings.Contains(stdout.String(), "\n"+prefix) && !strings.HasPrefix(stdout.String(), prefix) {
			t.Errorf("no line starts with %q:\n%s", prefix, stdout)
		}
	}
}

// commandLines counts the lines of s that the runner would read as workflow commands.
func commandLines(s string) int {
	n := 0
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			n++
		}
	}
	return n
}

func TestRunnerEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	payload := `{"before": "` + baseSHA + `", "after": "` + headSHA + `"}`
	if err := os.WriteFile(path, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := runner(map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": path})
	ev, err := r.Event()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Event{Name: "push", BaseSHA: baseSHA, HeadSHA: headSHA}, ev); diff != "" {
		t.Errorf("Event() (-want +got):\n%s", diff)
	}
	r, _ = runner(map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": path + ".missing"})
	if _, err := r.Event(); err == nil {
		t.Errorf("Event() of a missing payload: no error")
	}
	r, _ = runner(map[string]string{"GITHUB_EVENT_NAME": "workflow_dispatch"})
	if ev, err := r.Event(); err != nil || ev.Name != "workflow_dispatch" {
		t.Errorf("Event() without a payload = %+v, %v", ev, err)
	}
}
