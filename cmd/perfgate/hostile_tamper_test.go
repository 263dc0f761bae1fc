//go:build linux

package main

// The tampering head: a pull request whose code, in head's test binary, attacks the evidence and
// perfgate itself before anything is timed — it rewrites base's tree and binaries, poisons the
// build cache, plants go.work files, writes the runner's step file, stops and traces perfgate,
// leaves a process in perfgate's own process group and asks for root. With the sandbox the verdict
// is the true one (head is slower); without it, the tampering is named in an error. Never PASS.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// tamperHead is head's package: Sum made about 50 times slower, so that the true verdict is a clear
// slowdown.
const tamperHead = `package att

// Sum adds the bytes of b, slowly.
func Sum(b []byte) int {
	n := 0
	for r := 0; r < 50; r++ {
		n = 0
		for _, c := range b {
			n += int(c)
		}
	}
	return n
}
`

// tamperInit is a non-test file of head's package: an init that attacks when it runs in head's test
// binary running the package's tests, the first of head's code perfgate runs. It reports each
// attack on standard output ("tamper: NAME ok" or "tamper: NAME denied: …"), which perfgate keeps
// in test-head.log. STEPFILE and GOCACHE are the paths it guesses, as a hostile pull request would
// guess the runner's.
const tamperInit = `package att

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func init() {
	if os.Getenv("TAMPER_JOIN") != "" {
		joinAndStay()
	}
	if !strings.HasSuffix(os.Args[0], "head.test") || !hasArg("-test.run") {
		return
	}
	self, _ := os.Executable()
	work := filepath.Dir(self)
	report := func(name string, err error) {
		if err != nil {
			fmt.Printf("tamper: %s denied: %v\n", name, err)
		} else {
			fmt.Printf("tamper: %s ok\n", name)
		}
	}
	// The tree rewrite: head's package files over base's, in every other exported tree.
	wd, _ := os.Getwd()
	trees, _ := filepath.Glob(filepath.Join(work, "perfgate-*"))
	for _, tree := range trees {
		if strings.HasPrefix(wd, tree) {
			continue
		}
		report("tree", copyFile(filepath.Join(wd, "att.go"), filepath.Join(tree, "att", "att.go")))
		report("go.work", os.WriteFile(filepath.Join(tree, "go.work"), []byte("go 1.21\n\nuse ./att\n"), 0o644))
	}
	// The binary overwrite: head's test binary over base's and over base built with head's tests.
	for _, name := range []string{"base.test", "base-with-head-tests.test"} {
		if _, err := os.Stat(filepath.Join(work, name)); err == nil {
			report("binary "+name, copyFile(self, filepath.Join(work, name)))
		}
	}
	diffWork := filepath.Join(work, "differential", "go.work")
	report("go.work differential", os.WriteFile(diffWork, []byte("go 1.21\n"), 0o644))
	report("gocache", os.WriteFile(filepath.Join("GOCACHE", "poison"), []byte("x"), 0o644))
	report("step file", appendLine("STEPFILE", "BASH_ENV=/tmp/evil\n"))
	perfgate := os.Getppid()
	report("sigstop", syscall.Kill(perfgate, syscall.SIGSTOP))
	syscall.Kill(perfgate, syscall.SIGCONT)
	report("ptrace", ptrace(perfgate))
	report("no_new_privs off", noNewPrivs())
	if sudo, err := exec.LookPath("sudo"); err == nil {
		report("sudo", exec.Command(sudo, "-n", "true").Run())
	}
	join := exec.Command(self)
	join.Stdout = os.Stdout
	join.Env = append(os.Environ(), "TAMPER_JOIN=1")
	if p, err := syscall.Getpgid(perfgate); err == nil {
		join.Env = append(join.Env, "TAMPER_PGID="+strconv.Itoa(p))
	}
	if err := join.Start(); err == nil {
		time.Sleep(200 * time.Millisecond)
	}
}

func hasArg(prefix string) bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	f.Close()
	return err
}

func ptrace(pid int) error {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PTRACE, 0x4206, uintptr(pid), 0, 0, 0, 0) // PTRACE_SEIZE
	if errno != 0 {
		return errno
	}
	syscall.RawSyscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(pid), 0, 0, 0, 0)
	return nil
}

func noNewPrivs() error {
	b, _ := os.ReadFile("/proc/self/status")
	if strings.Contains(string(b), "NoNewPrivs:\t1") {
		return fmt.Errorf("NoNewPrivs is 1")
	}
	return nil
}

// joinAndStay moves into perfgate's process group, says so with its pid, and stays.
func joinAndStay() {
	pgid, _ := strconv.Atoi(os.Getenv("TAMPER_PGID"))
	if err := syscall.Setpgid(0, pgid); err != nil {
		fmt.Printf("joined: no: %v\n", err)
		os.Exit(0)
	}
	fmt.Printf("joined: %d\n", os.Getpid())
	for {
		time.Sleep(50 * time.Millisecond)
	}
}
`

