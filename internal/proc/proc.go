// Package proc starts the child processes perfgate runs on code it does not trust: go build, go
// list, go env, test binaries and differential harnesses built from a pull request's head.
//
// Every child gets a scrubbed environment (ScrubEnv: no GitHub tokens, no Action inputs, no runner
// tokens, not the paths of the runner's step files) with GOTOOLCHAIN=local, runs in its own process
// group so that cancelling the context or a timeout kills the child and everything it started, and
// a failure comes back as an *Error carrying the argv, the exit status and the last lines of the
// child's stderr.
//
// # Limits
//
// Every child has a hard wall-clock limit: its context's deadline, set by the caller from the
// configuration's timeout (key "timeout", default 2m), and never more than MaxLimit. perfgate uses:
//
//	test binary: a benchmark run, the package's tests, -test.list   timeout
//	calibration of one top-level benchmark (all its sub-benchmarks) CalibrationFactor × timeout
//	differential harness run                                        timeout
//	go build, go test -c, go list (and go/packages' go list)        BuildLimit(timeout):
//	                                                                BuildFactor × timeout, ≥ 10m
//	go env                                                          ToolLimit
//
// A child killed by its limit fails with an *Error whose Limit says so, carrying what it printed
// last.
//
// # Descendants
//
// On Linux the first Command makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): a
// descendant whose parent dies is re-parented to perfgate instead of to init, whichever session or
// process group it moved to (setsid, setpgid, a double fork). Wait, after the child exits and
// before its output pipes are drained, kills the child's process group and every such orphan that
// no running child owns, so nothing a benchmark started outlives its run; KillDescendants, called
// as perfgate exits, kills whatever is left. This needs no privilege, so it works on a
// GitHub-hosted runner as on a laptop. Elsewhere the process-group kill is all there is.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// WaitDelay is how long a cancelled child has to exit, and its output pipes to close, before they
// are forced.
const WaitDelay = 5 * time.Second

// TailLines is how many trailing lines of stderr an *Error keeps.
const TailLines = 30

// secretNames are variables removed from every child's environment, compared case-insensitively.
var secretNames = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GITHUB_PAT",
	"PERFGATE_GITHUB_TOKEN",
}

// secretPrefixes name families of variables removed from every child's environment: the Action's
// inputs (one of which is the token) and the runner's own tokens (ACTIONS_RUNTIME_TOKEN,
// ACTIONS_ID_TOKEN_REQUEST_TOKEN, …).
var secretPrefixes = []string{"INPUT_", "ACTIONS_"}

// secretSuffixes catch credentials under other names (NPM_TOKEN, AWS_SECRET_ACCESS_KEY is caught by
// its middle).
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

// stepFiles name the runner's file commands: a step appends KEY=VALUE lines to these files to set
// variables, PATH entries, outputs, state and the job summary for the steps after it. A child that
// wrote to one could run code in every later step of the job (BASH_ENV=…), so no child learns where
// they are.
var stepFiles = []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"}

