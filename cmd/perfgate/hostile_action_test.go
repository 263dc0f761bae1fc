package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
	"go.yaml.in/yaml/v3"
)

// Tests that play a hostile pull request against `perfgate action`: events that would run its code
// next to a write token, and text of its own that tries to become workflow commands.

// TestActionRefusesWriteTokenEvents: on pull_request_target (and the other events whose token can
// write), perfgate action exits 2 before it reads anything from the repository, says why and points
// at the fork-safe setup.
//
// Before the event check: GITHUB_EVENT_NAME=pull_request_target perfgate action measured the pull
// request's code with the base repository's write token in the job.
func TestActionRefusesWriteTokenEvents(t *testing.T) {
	for _, event := range []string{"pull_request_target", "workflow_run", "issue_comment"} {
		t.Run(event, func(t *testing.T) {
			gh := newFakeGitHub(t)
			ws := t.TempDir()
			dir := ghEnv(t, gh, ws)
			t.Setenv("GITHUB_EVENT_NAME", event)
			writeEvent(t, dir, 3, strings.Repeat("a", 40), strings.Repeat("b", 40))
			setFixtureInputs(t)
			inv := invoke(t, "action")
			if inv.code != record.ExitUsage {
				t.Errorf("exit %d, want %d", inv.code, record.ExitUsage)
			}
			for _, want := range []string{"refuses to run on " + event, "workflow_run job with 'perfgate comment'"} {
				if !strings.Contains(inv.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, inv.stderr)
				}
			}
			if !strings.Contains(inv.stdout, "::error::") {
				t.Errorf("no ::error annotation:\n%s", inv.stdout)
			}
			if _, err := os.Stat(filepath.Join(ws, "perfgate-results")); err == nil {
				t.Errorf("a results directory was written: the comparison ran")
			}
		})
	}
}

// TestActionConfigErrorIsInert: a configuration file from the pull request whose quoted key holds a
// newline and a workflow command. The error that quotes it must reach the log inside a
// stop-commands region of the same stream.
//
// Before the event check the error was printed on stderr with no stop-commands at all, and the
// runner obeyed "::warning::injected".
func TestActionConfigErrorIsInert(t *testing.T) {
	gh := newFakeGitHub(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, config.FileName), []byte(`"x\n::add-mask::ghs\n::warning::injected": 1`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := ghEnv(t, gh, ws)
	writeEvent(t, dir, 3, strings.Repeat("a", 40), strings.Repeat("b", 40))
	setFixtureInputs(t)
	inv := invoke(t, "action")
	if inv.code != record.ExitUsage {
		t.Errorf("exit %d, want %d", inv.code, record.ExitUsage)
	}
	if !strings.Contains(inv.stderr, "::warning::injected") {
		t.Fatalf("the error does not quote the key; stderr:\n%s", inv.stderr)
	}
	checkInert(t, "stderr", inv.stderr)
}

// checkInert fails when a line of out that the runner would read as a workflow command, in either
// form ("::x::" at the start of a line, "##[x]" anywhere in it), lies outside a stop-commands
// region of out itself. perfgate's own annotations (allowed, as names them) are the exception.
func checkInert(t *testing.T, name, out string, allowed ...string) {
	t.Helper()
	stop := ""
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimLeft(l, " \t")
		switch {
		case stop != "" && l == "::"+stop+"::":
			stop = ""
		case stop != "":
		case strings.HasPrefix(l, "::stop-commands::"):
			stop = strings.TrimPrefix(l, "::stop-commands::")
		case slices.ContainsFunc(allowed, func(p string) bool { return strings.HasPrefix(l, p) }) &&
			!strings.Contains(l, "##["):
		case text.IsCommand(l):
			t.Errorf("%s: the runner would obey %q", name, l)
		}
	}
	if stop != "" {
		t.Errorf("%s: stop-commands %s is never resumed", name, stop)
	}
}

// The attacker's end-to-end test: a pull request whose benchmark walks /proc for the token and
// leaves a setsid heartbeat behind, run through perfgate the way action.yml runs it — the step's
// run: text in bash, with the env: that action.yml declares, its ${{ }} expressions evaluated for
// the step's inputs.

