//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is the seccomp architecture of this build's system calls; 0 where mptcpFilter does not
// know it.
var auditArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]

// canFilterMPTCP reports whether denyMPTCP works on this architecture.
func canFilterMPTCP() bool { return auditArch != 0 }

// denyMPTCP installs a seccomp filter on the calling thread (no_new_privs must be set) that refuses
// to create multipath TCP sockets with EPROTONOSUPPORT. Landlock's TCP rights do not cover
// IPPROTO_MPTCP (Go listens with it by default, and the bind goes through), so without the filter a
// child could bind and connect anyway. Go, refused, falls back to plain TCP, which Landlock does
// check. System calls of another architecture (the i386 entry on amd64, x32) are refused outright,
// so that the filter cannot be stepped around.
func denyMPTCP() error {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		x32  = 0x40000000 // __X32_SYSCALL_BIT
		nr   = 0          // offsets in struct seccomp_data
		arch = 4
		arg2 = 16 + 2*8 // the low half of args[2], little-endian
	)
	filter := []unix.SockFilter{
		{Code: ld, K: arch},
		{Code: jeq, Jt: 1, Jf: 0, K: auditArch},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: ld, K: nr},
		{Code: jge, Jt: 0, Jf: 1, K: x32},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: jeq, Jt: 0, Jf: 3, K: unix.SYS_SOCKET},
		{Code: ld, K: arg2},
		{Code: jeq, Jt: 0, Jf: 1, K: unix.IPPROTO_MPTCP},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	defer runtime.KeepAlive(filter)
	// SECCOMP_FILTER_FLAG_SPEC_ALLOW: a kernel booted with spec_store_bypass_disable=seccomp or
	// spectre_v2_user=seccomp (the default before Linux 5.16, so on many runners' kernels) would
	// otherwise turn on speculative store bypass disable and STIBP for every filtered process: the
	// timed child would run slower than the same binary under go test (store-to-load forwarding
	// loops most), and than on a host that does not, for a filter that only refuses a socket type.
	errno := filterSpecAllow(&prog)
	if errno == 0 {
		specAllowed.Store(true)
		return nil
	}
	if errno != unix.EINVAL && errno != unix.ENOSYS {
		return fmt.Errorf("installing the seccomp filter against MPTCP: %w", errno)
	}
	// A kernel before 4.17 knows no such flag: the filter alone, as prctl installs it.
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("installing the seccomp filter against MPTCP: %w", err)
	}
	return nil
}

// filterSpecAllow installs prog on the calling thread with SECCOMP_FILTER_FLAG_SPEC_ALLOW (a
// variable so that a test can stand in for a kernel that does not know the flag).
var filterSpecAllow = func(prog *unix.SockFprog) unix.Errno {
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW,
		uintptr(unsafe.Pointer(prog)))
	return errno
}

// specAllowed records that a filter was installed with SECCOMP_FILTER_FLAG_SPEC_ALLOW (for tests).
var specAllowed atomic.Bool
