package workflowrun

// TestREADMEWorkflows runs the workflows of the README (and of docs/github.md and docs/sharding.md)
// under nektos/act, a real Actions runner, on the host and offline, against
// internal/testing/fakegithub. action.yml and comment/action.yml run exactly as they are in the
// repository; only the third-party actions (checkout, setup-go, upload-artifact, download-artifact,
// cache) are the stand-ins of testdata/standins.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/testing/fakegithub"
	"github.com/perfgate/perfgate/internal/testing/gittest"
)

// actVersion is the nektos/act release the test runs (from the Go module proxy).
const actVersion = "v0.2.89"

func TestMain(m *testing.M) {
	if name := os.Getenv("PERFGATE_STANDIN"); name != "" {
		runStandin(name)
	}
	code := m.Run()
	removeTempDirs()
	os.Exit(code)
}

// tempDirs are the directories the once-per-binary helpers made, removed when the tests end.
var tempDirs struct {
	sync.Mutex
	list []string
}

// tempDir makes a directory that removeTempDirs removes.
func tempDir(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err == nil {
		tempDirs.Lock()
		tempDirs.list = append(tempDirs.list, dir)
		tempDirs.Unlock()
	}
	return dir, err
}

func removeTempDirs() {
	tempDirs.Lock()
	defer tempDirs.Unlock()
	for _, dir := range tempDirs.list {
		os.RemoveAll(dir)
	}
}

// buildAct installs act into a directory of its own once per test binary.
var buildAct = sync.OnceValues(func() (string, error) {
	dir, err := tempDir("perfgate-act-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "install", "github.com/nektos/act@"+actVersion)
	cmd.Dir = dir // outside this module: its go.mod does not apply
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install github.com/nektos/act@%s: %v\n%s", actVersion, err, out)
	}
	return filepath.Join(dir, "act"), nil
})

// actionSource copies this repository's files (tracked and untracked, not ignored: what a release
// would hold, with the edits of the work tree) into a directory of their own once per test binary:
// the action act runs, as perfgate/perfgate@v1, is this snapshot, whatever happens to the work tree
// while the test runs.
var actionSource = sync.OnceValues(func() (string, error) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		return "", err
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("listing the repository's files: %w", err)
	}
	dir, err := tempDir("perfgate-action-")
	if err != nil {
		return "", err
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src, dst := filepath.Join(root, name), filepath.Join(dir, name)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			return "", err
		}
	}
	return dir, nil
})

// The fixture's pull requests: the demo history with the package moved to cipher/des (where the
// README's workflows look) and a .perfgate.yml that keeps the comparison short and its verdict
// independent of the machine's load: instruction counts (under valgrind) gate, not wall time; the
// constant-time check, which the scenarios are not about, is off (its own tests run it).
const fixtureConfig = "metric: instructions\nbench: '^(Encrypt|Decrypt)$/^des$'\nconstant-time: 'off'\n"