// attackGoMod, attackBase, attackHead and attackBench are the fixture module: a package whose head
// changes its code (so that the binaries differ and the benchmarks run), and a benchmark that
// attacks once per process.
const (
	attackGoMod = "module example.com/attack\n\ngo 1.21\n"
	attackBase  = `package att

// Sum adds the bytes of b.
func Sum(b []byte) int {
	n := 0
	for _, c := range b {
		n += int(c)
	}
	return n
}
`
	attackHead = `package att

// Sum adds the bytes of b, two at a time.
func Sum(b []byte) int {
	n, m := 0, 0
	i := 0
	for ; i+1 < len(b); i += 2 {
		n += int(b[i])
		m += int(b[i+1])
	}
	if i < len(b) {
		n += int(b[i])
	}
	return n + m
}
`
	attackBench = `package att

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var once sync.Once

func BenchmarkSum(b *testing.B) {
	once.Do(attack)
	buf := make([]byte, 64)
	for b.Loop() {
		Sum(buf)
	}
}

// ppid returns the parent of pid, or 0.
func ppid(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// attack does what a hostile pull request would: read every environment and command line it can reach, its
// ancestors' first, and leave a process behind in a session of its own that prints a heartbeat.
func attack() {
	if out := os.Getenv("ATTACK_PROC_OUT"); out != "" {
		var found strings.Builder
		fmt.Fprintf(&found, "walker %d\n", os.Getpid())
		var pids []string
		for pid := os.Getppid(); pid > 1; pid = ppid(pid) {
			fmt.Fprintf(&found, "ancestor %d\n", pid)
			pids = append(pids, strconv.Itoa(pid))
		}
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err == nil {
				pids = append(pids, e.Name())
			}
		}
		for _, pid := range pids {
			for _, f := range []string{"environ", "cmdline"} {
				data, err := os.ReadFile("/proc/" + pid + "/" + f)
				if err != nil || len(data) == 0 {
					continue
				}
				fmt.Fprintf(&found, "pid %s %s: %s\n", pid, f, strings.ReplaceAll(string(data), "\x00", " "))
			}
		}
		f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.WriteString(found.String())
			f.Close()
		}
	}
	if beats := os.Getenv("ATTACK_BEATS"); beats != "" {
		// A heartbeat in a new session, on the benchmark's own stdout (holding its pipe open) and in a file.
		cmd := exec.Command("setsid", "sh", "-c",
			"trap '' PIPE; echo $$ >> \"$1.pids\"; while :; do echo beat >> \"$1\"; echo beat; sleep 0.1; done", "sh", beats)
		cmd.Stdout = os.Stdout
		cmd.Start()
	}
}
`
)

// attackRepo writes the fixture module as a git repository with a base and a head commit and
// returns its directory and the two commits.
func attackRepo(t *testing.T) (dir, base, head string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "attack")
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := gittest.TestEnv(t)
	git := func(args ...string) string {
		t.Helper()
		out, _, err := proc.Run(proc.Command(context.Background(), dir, env, append([]string{"git"}, args...)...))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	write("go.mod", attackGoMod)
	write("att/att.go", attackBase)
	write("att/att_test.go", attackBench)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "att: Sum")
	base = git("rev-parse", "HEAD")
	write("att/att.go", attackHead)
	git("commit", "-q", "-am", "att: Sum two at a time")
	head = git("rev-parse", "HEAD")
	return dir, base, head
}

