package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHideEnvironment checks that HideEnvironment (perfgate action calls it first) leaves the
// process non-dumpable: /proc/PID/environ, which holds the token, is then readable by root only,
// not by benchmark processes running as the same user.
func TestHideEnvironment(t *testing.T) {
	if err := HideEnvironment(nil); err != nil {
		t.Fatal(err)
	}
	got, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != 0 {
		t.Errorf("PR_GET_DUMPABLE = %d after HideEnvironment, want 0", got)
	}
}

// TestBlankEnviron: a child process given SECRET_FOR_TEST blanks it in its own /proc/self/environ,
// which is what other processes of the same user could read; the other variables are left alone.
func TestBlankEnviron(t *testing.T) {
	if os.Getenv("PERFGATE_BLANK_CHILD") == "1" {
		if err := blankEnviron([]string{"SECRET_FOR_TEST"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		environ, err := os.ReadFile("/proc/self/environ")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Stdout.Write(environ)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBlankEnviron$")
	cmd.Env = []string{"PERFGATE_BLANK_CHILD=1", "SECRET_FOR_TEST=hunter2", "OTHER=hunter2x"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	env := strings.Split(string(out), "\x00")
	if !slices.Contains(env, "SECRET_FOR_TEST=*******") || !slices.Contains(env, "OTHER=hunter2x") {
		t.Errorf("child's /proc/self/environ = %q, want SECRET_FOR_TEST blanked and OTHER kept", env)
	}
}