// fixture is the repository the checkout stand-in clones: main is base; the other commits are pull
// requests' heads.
type fixture struct {
	dir                  string
	base, folded, slower string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{dir: repo.Dir}
	for _, c := range []struct {
		name string
		sha  *string
	}{{"base", &f.base}, {"folded", &f.folded}, {"slower", &f.slower}} {
		run(t, f.dir, "git", "checkout", "-q", "--detach", repo.Commits[c.name])
		run(t, f.dir, "mkdir", "-p", "cipher")
		run(t, f.dir, "git", "mv", "minides", "cipher/des")
		if err := os.WriteFile(filepath.Join(f.dir, ".perfgate.yml"), []byte(fixtureConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, f.dir, "git", "add", ".perfgate.yml")
		run(t, f.dir, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", c.name)
		*c.sha = strings.TrimSpace(run(t, f.dir, "git", "rev-parse", "HEAD"))
		run(t, f.dir, "git", "branch", "-f", "pr/"+c.name) // reachable, so that a clone has it
	}
	run(t, f.dir, "git", "checkout", "-q", "-B", "main", f.base)
	return f
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if name == "git" {
		cmd.Env = gittest.Environ(t)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// readmeWorkflows returns the workflows of the README and the docs, by their first line's comment
// ("# .github/workflows/perfgate.yml — …").
func readmeWorkflows(t *testing.T) map[string]string {
	t.Helper()
	blocks := map[string]string{}
	re := regexp.MustCompile("(?ms)^```yaml\n(# \\.github/workflows/[^\n]*)\n(.*?)^```$")
	for _, file := range []string{"README.md", "docs/github.md", "docs/sharding.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			blocks[m[1]] = m[2]
		}
	}
	return blocks
}

// workflow returns the README's workflow whose comment line starts with prefix.
func workflow(t *testing.T, blocks map[string]string, prefix string) string {
	t.Helper()
	var found []string
	for line, body := range blocks {
		if strings.HasPrefix(line, prefix) {
			found = append(found, body)
		}
	}
	if len(found) != 1 {
		t.Fatalf("the README has %d workflows starting %q, want 1 (have %d)", len(found), prefix, len(blocks))
	}
	return found[0]
}

// runner is one simulated repository on GitHub: the fixture, the fake API, act's artifact storage
// and the cache stand-in's storage, shared by the workflow runs of a scenario.
type runner struct {
	t         *testing.T
	act       string
	fix       fixture
	gh        *fakegithub.Server
	artifacts string
	cache     string
	port      string
	home      string
	gocache   string
}

func newRunner(t *testing.T, fix fixture) *runner {
	t.Helper()
	act, err := buildAct()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return &runner{
		t: t, act: act, fix: fix, gh: fakegithub.New(t), port: port,
		artifacts: t.TempDir(), cache: t.TempDir(), home: t.TempDir(), gocache: goEnv(t, "GOCACHE"),
	}
}

// result is what one act invocation did.
type result struct {
	ok  bool
	log string
}

// run runs workflow (the YAML text) for event (its name and payload) as run id, and returns act's
// outcome.
func (r *runner) run(workflow, event string, payload map[string]any, id int) result {
	t := r.t
	t.Helper()
	dir := t.TempDir()
	wf := filepath.Join(dir, "workflow.yml")
	if err := os.WriteFile(wf, []byte(workflow), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := filepath.Join(dir, "event.json")
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ev, data, 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := actionSource()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	standins, err := filepath.Abs(filepath.Join("testdata", "standins"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{event, "-W", wf, "-e", ev, "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode",
		"--no-skip-checkout", "--artifact-server-path", r.artifacts, "--artifact-server-addr", "127.0.0.1",
		"--artifact-server-port", r.port, "-s", "GITHUB_TOKEN=" + fakegithub.Token,
		"--local-repository", "perfgate/perfgate@v1=" + root}
	for action, standin := range map[string]string{
		"actions/checkout@v4": "checkout", "actions/setup-go@v5": "setup-go", "actions/cache@v4": "cache",
		"actions/upload-artifact@v4": "upload-artifact", "actions/download-artifact@v4": "download-artifact",
	} {
		args = append(args, "--local-repository", action+"="+filepath.Join(standins, standin))
	}
	for k, v := range map[string]string{
		"GITHUB_API_URL": r.gh.URL, "GITHUB_REPOSITORY": fakegithub.Owner + "/" + fakegithub.Repo,
		"GITHUB_REPOSITORY_OWNER": fakegithub.Owner, "GITHUB_RUN_ID": fmt.Sprint(id),
		"STANDIN_BIN": self, "STANDIN_REPO": r.fix.dir, "STANDIN_CACHE": r.cache,
	} {
		args = append(args, "--env", k+"="+v)
	}
	// act reads the repository it runs in, though the workflow does not use it
	run(t, dir, "git", "init", "-q")
	cmd := exec.Command(r.act, args...)
	cmd.Dir = dir
	// act keeps its workspaces, action copies and tool cache under XDG_CACHE_HOME: one per
	// scenario. The go command's build cache would move with it, so it is pinned to the test's own.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+r.home, "GOCACHE="+r.gocache)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	t.Logf("act %s (%s, run %d): %v in %s", event, firstLine(workflow), id, err, time.Since(start).Round(time.Second))
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return result{ok: err == nil, log: out.String()}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	return strings.TrimSpace(run(t, ".", "go", "env", name))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
