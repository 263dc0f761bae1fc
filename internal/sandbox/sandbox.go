// Package sandbox starts the child processes that execute a repository's code — test binaries, benchmarks, the
// differential harness, valgrind running any of them — so that they cannot touch the evidence perfgate judges
// them by: the other side's tree and binaries, the build cache, perfgate itself, the runner's step files.
//
// A child started with (*Sandbox).Start runs with no_new_privs (sudo and setuid programs cannot lift it) and, on
// Linux with Landlock, under a ruleset that lets it write only beneath its own scratch directory (which holds its
// TMPDIR) and read and execute everywhere else. Where the kernel's Landlock ABI has them it also denies TCP bind
// and connect (ABI 4; unless the network is allowed), ioctl on devices (ABI 5), and scopes signals and abstract
// unix sockets to the child's own domain (ABI 6): it cannot stop, kill or connect to perfgate or a sibling.
// Landlock always forbids it to ptrace a process outside its domain. A privileged perfgate (root in a container)
// also drops the child's capability bounding set, so the child execs without capabilities.
//
// # How
//
// Landlock and no_new_privs apply to the calling thread and what it starts. Start therefore runs on a goroutine
// locked to a fresh OS thread: it restricts that thread, starts the child from it (the child inherits the
// restriction across fork and exec), and returns without unlocking, so that the runtime discards the thread and
// perfgate itself stays unrestricted. No re-exec of perfgate is needed, and any test binary can use the package.
//
// # Modes
//
// ModeRequired refuses to start anything when Landlock cannot be set up (New returns an *UnavailableError);
// ModeAuto sandboxes what it can and says what it could not in the Guarantee; ModeOff starts children as they
// are, and the Guarantee says they are unguarded.
package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// Guarantee is what the sandbox guarantees about every child started through it.
type Guarantee struct {
	Mode Mode `json:"mode"`
	// Guarded is true when children run under Landlock with writes confined to their scratch directory: the
	// checks they take part in count as guarded.
	Guarded bool `json:"guarded"`
	// ABI is the kernel's Landlock ABI version, 0 when Landlock is unavailable or was not asked for.
	ABI        int  `json:"landlock_abi,omitempty"`
	NoNewPrivs bool `json:"no_new_privs"`
	// CapsDropped is set when perfgate was privileged and its children exec with an empty bounding set.
	CapsDropped bool `json:"caps_dropped,omitempty"`
	// SignalsScoped and SocketsScoped: the child cannot signal, or connect to an abstract unix socket of, a
	// process outside its own Landlock domain (ABI 6).
	SignalsScoped bool `json:"signals_scoped,omitempty"`
	SocketsScoped bool `json:"abstract_sockets_scoped,omitempty"`
	// NetworkDenied: TCP bind and connect fail (ABI 4). False when the network was allowed or the ABI lacks it.
	NetworkDenied bool `json:"network_denied,omitempty"`
	// DevIoctlDenied: ioctl on device files fails (ABI 5), so the child cannot push input into a terminal.
	DevIoctlDenied bool `json:"dev_ioctl_denied,omitempty"`
	// Unavailable says why Landlock could not be set up, when it could not.
	Unavailable string `json:"unavailable,omitempty"`
}

// String is the guarantee in a few words, as a report's check line shows it: "Landlock ABI 7, no_new_privs,
// writes only to scratch, signals scoped, abstract sockets scoped, TCP denied, device ioctl denied",
// "unavailable: …" or "off (children run unguarded)".
func (g Guarantee) String() string {
	if g.Mode == ModeOff {
		return "off (children run unguarded)"
	}
	var parts []string
	if g.Guarded {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", g.ABI))
	} else {
		parts = append(parts, "unavailable: "+g.Unavailable)
	}
	if g.NoNewPrivs {
		parts = append(parts, "no_new_privs")
	}
	if g.CapsDropped {
		parts = append(parts, "capabilities dropped")
	}
	if g.Guarded {
		parts = append(parts, "writes only to scratch")
	}
	for _, f := range []struct {
		on   bool
		what string
	}{
		{g.SignalsScoped, "signals scoped"}, {g.SocketsScoped, "abstract sockets scoped"},
		{g.NetworkDenied, "TCP denied"}, {g.DevIoctlDenied, "device ioctl denied"},
	} {
		if f.on {
			parts = append(parts, f.what)
		}
	}
	return strings.Join(parts, ", ")
}

// UnavailableError is New's error in ModeRequired when Landlock cannot be set up.
type UnavailableError struct {
	Why string
}

func (e *UnavailableError) Error() string {
	return "sandbox required but unavailable: " + e.Why
}

// Config configures a Sandbox. The zero value is ModeRequired with the network denied.
type Config struct {
	Mode Mode
	// AllowNetwork leaves TCP bind and connect alone, for packages whose tests need the network.
	AllowNetwork bool
}

// Sandbox starts children under one Guarantee. It is safe for concurrent use.
type Sandbox struct {
	cfg Config
	g   Guarantee
	pol policy // what the kernel allows, computed once
}

// New probes the kernel and returns a Sandbox for cfg. In ModeRequired, a kernel without a usable Landlock gives
// an *UnavailableError; in ModeAuto the Sandbox's Guarantee says what is missing.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeRequired
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	s := &Sandbox{cfg: cfg, g: Guarantee{Mode: cfg.Mode}}
	if cfg.Mode == ModeOff {
		return s, nil
	}
	s.pol, s.g = probe(cfg)
	if !s.g.Guarded && cfg.Mode == ModeRequired {
		return nil, &UnavailableError{Why: s.g.Unavailable}
	}
	return s, nil
}

// Guarantee returns what the sandbox guarantees for every child it starts.
func (s *Sandbox) Guarantee() Guarantee { return s.g }

// Start starts cmd (made by proc.Command, so its Env is set) sandboxed, writable only beneath scratch. It creates
// scratch/tmp and points the child's TMPDIR there. onThread, when not nil, runs first on the thread the child will
// be started from (to pin it to a CPU, say); its effect dies with that thread. Pass Start, wrapped, to proc.Start,
// so that proc tracks the child.
func (s *Sandbox) Start(cmd *exec.Cmd, scratch string, onThread func() error) error {
	if !filepath.IsAbs(scratch) {
		return fmt.Errorf("sandbox: scratch directory %q is not absolute", scratch)
	}
	tmp := filepath.Join(scratch, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return fmt.Errorf("sandbox: making the scratch directory: %w", err)
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	if s.cfg.Mode == ModeOff {
		if onThread == nil {
			return cmd.Start()
		}
		return onLockedThread(func() error {
			if err := onThread(); err != nil {
				return err
			}
			return cmd.Start()
		})
	}
	return onLockedThread(func() error {
		if onThread != nil {
			if err := onThread(); err != nil {
				return err
			}
		}
		if err := s.pol.restrictThread(scratch); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		return cmd.Start()
	})
}