// IsStepFile reports whether the environment variable name is one of the runner's file commands.
func IsStepFile(name string) bool {
	for _, s := range stepFiles {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}

// ScrubEnv returns a copy of env (in os.Environ form) without the variables IsSecret and IsStepFile
// name.
func ScrubEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsSecret(name) || IsStepFile(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Limits of children (see the package documentation).
const (
	// MaxLimit bounds every child, whatever its context says.
	MaxLimit = 6 * time.Hour
	// BuildFactor × the configured timeout, and at least MinBuildLimit, bounds one go build, go
	// test -c or go list.
	BuildFactor   = 10
	MinBuildLimit = 10 * time.Minute
	// CalibrationFactor × the configured timeout bounds the calibration run of one top-level
	// benchmark.
	CalibrationFactor = 5
	// ToolLimit bounds a quick go command that builds nothing, such as go env.
	ToolLimit = time.Minute
)

// BuildLimit is the wall-clock limit of one go build, go test -c or go list for the configured
// timeout: BuildFactor × timeout, at least MinBuildLimit (a cold build cache takes minutes whatever
// the benchmarks' timeout), MaxLimit when the timeout is not set.
func BuildLimit(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return MaxLimit
	}
	return min(max(BuildFactor*timeout, MinBuildLimit), MaxLimit)
}

// Command returns a command for argv that runs in dir with the scrubbed environment of this
// process, GOTOOLCHAIN=local, and extra (KEY=VALUE entries, which win over inherited ones; secrets
// in extra are removed too). The child runs in its own process group; when ctx is done, or MaxLimit
// has passed, the whole group is killed. Start it with Start or Run, and wait for it with Wait, so
// that its descendants die with it.
func Command(ctx context.Context, dir string, extra []string, argv ...string) *exec.Cmd {
	if len(argv) == 0 {
		panic("proc: Command with empty argv")
	}
	subreaperOnce.Do(becomeSubreaper)
	var cancel context.CancelFunc
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > MaxLimit {
		ctx, cancel = context.WithTimeout(ctx, MaxLimit)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = ScrubEnv(mergeEnv(os.Environ(), append([]string{"GOTOOLCHAIN=local"}, extra...)))
	setProcessGroup(cmd)
	t := &tracked{cancel: cancel}
	if d, ok := ctx.Deadline(); ok {
		t.limit = time.Until(d).Round(time.Millisecond)
	}
	cmd.Cancel = func() error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.hit.Store(true)
		}
		return killGroup(cmd)
	}
	cmd.WaitDelay = WaitDelay
	track(cmd, t)
	return cmd
}

// tracked is what proc remembers about a command between Command and Wait.
type tracked struct {
	cancel context.CancelFunc // releases the MaxLimit context, if Command made one
	limit  time.Duration      // the wall-clock limit when the command was made
	hit    atomic.Bool        // the limit killed it
	pid    int                // set by Start
}

var (
	// held while starting a child and while sweeping, so a sweep never sees a child half-started
	mu       sync.Mutex
	commands = map[*exec.Cmd]*tracked{}
	// pids of started, not yet waited children: their process groups are theirs
	running = map[int]bool{}
)

func track(cmd *exec.Cmd, t *tracked) {
	mu.Lock()
	defer mu.Unlock()
	commands[cmd] = t
}

// Start starts cmd, which Command made, with start (nil means cmd.Start; a caller that must start
// it itself, for example pinned to a CPU, passes a function that does), and records it as running.
func Start(cmd *exec.Cmd, start func() error) error {
	if start == nil {
		start = cmd.Start
	}
	mu.Lock()
	defer mu.Unlock()
	t := commands[cmd]
	if err := start(); err != nil {
		if t != nil {
			delete(commands, cmd)
			if t.cancel != nil {
				t.cancel()
			}
		}
		return err
	}
	if t != nil {
		t.pid = cmd.Process.Pid
		running[t.pid] = true
	}
	return nil
}

// Wait waits for cmd, started with Start, to exit; then, before draining its output, it kills what
// the child left behind: its process group and every orphaned descendant (see the package
// documentation). A descendant that kept the child's standard output open would otherwise hold Wait
// for WaitDelay, and run on.
func Wait(cmd *exec.Cmd) error {
	mu.Lock()
	t := commands[cmd]
	mu.Unlock()
	if t == nil || t.pid == 0 {
		return cmd.Wait()
	}
	waitExited(t.pid)
	mu.Lock()
	killGroupOf(t.pid)
	sweep()
	mu.Unlock()
	err := cmd.Wait()
	// Only now is the child no longer running: until cmd.Wait has reaped it, a sweep by another
	// command's Wait must not take it (or a member of its group, dying from the kill above) for an
	// orphan.
	mu.Lock()
	delete(running, t.pid)
	delete(commands, cmd)
	sweep() // reaps the group's members, which died as orphans of this process
	mu.Unlock()
	if t.cancel != nil {
		t.cancel()
	}
	if err != nil && t.hit.Load() {
		return &LimitError{Limit: t.limit, Err: err}
	}
	return err
}