// TestTamperingHead runs the tampering head through perfgate compare with the sandbox required and
// with it off. Required: every attack is denied and the verdict is FAIL with head's true slowdown.
// Off: the attacks land, and the overwritten binary is named in an error (exit 3) with the run
// reported as unguarded. Either way the descendant that joined perfgate's process group is gone,
// and the verdict is never pass.
func TestTamperingHead(t *testing.T) {
	testenv.Long(t) // builds and times a package twice
	if _, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeRequired, Scratch: t.TempDir()}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	for _, mode := range []string{"required", "off"} {
		t.Run(mode, func(t *testing.T) {
			repo, base, _ := attackRepo(t)
			stepFile := filepath.Join(t.TempDir(), "set_env")
			if err := os.WriteFile(stepFile, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			// The build cache is the machine's (a fresh one would rebuild the standard library);
			// the poison is a file of this test's own, removed afterwards.
			cache := gitIn(t, repo, "go", "env", "GOCACHE")
			poison := filepath.Join(cache, "perfgate-tamper-"+strconv.Itoa(os.Getpid())+"-"+mode)
			t.Cleanup(func() { os.Remove(poison) })
			src := strings.NewReplacer(`filepath.Join("GOCACHE", "poison")`, strconv.Quote(poison),
				`"STEPFILE"`, strconv.Quote(stepFile)).Replace(tamperInit)
			head := tamperCommit(t, repo, src)
			out := filepath.Join(t.TempDir(), "results")
			inv := invoke(t, "compare", "-C", repo, "-pkg", "./att", "-budget", "0", "-rounds", "5",
				"-benchtime", "20ms", "-sandbox", mode, "-o", out, base, head)
			log, _ := os.ReadFile(filepath.Join(out, "test-head.log"))
			t.Logf("test-head.log:\n%s", log)
			res := readResult(t, out)
			if res.Verdict.Status == record.StatusPass || inv.code == record.ExitPass {
				t.Fatalf("verdict %s (exit %d): the tampering head passed", res.Verdict.Status, inv.code)
			}
			checkJoinedDead(t, string(log))
			if res.Sandbox == nil || res.Sandbox.Mode != mode {
				t.Fatalf("result.json sandbox %+v, want mode %s", res.Sandbox, mode)
			}
			if mode == "required" {
				checkConfined(t, string(log), res, inv, stepFile, poison)
			} else {
				checkUnguarded(t, string(log), res, inv)
			}
		})
	}
}

// tamperCommit commits head's slow Sum and the tampering init on top of the fixture's head.
func tamperCommit(t *testing.T, repo, init string) string {
	t.Helper()
	for name, content := range map[string]string{"att/att.go": tamperHead, "att/tamper.go": init} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "att: tamper")
	return gitIn(t, repo, "rev-parse", "HEAD")
}

func readResult(t *testing.T, dir string) *record.Result {
	t.Helper()
	var res record.Result
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "result.json"))), &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// checkJoinedDead: the process that joined perfgate's group (it says "joined: PID" in log) is not
// alive.
func checkJoinedDead(t *testing.T, log string) {
	t.Helper()
	_, after, ok := strings.Cut(log, "\njoined: ")
	if !ok {
		t.Fatalf("the process that joins perfgate's group did not report")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(after, "\n", 2)[0]))
	if err != nil {
		t.Logf("it could not join: %s", strings.SplitN(after, "\n", 2)[0])
		return
	}
	for range 50 {
		if !aliveProc(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d, which joined perfgate's process group, outlived the comparison", pid)
}

// checkConfined: every attack was denied, nothing outside changed, and the verdict is head's true
// slowdown.
func checkConfined(t *testing.T, log string, res *record.Result, inv invocation, stepFile, poison string) {
	t.Helper()
	if !strings.Contains(log, "tamper: ") {
		t.Fatalf("the attacks did not run (no report in test-head.log)")
	}
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "tamper: ") && !strings.Contains(l, " denied: ") {
			t.Errorf("in the sandbox: %s", l)
		}
	}
	if b, _ := os.ReadFile(stepFile); len(b) > 0 {
		t.Errorf("the step file was written: %q", b)
	}
	if _, err := os.Stat(poison); err == nil {
		t.Errorf("the build cache was written")
	}
	if inv.code != record.ExitFail || res.Verdict.Status != record.StatusFail {
		t.Fatalf("verdict %s (exit %d), want fail; reasons %q", res.Verdict.Status, inv.code, res.Verdict.Reasons)
	}
	slower := false
	for _, b := range res.Benchmarks {
		slower = slower || b.Class == record.ClassSlower
	}
	if !slower {
		t.Errorf("no benchmark is slower: the verdict's reasons %q are not head's slowdown", res.Verdict.Reasons)
	}
	if !res.Sandbox.Guarded || !strings.Contains(res.Sandbox.String(), "Landlock ABI") {
		t.Errorf("sandbox %q, want guarded", res.Sandbox.String())
	}
}

