// Package sandbox starts the child processes that execute a repository's code — test binaries,
// benchmarks, the differential harness, valgrind running any of them — so that they cannot touch
// the evidence perfgate judges them by: the other side's tree and binaries, the build cache,
// perfgate itself, the runner's step files.
//
// A child started with (*Sandbox).Start runs with no_new_privs (sudo and setuid programs cannot
// lift it) and, on Linux with Landlock, under a ruleset that lets it write only beneath its own
// scratch directory (which holds its TMPDIR) and read and execute everywhere else. Where the
// kernel's Landlock ABI has them it also denies TCP bind and connect (ABI 4; unless the network is
// allowed), ioctl on devices (ABI 5), and scopes signals and abstract unix sockets to the child's
// own domain (ABI 6): it cannot stop, kill or connect to perfgate or a sibling. Landlock always
// forbids it to ptrace a process outside its domain. A privileged perfgate (root in a container)
// also drops the child's capability bounding set, so the child execs without capabilities.
//
// A test binary runs, as under go test, in its package directory, but in a copy of it beneath its
// scratch directory (WorkDir): it may write files there, and the tree it was built from stays
// read-only.
//
// # How
//
// Landlock and no_new_privs apply to the calling thread and what it starts. Start therefore runs on
// a goroutine locked to a fresh OS thread: it restricts that thread, starts the child from it (the
// child inherits the restriction across fork and exec), and returns without unlocking, so that the
// runtime discards the thread and perfgate itself stays unrestricted. No re-exec of perfgate is
// needed, and any test binary can use the package.
//
// # Modes
//
// ModeRequired refuses to start anything when Landlock cannot be set up (New returns an
// *UnavailableError); ModeAuto sandboxes what it can and says what it could not in the Guarantee;
// ModeOff starts children as they are, and the Guarantee says they are unguarded.
package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"

	"github.com/perfgate/perfgate/record"
)

// Mode says how much sandboxing a run demands.
type Mode string

// The modes of the configuration key "sandbox".
const (
	ModeRequired Mode = "required" // no Landlock is an error
	ModeAuto     Mode = "auto"     // sandbox what the kernel allows, say what it did not
	ModeOff      Mode = "off"      // no sandbox: children run unguarded
)

// ParseMode reads a mode as the configuration spells it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeRequired, ModeAuto, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("sandbox: unknown mode %q (want required, auto or off)", s)
}

// UnavailableError is New's error in ModeRequired when Landlock cannot be set up.
type UnavailableError struct {
	Why string
}

func (e *UnavailableError) Error() string {
	return "sandbox required but unavailable: " + e.Why
}

// Config configures a Sandbox. The zero value of every field but Scratch is ModeRequired with the
// network denied.
type Config struct {
	Mode Mode
	// AllowNetwork leaves TCP bind and connect alone, for packages whose tests need the network.
	AllowNetwork bool
	// Scratch is the directory under which Scratch makes each child's scratch directory, the only
	// place the child may write. perfgate keeps nothing else there.
	Scratch string
}

// Sandbox starts children under one guarantee. It is safe for concurrent use. A nil *Sandbox starts
// children as they are, without a scratch directory: callers that run no repository code, and
// tests, pass nil.
type Sandbox struct {
	cfg Config
	g   record.Sandbox
	pol policy // what the kernel allows, computed once

	mu sync.Mutex
	// files children read in place, not in their working directory's copy (see WorkDir)
	notCopied []string
	// by package directory, copies of it no child wrote to, for reuse (see WorkDir)
	kept map[string][]string
	seq  int // numbers the kept copies
}

// New probes the kernel and returns a Sandbox for cfg. In ModeRequired, a kernel without a usable
// Landlock gives an *UnavailableError; in ModeAuto the Sandbox's Guarantee says what is missing.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeRequired
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(cfg.Scratch) {
		return nil, fmt.Errorf("sandbox: scratch directory %q is not absolute", cfg.Scratch)
	}
	s := &Sandbox{cfg: cfg, g: record.Sandbox{Mode: string(cfg.Mode)}}
	if cfg.Mode == ModeOff {
		return s, nil
	}
	s.pol, s.g = probe(cfg)
	if !s.g.Guarded && cfg.Mode == ModeRequired {
		return nil, &UnavailableError{Why: s.g.Unavailable}
	}
	return s, nil
}

// Guarantee returns what the sandbox guarantees for every child it starts; the zero record.Sandbox
// for nil.
func (s *Sandbox) Guarantee() record.Sandbox {
	if s == nil {
		return record.Sandbox{}
	}
	g := s.g
	s.mu.Lock()
	g.NotCopied = slices.Sorted(slices.Values(s.notCopied))
	s.mu.Unlock()
	return g
}

// Scratch makes a fresh scratch directory for one child, under Config.Scratch (for a nil Sandbox,
// under the system's temporary directory), and returns it with the function that removes it once
// the child is done.
func (s *Sandbox) Scratch() (dir string, remove func(), err error) {
	root := ""
	if s != nil {
		root = s.cfg.Scratch
	}
	if dir, err = os.MkdirTemp(root, "child-"); err != nil {
		return "", func() {}, fmt.Errorf("sandbox: making a scratch directory: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// Start starts cmd (made by proc.Command, so its Env is set) sandboxed: it may write only beneath
// scratch (made by Scratch), which holds its TMPDIR and its GOCACHE. onThread, when not nil, runs
// first on the thread the child will be started from (to pin it to a CPU, say); its effect dies
// with that thread. Wrap Start in the function passed to proc.Start, so that proc tracks the child.
// A nil Sandbox starts cmd unconfined, with the same TMPDIR.
func (s *Sandbox) Start(cmd *exec.Cmd, scratch string, onThread func() error) error {
	if !filepath.IsAbs(scratch) {
		return fmt.Errorf("sandbox: scratch directory %q is not absolute", scratch)
	}
	tmp := filepath.Join(scratch, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return fmt.Errorf("sandbox: making the temporary directory: %w", err)
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	var restrict func() error
	if s != nil && s.cfg.Mode != ModeOff {
		// A test may run the go command (cespare/xxhash's TestInlining builds with -gcflags=-m):
		// its build cache must be where the child may write, or the test fails on both sides for
		// the sandbox's sake.
		cmd.Env = append(cmd.Env, "GOCACHE="+filepath.Join(scratch, "gocache"))
		restrict = func() error {
			if err := s.pol.restrictThread(scratch); err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
			return nil
		}
	}
	return onLockedThread(func() error { return startOn(cmd, onThread, restrict) })
}

// startOn runs, on the calling locked thread, onThread, then restrict, then starts cmd; nil steps
// are skipped.
func startOn(cmd *exec.Cmd, onThread, restrict func() error) error {
	for _, f := range []func() error{onThread, restrict} {
		if f != nil {
			if err := f(); err != nil {
				return err
			}
		}
	}
	return cmd.Start()
}