// stepOf returns the env: and run: of action.yml's perfgate step.
func stepOf(t *testing.T) (env map[string]string, run string, defaults map[string]string) {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct{ Default string }
		Runs   struct {
			Steps []struct {
				ID  string
				Run string
				Env map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	defaults = map[string]string{}
	for k, v := range a.Inputs {
		defaults[k] = v.Default
	}
	for _, s := range a.Runs.Steps {
		if s.ID == "perfgate" {
			return s.Env, s.Run, defaults
		}
	}
	t.Fatal("action.yml has no step with id perfgate")
	return nil, "", nil
}

var (
	exprRE  = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	inputRE = regexp.MustCompile(`^inputs\.([a-z-]+)$`)
	andOrRE = regexp.MustCompile(`^inputs\.([a-z-]+) == '([^']*)' && inputs\.([a-z-]+) \|\| '([^']*)'$`)
	// (inputs.a == 'x' || inputs.a == 'y' || inputs.c == 'w') && inputs.b || 'z', with two or more
	// comparisons, each read by compareRE
	eitherRE   = regexp.MustCompile(`^\((inputs\.[a-z-]+ == '[^']*'(?: \|\| inputs\.[a-z-]+ == '[^']*')+)\) && inputs\.([a-z-]+) \|\| '([^']*)'$`)
	compareRE  = regexp.MustCompile(`inputs\.([a-z-]+) == '([^']*)'`)
	runnerTemp = "runner.temp"
)

// evalStep evaluates the ${{ }} expressions action.yml uses in a step's env:, the way the runner
// does for these forms (string comparison in expressions ignores case). An expression of another
// form fails the test: extend this evaluator with it.
func evalStep(t *testing.T, v string, inputs map[string]string, temp string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(v, func(m string) string {
		e := exprRE.FindStringSubmatch(m)[1]
		if e == runnerTemp {
			return temp
		}
		if e == "steps.build.outputs.bin" {
			// the build step's output: PERFGATE_BIN, which the caller sets to this test binary
			return ""
		}
		if g := inputRE.FindStringSubmatch(e); g != nil {
			return inputs[g[1]]
		}
		if g := andOrRE.FindStringSubmatch(e); g != nil {
			if strings.EqualFold(inputs[g[1]], g[2]) && inputs[g[3]] != "" {
				return inputs[g[3]]
			}
			return g[4]
		}
		if g := eitherRE.FindStringSubmatch(e); g != nil {
			either := false
			for _, c := range compareRE.FindAllStringSubmatch(g[1], -1) {
				either = either || strings.EqualFold(inputs[c[1]], c[2])
			}
			if either && inputs[g[2]] != "" {
				return inputs[g[2]]
			}
			return g[3]
		}
		t.Fatalf("action.yml: the test cannot evaluate ${{ %s }}", e)
		return ""
	})
}

// aliveProc reports whether pid is a running (not zombie) process.
func aliveProc(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}

// TestActionAttacker plays a pull request against the Action, with comment 'false' and 'true':
//
//   - its benchmark walks /proc/*/environ and /proc/*/cmdline of every process it can read, its
//     ancestors first; the token must appear nowhere in what it found. Before the token was kept
//     from the step, action.yml gave the token to the step even with comment 'false', and the
//     step's bash stayed alive as perfgate's parent, its environment readable.
//   - its benchmark leaves a setsid heartbeat (printing to the benchmark's stdout and to a file) in
//     every process it runs in; after perfgate exits none is alive. Before the sweep they outlived
//     perfgate.
//
// Against main: git checkout main -- action.yml cmd/perfgate/action.go internal/proc && go test
// ./cmd/perfgate -run TestActionAttacker
func TestActionAttacker(t *testing.T) {
	testenv.Long(t) // runs two whole comparisons
	for _, tool := range []string{"bash", "git", "setsid"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	bin, err := exec.LookPath("perfgate") // this test binary, installed in $PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	repo, base, head := attackRepo(t)
	token := fakeToken
	envStep, run, defaults := stepOf(t)
	if !strings.HasPrefix(run, "exec ") {
		t.Logf("action.yml runs %q without exec", run)
	}
	for _, comment := range []string{"false", "true"} {
		t.Run("comment="+comment, func(t *testing.T) {
			gh := newFakeGitHub(t)
			const pr = 17
			gh.SetPull(pr, head)
			// sets GITHUB_* in this process, which the step inherits as a runner's does
			dir := ghEnv(t, gh, repo)
			writeEvent(t, dir, pr, base, head)
			inputs := map[string]string{}
			for k, v := range defaults {
				inputs[k] = v
			}
			for k, v := range map[string]string{
				"package": "./att", "rounds": "2", "benchtime": "5ms", "metric": "time", "comment": comment,
				"github-token": token,
				// Unconfined, so that the walk can write what it found where this test reads it:
				// what is tested here is what the environment and the process handling keep from
				// it. Under the sandbox (the Action's default) it could not even write the file;
				// TestTamperingHead tests that.
				"sandbox": "off",
			} {
				inputs[k] = v
			}
			walk, beats := filepath.Join(dir, "walk.txt"), filepath.Join(dir, "beats")
			temp := t.TempDir()
			var env []string // what the runner gives every step, the tokens aside
			for _, kv := range os.Environ() {
				if name, _, _ := strings.Cut(kv, "="); !proc.IsSecret(name) {
					env = append(env, kv)
				}
			}
			env = append(env, "ATTACK_PROC_OUT="+walk, "ATTACK_BEATS="+beats)
			for k, v := range envStep {
				env = append(env, k+"="+evalStep(t, v, inputs, temp))
			}
			// The step's PERFGATE_BIN is built by the step before; here it is this test binary as
			// perfgate.
			env = append(env, "PERFGATE_BIN="+bin)
			script := filepath.Join(temp, "step.sh")
			if err := os.WriteFile(script, []byte(run+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// As the runner runs a run: step: bash --noprofile --norc -eo pipefail {0}.
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir, cmd.Env = repo, env
			out, err := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			t.Logf("perfgate action: exit %d (%v)\n%s", code, err, tail(string(out), 30))
			if code != 0 && code != 1 {
				t.Fatalf("exit %d, want the verdict's 0 or 1", code)
			}

			found := readFile(t, walk)
			if !strings.Contains(found, "ancestor ") || !strings.Contains(found, "ATTACK_PROC_OUT="+walk) {
				t.Fatalf("the walk did not reach its ancestors or read an environment:\n%s", tail(found, 20))
			}
			if strings.Contains(found, token) {
				for _, l := range strings.Split(found, "\n") {
					if strings.Contains(l, token) {
						t.Errorf("the benchmark read the token: %s", clipLine(l))
					}
				}
			}
			if comment == "true" {
				if comments := gh.Comments(pr); len(mine(comments)) != 1 {
					t.Errorf("%d perfgate comments, want 1: the token did not reach perfgate", len(mine(comments)))
				}
			}

			pids := strings.Fields(readFile(t, beats+".pids"))
			if len(pids) == 0 {
				t.Fatal("the benchmark started no heartbeat")
			}
			for _, p := range pids {
				pid, _ := strconv.Atoi(p)
				if aliveProc(pid) {
					t.Errorf("heartbeat %d outlived perfgate", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

func clipLine(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