// checkUnguarded: without the sandbox the attacks land, and perfgate names the overwritten binary
// in an error instead of comparing head with itself; the run is reported as unguarded.
func checkUnguarded(t *testing.T, log string, res *record.Result, inv invocation) {
	t.Helper()
	if !strings.Contains(log, "tamper: binary base.test ok") {
		t.Fatalf("the binary overwrite did not land without the sandbox; log:\n%s", log)
	}
	if inv.code != record.ExitCannotRun || res.Verdict.Status != record.StatusError {
		t.Fatalf("verdict %s (exit %d), want error", res.Verdict.Status, inv.code)
	}
	if why := strings.Join(res.Verdict.Reasons, "; "); !strings.Contains(why, "changed after it was built") {
		t.Errorf("reasons %q do not name the tampering", why)
	}
	if res.Sandbox.Guarded {
		t.Errorf("sandbox off reported as guarded")
	}
	if !strings.Contains(inv.stdout+inv.stderr, "unguarded") {
		t.Errorf("perfgate's output does not say the run was unguarded")
	}
}

// gitIn runs a command (git, go) in dir and returns its output. Git runs isolated by gittest.
func gitIn(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	var env []string
	if argv[0] != "go" {
		argv = append([]string{"git"}, argv...)
		env = gittest.TestEnv(t)
	}
	out, _, err := proc.Run(proc.Command(context.Background(), dir, env, argv...))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestDuplicateEntryHead: a head commit whose tree has a symbolic link a pointing outside and a
// subtree a/evil of the same name (made with git hash-object --literally; git fsck would refuse it)
// is an error naming the tree entry, and nothing is written where the link points.
func TestDuplicateEntryHead(t *testing.T) {
	repo, base, head := attackRepo(t)
	outside := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		f := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	evil := gitIn(t, repo, "hash-object", "-w", write("evil", "package evil\n"))
	link := gitIn(t, repo, "hash-object", "-w", write("link", outside))
	sub := gitIn(t, repo, "hash-object", "-t", "tree", "--literally", "-w",
		write("sub", treeEntry("100644", "evil", evil)))
	var root strings.Builder
	for _, l := range strings.Split(gitIn(t, repo, "ls-tree", head), "\n") {
		meta, name, _ := strings.Cut(l, "\t")
		f := strings.Fields(meta) // mode type sha
		root.WriteString(treeEntry(strings.TrimPrefix(f[0], "0"), name, f[2]))
	}
	root.WriteString(treeEntry("120000", "a", link) + treeEntry("40000", "a", sub))
	tree := gitIn(t, repo, "hash-object", "-t", "tree", "--literally", "-w", write("root", root.String()))
	crafted := gitIn(t, repo, "commit-tree", tree, "-p", head, "-m", "att: crafted tree")
	out := filepath.Join(t.TempDir(), "results")
	inv := invoke(t, "compare", "-C", repo, "-pkg", "./att", "-o", out, base, crafted)
	if inv.code != record.ExitCannotRun || !strings.Contains(inv.stderr, "refusing tree entry a") {
		t.Errorf("exit %d, want %d with an error refusing tree entry a", inv.code, record.ExitCannotRun)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("the export wrote %s where the link points", ents[0].Name())
	}
}

// treeEntry is one entry of a git tree object: "MODE NAME\0" and the 20-byte object name.
func treeEntry(mode, name, sha string) string {
	b, err := hex.DecodeString(sha)
	if err != nil {
		panic(err)
	}
	return mode + " " + name + "\x00" + string(b)
}
