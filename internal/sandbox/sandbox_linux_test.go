//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// helperEnv, set in a child's environment, makes this test binary act as the hostile child instead
// of running tests: the variable's value names the attack, its arguments follow "--" on the command
// line.
const helperEnv = "PERFGATE_SANDBOX_HELPER"

func TestMain(m *testing.M) {
	if attack := os.Getenv(helperEnv); attack != "" {
		os.Exit(helper(attack, os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// helper runs one attack against arg and prints "ok" or "denied: …"; it exits 0 either way, so that
// the test reads the outcome, not an exit status.
func helper(attack, arg string) int {
	arg = strings.ReplaceAll(arg, "$TMPDIR", os.Getenv("TMPDIR"))
	var err error
	switch attack {
	case "write":
		err = os.WriteFile(arg, []byte("tampered"), 0o644)
	case "append":
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.WriteString("BASH_ENV=/tmp/evil\n")
			f.Close()
		}
	case "mkdir-tmp":
		var d string
		if d, err = os.MkdirTemp("", "x"); err == nil && !strings.HasPrefix(d, arg) {
			err = fmt.Errorf("temp dir %s is not under %s", d, arg)
		}
	case "devnull":
		err = os.WriteFile(os.DevNull, []byte("x"), 0)
	case "signal":
		pid, _ := strconv.Atoi(arg)
		err = syscall.Kill(pid, syscall.SIGSTOP)
	case "ptrace":
		pid, _ := strconv.Atoi(arg)
		err = unix.PtraceAttach(pid)
	case "connect":
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "bind":
		var l net.Listener
		if l, err = net.Listen("tcp", arg); err == nil {
			l.Close()
		}
	case "mptcp-connect":
		d := net.Dialer{}
		d.SetMultipathTCP(true)
		var c net.Conn
		if c, err = d.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "abstract":
		var c net.Conn
		if c, err = net.Dial("unix", "@"+arg); err == nil {
			c.Close()
		}
	case "status":
		b, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(b), "\n") {
			if k, _, _ := strings.Cut(l, ":"); k == "NoNewPrivs" || k == "CapBnd" || k == "CapEff" ||
				arg == "speculation" && (k == "Seccomp" || strings.HasPrefix(k, "Speculation")) {
				fmt.Println(strings.Join(strings.Fields(l), " "))
			}
		}
		return 0
	default:
		err = fmt.Errorf("unknown attack %q", attack)
	}
	if err != nil {
		fmt.Println("denied:", err)
	} else {
		fmt.Println("ok")
	}
	return 0
}

// attack runs this test binary as a sandboxed child that tries attack on arg ("$TMPDIR" in it is
// the child's), and returns what it printed.
func attack(t *testing.T, s *Sandbox, attack, arg string) string {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), os.Args[0], "--", arg)
	cmd.Env = append(os.Environ(), helperEnv+"="+attack)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	scratch, remove, err := s.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if err := s.Start(cmd, scratch, nil); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s %s: %v\n%s", attack, arg, err, stderr.Bytes())
	}
	return strings.TrimSpace(out.String())
}

// newSandbox returns a sandbox for cfg whose children's scratch directories are in a fresh
// temporary directory.
func newSandbox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	cfg.Scratch = t.TempDir()
	s, err := New(cfg)
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	return s
}

