package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The test binary doubles as the child process: with PROC_TEST_CHILD set it acts instead of running
// tests.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		os.Exit(0)
	case "joinpgid":
		// Join the process group named by JOIN_PGID (the test's own), say so in JOIN_FILE, and
		// stay.
		pgid, _ := strconv.Atoi(os.Getenv("JOIN_PGID"))
		if err := syscall.Setpgid(0, pgid); err != nil {
			fmt.Fprintln(os.Stderr, "setpgid:", err)
			os.Exit(2)
		}
		os.WriteFile(os.Getenv("JOIN_FILE"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
		for {
			time.Sleep(50 * time.Millisecond)
		}
	case "fail":
		for i := 1; i <= 50; i++ {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		os.Exit(3)
	}
	os.Exit(99)
}

func TestScrubEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/root", "GITHUB_TOKEN=ghs_x", "github_token=lower", "GH_TOKEN=y",
		"INPUT_GITHUB-TOKEN=z", "INPUT_ROUNDS=5", "ACTIONS_RUNTIME_TOKEN=a", "ACTIONS_ID_TOKEN_REQUEST_URL=u",
		"NPM_TOKEN=n", "AWS_SECRET_ACCESS_KEY=k", "GITHUB_SHA=abc", "GOFLAGS=-trimpath", "EMPTY=",
		"GITHUB_ENV=/r/set_env", "GITHUB_PATH=/r/add_path", "GITHUB_OUTPUT=/r/out", "GITHUB_STATE=/r/state",
		"GITHUB_STEP_SUMMARY=/r/summary", "github_env=lower",
	}
	want := []string{"PATH=/usr/bin", "HOME=/root", "GITHUB_SHA=abc", "GOFLAGS=-trimpath", "EMPTY="}
	if diff := cmp.Diff(want, ScrubEnv(in)); diff != "" {
		t.Errorf("ScrubEnv mismatch (-want +got):\n%s", diff)
	}
}

// TestChildEnvironmentIsScrubbed runs a real child process that prints its environment and checks
// that the tokens of a GitHub Actions runner are absent while ordinary variables, and explicit
// extras, arrive.
func TestChildEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_secret")
	t.Setenv("INPUT_GITHUB-TOKEN", "ghs_secret2")
	t.Setenv("ACTIONS_RUNTIME_TOKEN", "runtime")
	t.Setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidc")
	t.Setenv("PERFGATE_ORDINARY", "kept")
	cmd := Command(context.Background(), t.TempDir(), []string{"PROC_TEST_CHILD=env", "GH_TOKEN=smuggled"}, os.Args[0])
	out, _, err := Run(cmd)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	for _, k := range []string{"GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GH_TOKEN"} {
		if v, ok := got[k]; ok {
			t.Errorf("child saw %s=%q", k, v)
		}
	}
	if got["PERFGATE_ORDINARY"] != "kept" {
		t.Errorf("PERFGATE_ORDINARY = %q, want kept", got["PERFGATE_ORDINARY"])
	}
	if got["GOTOOLCHAIN"] != "local" {
		t.Errorf("GOTOOLCHAIN = %q, want local: a go.mod line must not download a toolchain", got["GOTOOLCHAIN"])
	}
	if got["PROC_TEST_CHILD"] != "env" {
		t.Errorf("extra variable did not arrive: PROC_TEST_CHILD = %q", got["PROC_TEST_CHILD"])
	}
}

func TestErrorCarriesArgvStatusAndTail(t *testing.T) {
	cmd := Command(context.Background(), "", []string{"PROC_TEST_CHILD=fail"}, os.Args[0], "-some-flag")
	_, stderr, err := Run(cmd)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Run error = %v (%T), want *Error", err, err)
	}
	if pe.ExitCode != 3 {
		t.Errorf("ExitCode = %d, want 3", pe.ExitCode)
	}
	if !strings.Contains(string(stderr), "line 1\n") {
		t.Errorf("whole stderr not returned: %q", stderr)
	}
	msg := pe.Error()
	for _, want := range []string{os.Args[0] + " -some-flag", "exit status 3", "line 50", "line 21"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "line 20\n") {
		t.Errorf("error message keeps more than %d lines:\n%s", TailLines, msg)
	}
}

func TestCancelKillsProcessGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix notion")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	pidFile := t.TempDir() + "/grandchild.pid"
	ctx, cancel := context.WithCancel(context.Background())
	// The shell starts a grandchild that would outlive a plain kill of the shell.
	cmd := Command(ctx, "", nil, "sh", "-c", "sleep 300 & echo $! > "+pidFile+"; wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for i := 0; i < 200; i++ {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			fmt.Sscan(string(b), &pid)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("grandchild did not start")
	}
	cancel()
	if err := cmd.Wait(); err == nil {
		t.Fatal("cancelled child exited cleanly")
	}
	for i := 0; i < 200; i++ {
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("grandchild %d survived the cancellation", pid)
}

func TestTail(t *testing.T) {
	if got := Tail([]byte("a\nb\nc\n"), 2); got != "…\nb\nc" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail([]byte("a\nb\n"), 2); got != "a\nb" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail(nil, 2); got != "" {
		t.Errorf("Tail(nil) = %q", got)
	}
}

// TestRunLimitKillsAFloodingChild: a child that prints without end is killed once it passes the
// limit, and the error says so; what it printed up to the limit is kept.
func TestRunLimitKillsAFloodingChild(t *testing.T) {
	if _, err := exec.LookPath("yes"); err != nil {
		t.Skip("no yes command")
	}
	cmd := Command(context.Background(), "", nil, "yes", "flood")
	out, _, err := RunLimit(cmd, 1<<20)
	if !errors.Is(err, ErrOutputLimit) {
		t.Fatalf("RunLimit error = %v, want ErrOutputLimit", err)
	}
	if len(out) != 1<<20 || !strings.HasPrefix(string(out), "flood\n") {
		t.Errorf("kept %d bytes starting %q, want the first 1 MiB", len(out), out[:min(len(out), 12)])
	}
}

func TestBuildLimit(t *testing.T) {
	for _, tc := range []struct{ timeout, want time.Duration }{
		{0, MaxLimit}, {time.Second, MinBuildLimit}, {2 * time.Minute, 20 * time.Minute}, {24 * time.Hour, MaxLimit},
	} {
		if got := BuildLimit(tc.timeout); got != tc.want {
			t.Errorf("BuildLimit(%v) = %v, want %v", tc.timeout, got, tc.want)
		}
	}
}
