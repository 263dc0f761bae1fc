package record

import (
	"fmt"
	"strings"
)

// Sandbox is what the sandbox guaranteed about every process that ran the repository's code (tests,
// benchmarks, calibration, the instruction lane, the differential harnesses), base's and head's
// alike. Package internal/sandbox fills it in.
type Sandbox struct {
	Mode string `json:"mode"` // required, auto or off, as configured
	// Guarded is true when the children ran under Landlock with writes confined to their scratch
	// directories: the checks they took part in count as guarded.
	Guarded bool `json:"guarded"`
	// ABI is the kernel's Landlock ABI version, 0 when Landlock was unavailable or not asked for.
	ABI        int  `json:"landlock_abi,omitempty"`
	NoNewPrivs bool `json:"no_new_privs"`
	// CapsDropped: perfgate was privileged, and its children exec'd with an empty capability
	// bounding set.
	CapsDropped bool `json:"caps_dropped,omitempty"`
	// SignalsScoped and SocketsScoped: a child could not signal, or connect to an abstract unix
	// socket of, a process outside its own Landlock domain (ABI 6).
	SignalsScoped bool `json:"signals_scoped,omitempty"`
	SocketsScoped bool `json:"abstract_sockets_scoped,omitempty"`
	// NetworkDenied: TCP (and MPTCP) bind and connect failed (ABI 4). False when the network was
	// allowed.
	NetworkDenied bool `json:"network_denied,omitempty"`
	// DevIoctlDenied: ioctl on device files failed (ABI 5), so a child could not push input into a
	// terminal.
	DevIoctlDenied bool `json:"dev_ioctl_denied,omitempty"`
	// Unavailable says why Landlock could not be set up, when it could not.
	Unavailable string `json:"unavailable,omitempty"`
	// NotCopied lists the files of the package directory (relative to it, with their size) too
	// large for the copy of it each child runs in: the children read them in place and could not
	// write them.
	NotCopied []string `json:"not_copied,omitempty"`
}

// String is the guarantee in a few words, as the verdict's sandbox check says it: "Landlock ABI 7,
// no_new_privs, writes only to scratch, signals scoped, abstract sockets scoped, TCP denied, device
// ioctl denied", "unavailable: …, no_new_privs" or "off (children ran unguarded)".
func (s Sandbox) String() string {
	if s.Mode == "off" {
		return "off (children ran unguarded)"
	}
	var parts []string
	if s.Guarded {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", s.ABI))
	} else {
		parts = append(parts, "unavailable: "+s.Unavailable)
	}
	if s.NoNewPrivs {
		parts = append(parts, "no_new_privs")
	}
	if s.CapsDropped {
		parts = append(parts, "capabilities dropped")
	}
	if s.Guarded {
		parts = append(parts, "writes only to scratch")
	}
	for _, f := range []struct {
		on   bool
		what string
	}{
		{s.SignalsScoped, "signals scoped"}, {s.SocketsScoped, "abstract sockets scoped"},
		{s.NetworkDenied, "TCP denied"}, {s.DevIoctlDenied, "device ioctl denied"},
	} {
		if f.on {
			parts = append(parts, f.what)
		}
	}
	if n := len(s.NotCopied); n > 0 {
		names := strings.Join(s.NotCopied[:min(n, 3)], ", ")
		if n > 3 {
			names += fmt.Sprintf(" and %d more", n-3)
		}
		parts = append(parts, fmt.Sprintf("%d large file(s) read in place, not copied into the working directory: %s",
			n, names))
	}
	return strings.Join(parts, ", ")
}