// TestSpeculationAsUnconfined: the seccomp filter against MPTCP is installed with
// SECCOMP_FILTER_FLAG_SPEC_ALLOW, so that a kernel whose speculation mitigations follow seccomp
// (spec_store_bypass_disable=seccomp, spectre_v2_user=seccomp: the default before Linux 5.16) does
// not force them on the timed child: its Speculation_Store_Bypass and SpeculationIndirectBranch
// lines read as an unconfined child's, while its Seccomp line shows the filter. On a kernel that
// mitigates by prctl or not at all the lines agree either way; the flag's use is checked there too.
func TestSpeculationAsUnconfined(t *testing.T) {
	s := newSandbox(t, Config{})
	if !canFilterMPTCP() || s.pol.net == 0 {
		t.Skip("no seccomp filter on this architecture or Landlock ABI: nothing to check")
	}
	off := newSandbox(t, Config{Mode: ModeOff})
	confined, free := attack(t, s, "status", "speculation"), attack(t, off, "status", "speculation")
	pick := func(out, prefix string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				lines = append(lines, l)
			}
		}
		return lines
	}
	if got := pick(confined, "Seccomp: "); len(got) != 1 || got[0] != "Seccomp: 2" {
		t.Fatalf("the sandboxed child's seccomp mode: %q, want filter mode (2):\n%s", got, confined)
	}
	if !specAllowed.Load() {
		t.Errorf("the filter was installed without SECCOMP_FILTER_FLAG_SPEC_ALLOW on a kernel that knows it")
	}
	if c, f := pick(confined, "Speculation"), pick(free, "Speculation"); strings.Join(c, "\n") != strings.Join(f, "\n") {
		t.Errorf("the sandboxed child's speculation mitigations differ from an unconfined child's:\nsandboxed: %q\nunconfined: %q",
			c, f)
	}
}

// TestFilterWithoutSpecAllow: on a kernel that does not know SECCOMP_FILTER_FLAG_SPEC_ALLOW (a
// stand-in answering EINVAL, as a kernel before 4.17 does), the filter is installed without it, and
// a sandboxed child still cannot open an MPTCP socket.
func TestFilterWithoutSpecAllow(t *testing.T) {
	s := newSandbox(t, Config{})
	if !canFilterMPTCP() || s.pol.net == 0 {
		t.Skip("no seccomp filter on this architecture or Landlock ABI: nothing to check")
	}
	saved := filterSpecAllow
	t.Cleanup(func() { filterSpecAllow = saved })
	filterSpecAllow = func(*unix.SockFprog) unix.Errno { return unix.EINVAL }
	specAllowed.Store(false)
	out := attack(t, s, "status", "speculation")
	if !strings.Contains(out, "Seccomp: 2") {
		t.Fatalf("no seccomp filter in the sandboxed child after the fallback:\n%s", out)
	}
	if specAllowed.Load() {
		t.Errorf("the stand-in refused the flag, yet the filter is recorded as installed with it")
	}
	// a listener an unconfined child reaches (TestConfinement checks that with ModeOff)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := attack(t, s, "mptcp-connect", l.Addr().String()); !strings.HasPrefix(got, "denied") {
		t.Errorf("an MPTCP connect from the sandboxed child: %q, want it denied", got)
	}
}

