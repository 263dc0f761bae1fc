//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/perfgate/perfgate/record"
)

// The Landlock rights this package handles, by the ABI version that introduced them. Rights of a
// later ABI are left out on an earlier kernel, which would refuse the whole ruleset otherwise.
const (
	fsABI1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsABI2    = unix.LANDLOCK_ACCESS_FS_REFER
	fsABI3    = unix.LANDLOCK_ACCESS_FS_TRUNCATE
	fsABI5    = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	netABI4   = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	scopeABI6 = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET

	// readOnly is what a child may do everywhere outside its scratch directory.
	readOnly = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// devFile is what it may do to the harmless devices in devFiles.
	devFile = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// devFiles are the device files a child may open for writing: test binaries, shells and valgrind
// send output to /dev/null, and read randomness or zeros.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// rulesetAttr is struct landlock_ruleset_attr as far as this package uses it; its size is passed as
// the ABI knows it (8, 16 or 24 bytes), so that an older kernel accepts it.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// policy is what restrictThread applies, computed once by probe.
type policy struct {
	abi      int    // 0: Landlock unavailable, only no_new_privs (and dropped capabilities)
	fs       uint64 // handled filesystem rights
	net      uint64 // handled network rights
	scoped   uint64
	dropCaps bool // clear the bounding and inheritable sets: perfgate holds CAP_SETPCAP
	lastCap  int
}

// abiVersion asks the kernel for its Landlock ABI version.
func abiVersion() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("the kernel has no Landlock (landlock_create_ruleset: ENOSYS)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("the kernel has Landlock disabled at boot (add landlock to the lsm= kernel parameter)")
	case errno != 0:
		return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return int(v), nil
}

// probe finds what the kernel allows and tries it once on a throwaway thread, so that a kernel or a
// seccomp filter that refuses a step fails here, with its reason, and not at the first child.
func probe(cfg Config) (policy, record.Sandbox) {
	g := record.Sandbox{Mode: string(cfg.Mode), NoNewPrivs: true}
	var p policy
	p.dropCaps, p.lastCap = privileged()
	g.CapsDropped = p.dropCaps
	abi, err := abiVersion()
	if err != nil {
		g.Unavailable = err.Error()
		return p, g
	}
	try := policyFor(abi, cfg.AllowNetwork, p)
	if err := onLockedThread(func() error { return try.restrictThread(os.TempDir()) }); err != nil {
		g.Unavailable = err.Error()
		return p, g
	}
	g.Guarded, g.ABI = true, abi
	g.NetworkDenied = try.net != 0
	g.SignalsScoped = try.scoped&unix.LANDLOCK_SCOPE_SIGNAL != 0
	g.SocketsScoped = try.scoped&unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET != 0
	g.DevIoctlDenied = try.fs&fsABI5 != 0
	return try, g
}

// policyFor is the policy for a kernel of Landlock ABI abi.
func policyFor(abi int, allowNet bool, p policy) policy {
	p.abi, p.fs = abi, fsABI1
	if abi >= 2 {
		p.fs |= fsABI2
	}
	if abi >= 3 {
		p.fs |= fsABI3
	}
	if abi >= 4 && !allowNet && canFilterMPTCP() {
		p.net = netABI4
	}
	if abi >= 5 {
		p.fs |= fsABI5
	}
	if abi >= 6 {
		p.scoped = scopeABI6
	}
	return p
}

// privileged reports whether this thread holds CAP_SETPCAP, so that it can drop the bounding set of
// the children it starts (root's children would otherwise exec with every capability), and the
// highest capability number.
func privileged() (bool, int) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil || data[0].Effective&(1<<unix.CAP_SETPCAP) == 0 {
		return false, 0
	}
	last := unix.CAP_LAST_CAP
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	return true, last
}

// restrictThread restricts the calling thread, which must be locked and is discarded afterwards,
// and every process it starts from now on: capabilities dropped (when privileged), no_new_privs,
// and the Landlock ruleset with scratch writable.
func (p policy) restrictThread(scratch string) error {
	if p.dropCaps {
		if err := dropCapabilities(p.lastCap); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if p.abi == 0 {
		return nil
	}
	attr := rulesetAttr{fs: p.fs, net: p.net, scoped: p.scoped}
	size := unsafe.Sizeof(attr)
	switch {
	case p.abi < 4:
		size = 8
	case p.abi < 6:
		size = 16
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if err := addPath(int(fd), "/", readOnly); err != nil {
		return err
	}
	for _, dev := range devFiles {
		if err := addPath(int(fd), dev, devFile&p.fs); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := addPath(int(fd), scratch, p.fs); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	if p.net != 0 {
		return denyMPTCP()
	}
	return nil
}

// addPath allows access beneath path (or to the file path) in the ruleset fd.
func addPath(fd int, path string, access uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// Only rights on files apply to a file; the kernel refuses the rest.
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
			unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}

// dropCapabilities empties the calling thread's bounding, ambient and inheritable sets, so that a
// program it execs — even as root, even setuid — gets no capability. Its own effective set stays
// until it is discarded.
func dropCapabilities(last int) error {
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil &&
		err != unix.EINVAL {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("reading capabilities: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clearing inheritable capabilities: %w", err)
	}
	return nil
}

// onMainThread reports whether the calling thread is the process's main thread, whose id is the
// process's.
func onMainThread() bool { return unix.Gettid() == unix.Getpid() }
