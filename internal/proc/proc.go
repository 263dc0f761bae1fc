// Package proc starts the child processes perfgate runs on code it does not trust: go build, test binaries and
// differential harnesses built from a pull request's head.
//
// Every child gets a scrubbed environment (ScrubEnv: no GitHub tokens, no Action inputs, no runner tokens), runs in
// its own process group so that cancelling the context or a timeout kills the child and everything it started, and
// a failure comes back as an *Error carrying the argv, the exit status and the last lines of the child's stderr.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// WaitDelay is how long a cancelled child has to exit, and its output pipes to close, before they are forced.
const WaitDelay = 5 * time.Second

// TailLines is how many trailing lines of stderr an *Error keeps.
const TailLines = 30

// secretNames are variables removed from every child's environment, compared case-insensitively.
var secretNames = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GITHUB_PAT",
	"PERFGATE_GITHUB_TOKEN",
}

// secretPrefixes name families of variables removed from every child's environment: the Action's inputs (one of
// which is the token) and the runner's own tokens (ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN, …).
var secretPrefixes = []string{"INPUT_", "ACTIONS_"}

// secretSuffixes catch credentials under other names (NPM_TOKEN, AWS_SECRET_ACCESS_KEY is caught by its middle).
var secretSuffixes = []string{"_TOKEN", "_SECRET", "_PASSWORD", "_SECRET_ACCESS_KEY", "_PRIVATE_KEY"}

// IsSecret reports whether the environment variable name must not reach a child process.
func IsSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range secretNames {
		if up == s {
			return true
		}
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
}

// ScrubEnv returns a copy of env (in os.Environ form) without the variables IsSecret names.
func ScrubEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsSecret(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Command returns a command for argv that runs in dir with the scrubbed environment of this process plus extra
// (KEY=VALUE entries, which win over inherited ones; secrets in extra are removed too). The child runs in its own
// process group; when ctx is done the whole group is killed.
func Command(ctx context.Context, dir string, extra []string, argv ...string) *exec.Cmd {
	if len(argv) == 0 {
		panic("proc: Command with empty argv")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = ScrubEnv(mergeEnv(os.Environ(), extra))
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = WaitDelay
	return cmd
}

// mergeEnv appends extra to base, dropping base entries that extra overrides.
func mergeEnv(base, extra []string) []string {
	if len(extra) == 0 {
		return base
	}
	override := make(map[string]bool, len(extra))
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		override[name] = true
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !override[name] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// MaxOutput bounds what Run keeps of a child's standard output and of its standard error: code from a pull
// request could otherwise print until memory runs out. perfgate's own children print a few megabytes at most.
const MaxOutput = 256 << 20

// ErrOutputLimit is wrapped by Run's error when a child printed more than its limit and was killed.
var ErrOutputLimit = errors.New("output limit exceeded")

// Run runs cmd, which must not have Stdout or Stderr set, and returns its standard output. Standard error is
// returned too, whole, so callers can keep it in a log. A failure is an *Error.
func Run(cmd *exec.Cmd) (stdout, stderr []byte, err error) {
	return RunLimit(cmd, MaxOutput)
}

// RunLimit is Run with a limit of max bytes on each of standard output and standard error. A child that prints
// more is killed, with its process group, and the error wraps ErrOutputLimit.
func RunLimit(cmd *exec.Cmd, max int) (stdout, stderr []byte, err error) {
	out := &capped{max: max, cmd: cmd}
	errb := &capped{max: max, cmd: cmd}
	cmd.Stdout = out
	cmd.Stderr = errb
	err = cmd.Run()
	if out.over || errb.over {
		err = fmt.Errorf("printed more than %d bytes: %w", max, ErrOutputLimit)
	}
	if err != nil {
		return out.Bytes(), errb.Bytes(), NewError(cmd, err, errb.Bytes())
	}
	return out.Bytes(), errb.Bytes(), nil
}

// capped keeps the first max bytes written to it and kills cmd's process group when more arrive. The buffer is a
// field, not embedded: an embedded bytes.Buffer would lend capped its ReadFrom, and io.Copy would bypass Write.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
	cmd  *exec.Cmd
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over {
		return len(p), nil
	}
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:room])
		c.over = true
		killGroup(c.cmd)
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Bytes returns what was kept.
func (c *capped) Bytes() []byte { return c.buf.Bytes() }

// Error is a child process that failed to start, exited non-zero or was killed.
type Error struct {
	Argv     []string // the command line, program first
	Dir      string   // the working directory
	ExitCode int      // the exit status, -1 when killed by a signal or not started
	Signal   string   // the signal that killed it, if any ("killed", "segmentation fault", …)
	Stderr   string   // the last TailLines lines of its standard error
	Err      error    // the underlying error from os/exec, or the context's error when cancelled
}

// NewError describes the failure err of cmd, keeping the tail of its stderr.
func NewError(cmd *exec.Cmd, err error, stderr []byte) *Error {
	e := &Error{Argv: cmd.Args, Dir: cmd.Dir, ExitCode: -1, Stderr: Tail(stderr, TailLines), Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		e.ExitCode = ee.ExitCode()
		e.Signal = signalOf(ee)
	}
	return e
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(strings.Join(e.Argv, " "))
	b.WriteString(": ")
	switch {
	case e.Signal != "":
		fmt.Fprintf(&b, "killed by signal: %s", e.Signal)
	case e.ExitCode >= 0:
		fmt.Fprintf(&b, "exit status %d", e.ExitCode)
	default:
		b.WriteString(e.Err.Error())
	}
	if e.Stderr != "" {
		b.WriteString("\n")
		b.WriteString(e.Stderr)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Tail returns the last n lines of b, without a trailing newline, prefixed with "…" when lines were dropped.
func Tail(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return "…\n" + strings.Join(lines[len(lines)-n:], "\n")
}