// TestConfinement: a sandboxed child writes beneath its scratch directory (its TMPDIR is there) and
// /dev/null, and nowhere else; it cannot stop or trace perfgate, reach a TCP listener, bind a port
// or connect to an abstract socket of perfgate; it runs with no_new_privs and, when perfgate is
// privileged, without capabilities. Each attack is also run with ModeOff, where it must succeed:
// the test can tell a confined child from a broken one.
func TestConfinement(t *testing.T) {
	testenv.NeedTool(t, "sleep", "the victim of the signal and ptrace attacks is a sleep")
	s := newSandbox(t, Config{Mode: ModeRequired})
	g := s.Guarantee()
	t.Logf("guarantee: %s", g)
	off := newSandbox(t, Config{Mode: ModeOff})
	dir := t.TempDir()
	outside := filepath.Join(dir, "evidence")
	// The runner's file commands live in a directory of their own; GITHUB_ENV names a file there.
	stepFile := filepath.Join(dir, "_runner_file_commands", "set_env_1")
	if err := os.MkdirAll(filepath.Dir(stepFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stepFile, nil, 0o666); err != nil {
		t.Fatal(err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	abstract := fmt.Sprintf("perfgate-sandbox-test-%d", os.Getpid())
	ul, err := net.Listen("unix", "@"+abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// The victim of signals and ptrace is a sibling perfgate started outside the sandbox (stopping
	// the test process itself with ModeOff would hang the test).
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	vpid := strconv.Itoa(victim.Process.Pid)

	for _, c := range []struct {
		attack, arg string
		confined    bool // denied in the sandbox
		abi         int  // the ABI that denies it
	}{
		{"write", "$TMPDIR/../own", false, 1},
		{"mkdir-tmp", s.cfg.Scratch, false, 1},
		{"devnull", "", false, 1},
		{"write", outside, true, 1},
		{"append", stepFile, true, 1},
		{"ptrace", vpid, true, 1},
		{"connect", l.Addr().String(), true, 4},
		{"mptcp-connect", l.Addr().String(), true, 4},
		{"bind", "127.0.0.1:0", true, 4},
		{"bind", "127.0.0.1:" + strconv.Itoa(freePort(t)), true, 4},
		{"signal", vpid, true, 6},
		{"abstract", abstract, true, 6},
	} {
		got := attack(t, s, c.attack, c.arg)
		want := "ok"
		if c.confined && g.ABI >= c.abi {
			want = "denied"
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("sandboxed %s %s: %q, want %s", c.attack, c.arg, got, want)
		}
		if c.confined {
			if got := attack(t, off, c.attack, c.arg); got != "ok" {
				t.Errorf("unsandboxed %s %s: %q, want ok (the attack itself is broken)", c.attack, c.arg, got)
			}
			if c.attack == "signal" || c.attack == "ptrace" {
				syscall.Kill(victim.Process.Pid, syscall.SIGCONT)
				unix.PtraceDetach(victim.Process.Pid)
			}
		}
	}
	if _, err := os.Stat(outside); err == nil && g.Guarded {
		b, _ := os.ReadFile(outside)
		if string(b) == "tampered" {
			// ModeOff wrote it; make sure the sandboxed write did not, by writing again.
			os.Remove(outside)
			attack(t, s, "write", outside)
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("the sandboxed child wrote %s", outside)
			}
		}
	}

	status := attack(t, s, "status", "")
	if !strings.Contains(status, "NoNewPrivs: 1") {
		t.Errorf("child status:\n%s\nwant NoNewPrivs: 1", status)
	}
	if g.CapsDropped && !strings.Contains(status, "CapBnd: 0000000000000000") {
		t.Errorf("child status:\n%s\nwant an empty bounding set", status)
	}
}

// TestParentStaysFree: after many sandboxed starts, perfgate itself can still write anywhere and
// signal its children, from any goroutine: the restricted threads were discarded, not returned to
// the scheduler.
func TestParentStaysFree(t *testing.T) {
	s := newSandbox(t, Config{Mode: ModeRequired})
	dir := t.TempDir()
	for i := range 20 {
		if got := attack(t, s, "write", "$TMPDIR/"+strconv.Itoa(i)); got != "ok" {
			t.Fatalf("write to the child's TMPDIR: %q", got)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Go(func() {
			errs <- os.WriteFile(filepath.Join(dir, "free"+strconv.Itoa(i)), nil, 0o644)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("perfgate itself was restricted: %v", err)
		}
	}
	status, _ := os.ReadFile("/proc/self/status")
	if !bytes.Contains(status, []byte("NoNewPrivs:\t0")) {
		t.Errorf("perfgate's main thread has no_new_privs set")
	}
}

// TestAllowNetwork: with the network allowed, a child connects to a TCP listener; files stay
// confined.
func TestAllowNetwork(t *testing.T) {
	s := newSandbox(t, Config{Mode: ModeRequired, AllowNetwork: true})
	if s.Guarantee().NetworkDenied {
		t.Fatalf("guarantee %s: network denied although allowed", s.Guarantee())
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	dir := t.TempDir()
	if got := attack(t, s, "connect", l.Addr().String()); got != "ok" {
		t.Errorf("connect with the network allowed: %q", got)
	}
	got := attack(t, s, "write", filepath.Join(dir, "x"))
	if !strings.HasPrefix(got, "denied") {
		t.Errorf("write outside scratch with the network allowed: %q", got)
	}
}

// TestGuaranteeByABI: what each ABI adds, as the report words it.
func TestGuaranteeByABI(t *testing.T) {
	for _, c := range []struct {
		abi  int
		want policy
	}{
		{1, policy{abi: 1, fs: fsABI1}},
		{3, policy{abi: 3, fs: fsABI1 | fsABI2 | fsABI3}},
		{4, policy{abi: 4, fs: fsABI1 | fsABI2 | fsABI3, net: netABI4}},
		{6, policy{abi: 6, fs: fsABI1 | fsABI2 | fsABI3 | fsABI5, net: netABI4, scoped: scopeABI6}},
		{7, policy{abi: 7, fs: fsABI1 | fsABI2 | fsABI3 | fsABI5, net: netABI4, scoped: scopeABI6}},
	} {
		if got := policyFor(c.abi, false, policy{}); got != c.want {
			t.Errorf("ABI %d: %+v, want %+v", c.abi, got, c.want)
		}
	}
	if got := policyFor(7, true, policy{}); got.net != 0 {
		t.Errorf("ABI 7 with the network allowed handles net rights %#x", got.net)
	}
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestValgrindRuns: callgrind, as the instruction lane runs it, works in the sandbox with its
// output file and its temporary files in the scratch directory.
func TestValgrindRuns(t *testing.T) {
	needShell(t)
	if testing.Short() {
		t.Skip("valgrind is slow")
	}
	vg := testenv.NeedTool(t, "valgrind", "apt-get install valgrind")
	s := newSandbox(t, Config{Mode: ModeRequired})
	// The lane keeps callgrind's output in perfgate's own directory; here the child writes it to
	// its TMPDIR.
	cmd := exec.Command("sh", "-c", `"$0" --tool=callgrind --callgrind-out-file="$TMPDIR/cg.out" cat /proc/self/status &&
		test -s "$TMPDIR/cg.out"`, vg)
	stdout, _ := runSandboxed(t, s, cmd, "valgrind in the sandbox")
	if !strings.Contains(stdout, "NoNewPrivs:\t1") {
		t.Errorf("the program under valgrind printed %q", stdout)
	}
}

// BenchmarkStart: what starting one child costs without a sandbox, with ModeOff (a scratch
// directory, a locked thread) and with ModeRequired (the Landlock ruleset, no_new_privs, the
// seccomp filter), start to exit of /bin/true. Run the sub-benchmarks interleaved (-count) and
// compare them in one run.
func BenchmarkStart(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	for _, mode := range []Mode{"", ModeOff, ModeRequired} {
		var s *Sandbox
		if mode != "" {
			if s, err = New(Config{Mode: mode, Scratch: b.TempDir()}); err != nil {
				b.Skipf("no sandbox here: %v", err)
			}
		}
		name := string(mode)
		if name == "" {
			name = "none"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				scratch, remove, err := s.Scratch()
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(truePath)
				if err := s.Start(cmd, scratch, nil); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				remove()
			}
		})
	}
}

// TestGoCommandInSandbox: a test that runs the go command (as cespare/xxhash's TestInlining does)
// finds its build cache beneath the child's scratch directory, where it may write, not in the
// user's cache, where it may not.
func TestGoCommandInSandbox(t *testing.T) {
	needShell(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	s := newSandbox(t, Config{Mode: ModeRequired})
	cmd := exec.Command("sh", "-c", `c=$("$0" env GOCACHE) && mkdir -p "$c" && touch "$c/probe" && echo "$c"`, goCmd)
	stdout, scratch := runSandboxed(t, s, cmd, "the go command's cache in the sandbox")
	if got := strings.TrimSpace(stdout); !strings.HasPrefix(got, scratch+string(filepath.Separator)) {
		t.Errorf("GOCACHE in the sandbox is %q, want beneath the scratch directory %s", got, scratch)
	}
}

// runSandboxed runs cmd in s in a scratch directory of its own and returns what it printed and that
// directory (removed when the test ends); a failure to start or a non-zero exit fails the test,
// with what, and its stderr.
func runSandboxed(t *testing.T, s *Sandbox, cmd *exec.Cmd, what string) (stdout, scratch string) {
	t.Helper()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	scratch, remove, err := s.Scratch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	if err := s.Start(cmd, scratch, nil); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, stderr.Bytes())
	}
	return out.String(), scratch
}

// needShell skips a test whose child is a shell script when the machine has no shell on PATH (a
// newcomer's PATH may hold go and git alone); the end-to-end set fails it instead.
func needShell(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "sh", "the test's child is a shell script")
}
