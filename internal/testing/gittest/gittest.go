// Package gittest isolates the git command line in tests. Git then reads no system, global or user
// configuration, and commits with a fixed identity. Every test that runs git takes its environment
// from here: a package whose code runs git calls Main from its TestMain, and a test that starts git
// itself passes Env or Environ to the command, or calls Git. Init and CommitAll make the small
// histories tests build on.
package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Name and Email are the identity of every commit a test makes.
const (
	Name  = "Ada"
	Email = "ada@example.com"
)

// Env returns the variables that isolate git in home, in os.Environ form. HOME and XDG_CONFIG_HOME
// point into home, the system configuration is off, the global one is home/gitconfig, and the
// author and committer are Name and Email.
func Env(home string) []string {
	return []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"GIT_AUTHOR_NAME=" + Name, "GIT_AUTHOR_EMAIL=" + Email,
		"GIT_COMMITTER_NAME=" + Name, "GIT_COMMITTER_EMAIL=" + Email,
	}
}

// TestEnv returns Env of a new temporary directory of t.
func TestEnv(t testing.TB) []string {
	t.Helper()
	return Env(t.TempDir())
}

// Environ returns the process's environment with TestEnv(t) in place of the variables it sets.
// Other GIT_ variables are dropped, so a test run from a git hook does not reach the outer
// repository. It suits an exec.Cmd's Env.
func Environ(t testing.TB) []string {
	t.Helper()
	env := TestEnv(t)
	out := make([]string, 0, len(os.Environ())+len(env))
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || name == "HOME" || name == "XDG_CONFIG_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, env...)
}

// Date returns the author and committer dates of the tick-th commit, one minute apart, so that the
// same commits give the same SHAs and date order is commit order (for up to 60 commits).
func Date(tick int) []string {
	date := fmt.Sprintf("2026-01-01T00:%02d:00Z", tick%60)
	return []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}
}

// Main runs a package's tests with git isolated in the whole process: it drops the GIT_ variables,
// sets Env of a new home directory, runs m, removes the directory and exits with m's code. Call it
// from TestMain.
func Main(m *testing.M) {
	home, err := os.MkdirTemp("", "gittest-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gittest:", err)
		os.Exit(1)
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "GIT_") {
			os.Unsetenv(name)
		}
	}
	for _, kv := range Env(home) {
		name, value, _ := strings.Cut(kv, "=")
		os.Setenv(name, value)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// Git runs git args in dir under Environ(t) and extra (KEY=VALUE entries) and returns its trimmed
// standard output. A failure ends the test, with git's standard error.
func Git(t testing.TB, dir string, extra []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(Environ(t), extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// Init makes an empty repository in dir, with main as its branch.
func Init(t testing.TB, dir string) {
	t.Helper()
	Git(t, dir, nil, "-c", "init.defaultBranch=main", "init", "-q")
}

// CommitAll stages everything in dir's work tree (new, changed and deleted files) and commits it
// with message, authored and committed at when, and returns the commit's SHA.
func CommitAll(t testing.TB, dir, message string, when time.Time) string {
	t.Helper()
	Git(t, dir, nil, "add", "-A")
	date := when.Format(time.RFC3339)
	Git(t, dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q",
		"--allow-empty", "-m", message)
	return Git(t, dir, nil, "rev-parse", "HEAD")
}
