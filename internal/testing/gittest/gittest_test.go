package gittest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEnviron: a commit made under Environ and Date has gittest's identity and date, and git sees
// no configuration but the repository's own.
func TestEnviron(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	env := append(Environ(t), Date(3)...)
	git := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	for _, args := range [][]string{
		{"-c", "init.defaultBranch=main", "init", "-q"},
		{"commit", "-q", "--allow-empty", "-m", "first"},
	} {
		if _, err := git(args...); err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
	}
	got, err := git("log", "-1", "--format=%an <%ae> %cn <%ce> %aI")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Ada <ada@example.com> Ada <ada@example.com> 2026-01-01T00:03:00+00:00"; got != want {
		t.Errorf("commit: got %q, want %q", got, want)
	}
	out, err := git("config", "--show-origin", "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "file:.git/config\t") {
			t.Errorf("git reads configuration outside the repository: %q", line)
		}
	}
	for _, kv := range Environ(t) {
		if strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			t.Errorf("Environ keeps %s", kv)
		}
	}
}