// LimitError is returned by Wait (and wrapped in Run's *Error) for a child that its wall-clock
// limit killed.
type LimitError struct {
	Limit time.Duration
	Err   error // what exec.Cmd.Wait returned
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("killed after its wall-clock limit of %s", e.Limit)
}

func (e *LimitError) Unwrap() error { return e.Err }

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

// MaxOutput bounds what Run keeps of a child's standard output and of its standard error: code from
// a pull request could otherwise print until memory runs out. perfgate's own children print a few
// megabytes at most.
const MaxOutput = 256 << 20

// ErrOutputLimit is wrapped by Run's error when a child printed more than its limit and was killed.
var ErrOutputLimit = errors.New("output limit exceeded")

// Run runs cmd, which must not have Stdout or Stderr set, and returns its standard output. Standard
// error is returned too, whole, so callers can keep it in a log. A failure is an *Error.
func Run(cmd *exec.Cmd) (stdout, stderr []byte, err error) {
	return RunLimit(cmd, MaxOutput)
}

// RunLimit is Run with a limit of max bytes on each of standard output and standard error. A child
// that prints more is killed, with its process group, and the error wraps ErrOutputLimit.
func RunLimit(cmd *exec.Cmd, max int) (stdout, stderr []byte, err error) {
	return RunStart(cmd, max, nil)
}

// RunStart is RunLimit with start as in Start: a caller that must start the child itself (in a
// sandbox, pinned to a CPU) passes a function that does.
func RunStart(cmd *exec.Cmd, max int, start func() error) (stdout, stderr []byte, err error) {
	out := &capped{max: max, cmd: cmd}
	errb := &capped{max: max, cmd: cmd}
	cmd.Stdout = out
	cmd.Stderr = errb
	if err = Start(cmd, start); err == nil {
		err = Wait(cmd)
	}
	if out.over || errb.over {
		err = fmt.Errorf("printed more than %d bytes: %w", max, ErrOutputLimit)
	}
	if err != nil {
		return out.Bytes(), errb.Bytes(), NewError(cmd, err, errb.Bytes())
	}
	return out.Bytes(), errb.Bytes(), nil
}

// capped keeps the first max bytes written to it and kills cmd's process group when more arrive.
// The buffer is a field, not embedded: an embedded bytes.Buffer would lend capped its ReadFrom, and
// io.Copy would bypass Write.
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
	Argv     []string      // the command line, program first
	Dir      string        // the working directory
	ExitCode int           // the exit status, -1 when killed by a signal or not started
	Signal   string        // the signal that killed it, if any ("killed", "segmentation fault", …)
	Stderr   string        // the last TailLines lines of its standard error
	Limit    time.Duration // the wall-clock limit that killed it, 0 when none did
	// the underlying error from os/exec, or the context's error when cancelled
	Err error
}

// NewError describes the failure err of cmd, keeping the tail of its stderr.
func NewError(cmd *exec.Cmd, err error, stderr []byte) *Error {
	e := &Error{Argv: cmd.Args, Dir: cmd.Dir, ExitCode: -1, Stderr: Tail(stderr, TailLines), Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		e.ExitCode = ee.ExitCode()
		e.Signal = signalOf(ee)
	}
	var le *LimitError
	if errors.As(err, &le) {
		e.Limit = le.Limit
	}
	return e
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(strings.Join(e.Argv, " "))
	b.WriteString(": ")
	switch {
	case e.Limit > 0:
		fmt.Fprintf(&b, "killed after its wall-clock limit of %s", e.Limit)
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

// Tail returns the last n lines of b, without a trailing newline, prefixed with "…" when lines were
// dropped.
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
