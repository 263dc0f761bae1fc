//go:build linux

package abba

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"golang.org/x/sys/unix"
)

// TestMain lets the test binary act as the pinned child: with ABBA_CHILD=1 it prints its own
// Cpus_allowed_list and GOMAXPROCS and exits.
func TestMain(m *testing.M) {
	if os.Getenv("ABBA_WAIT") == "1" {
		// a child that lives until its standard input closes, then says where it may run
		io.Copy(io.Discard, os.Stdin)
		cpus, err := childCPUs(os.Getpid())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(cpus)
		os.Exit(0)
	}
	if os.Getenv("ABBA_CHILD") == "1" {
		cpus, err := childCPUs(os.Getpid())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s %d\n", cpus, runtime.GOMAXPROCS(0))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestStartPinsChild(t *testing.T) {
	allowed, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(allowed) < 2 {
		t.Skipf("pinning is only observable with 2 or more CPUs; this process may use %v", allowed)
	}
	before := FormatCPUList(allowed)
	def, err := Choose(-1, false)
	if err != nil {
		t.Fatal(err)
	}
	if !def.Pinned || def.CPU != allowed[len(allowed)-1] || def.Allowed != before {
		t.Fatalf("Choose(-1) = %+v, want pinned to the last allowed cpu %d", def, allowed[len(allowed)-1])
	}
	first, err := Choose(allowed[0], false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Pinning{def, first} {
		cmd := proc.Command(context.Background(), "", []string{"ABBA_CHILD=1"}, os.Args[0])
		var out strings.Builder
		cmd.Stdout = &out
		observed, err := Start(cmd, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		want := strconv.Itoa(p.CPU)
		if observed != want {
			t.Errorf("cpu %d: Start observed Cpus_allowed_list %q, want %q", p.CPU, observed, want)
		}
		// The child saw the same mask itself, and the Go runtime sized GOMAXPROCS to it: the
		// measured fact that a pinned benchmark runs with GOMAXPROCS=1 on both sides.
		if got := strings.TrimSpace(out.String()); got != want+" 1" {
			t.Errorf("cpu %d: child reported %q, want %q", p.CPU, got, want+" 1")
		}
	}

	// The calling thread and a fresh locked thread keep the full mask.
	if got := threadCPUs(t); got != before {
		t.Errorf("calling thread's cpus after Start = %q, want %q", got, before)
	}
	fresh := make(chan string)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fresh <- threadCPUs(t)
	}()
	if got := <-fresh; got != before {
		t.Errorf("a fresh locked thread's cpus after Start = %q, want %q", got, before)
	}
	// No thread of this process is left with the narrowed mask. The pinning thread exits
	// asynchronously after its goroutine returns, so poll (this waits for an event; it asserts
	// nothing about time).
	deadline := time.Now().Add(10 * time.Second)
	for {
		narrowed := narrowedThreads(t, before)
		if len(narrowed) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads still pinned after Start: %v (pid %d)", narrowed, os.Getpid())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func threadCPUs(t *testing.T) string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Error(err)
	}
	return FormatCPUList(cpusOf(&set))
}

// narrowedThreads lists this process's threads whose Cpus_allowed_list is not all.
func narrowedThreads(t *testing.T, all string) []string {
	dirs, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("listing threads: %v", err)
	}
	var out []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue // the thread exited meanwhile
		}
		if cpus, err := cpusAllowedList(b); err == nil && cpus != all {
			out = append(out, d+": "+cpus)
		}
	}
	return out
}

// TestPinProcess checks that PinProcess narrows every thread of the process, that a child started
// meanwhile inherits the narrowed mask while a timed child pinned by Start keeps its own CPU, and
// that restore gives every thread its mask back.
func TestPinProcess(t *testing.T) {
	allowed, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(allowed) < 2 {
		t.Skipf("pinning a process is only observable with 2 or more CPUs; this process may use %v", allowed)
	}
	before := FormatCPUList(allowed)
	side, timed := allowed[0], allowed[len(allowed)-1]
	threads := func() map[string]int {
		out := map[string]int{}
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
			if err != nil {
				continue // the thread exited
			}
			cpus, err := cpusAllowedList(b)
			if err != nil {
				t.Fatal(err)
			}
			out[cpus]++
		}
		return out
	}
	child := func(start func(cmd *exec.Cmd) error) string {
		t.Helper()
		cmd := proc.Command(context.Background(), "", []string{"ABBA_CHILD=1"}, os.Args[0])
		var out strings.Builder
		cmd.Stdout = &out
		if err := start(cmd); err != nil {
			t.Fatal(err)
		}
		if err := proc.Wait(cmd); err != nil {
			t.Fatal(err)
		}
		return strings.Fields(out.String())[0]
	}

	restore, err := PinProcess(side)
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(side)
	if got := threads(); len(got) != 1 || got[want] == 0 {
		restore()
		t.Fatalf("pinned to cpu %d, the threads' masks are %v", side, got)
	}
	if got := child(func(cmd *exec.Cmd) error { return cmd.Start() }); got != want {
		t.Errorf("a child started while pinned may use %s, want %s", got, want)
	}
	p := Pinning{Pinned: true, CPU: timed}
	if got := child(func(cmd *exec.Cmd) error { _, err := Start(cmd, p); return err }); got != strconv.Itoa(timed) {
		t.Errorf("a timed child started while the process is pinned to %d may use %s, want %d", side, got, timed)
	}
	// A child started while pinned, still running when the pinning ends: WidenDescendants gives it
	// every CPU back.
	waiter := proc.Command(context.Background(), "", []string{"ABBA_WAIT=1"}, os.Args[0])
	stdin, err := waiter.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var waited strings.Builder
	waiter.Stdout = &waited
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	restore()
	WidenDescendants()
	stdin.Close()
	if err := proc.Wait(waiter); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(waited.String()); got != before {
		t.Errorf("a child started while pinned, widened after restore, may use %s, want %s", got, before)
	}
	if got := threads(); len(got) != 1 || got[before] == 0 {
		t.Fatalf("restored, the threads' masks are %v, want all %s", got, before)
	}
	if got := child(func(cmd *exec.Cmd) error { return cmd.Start() }); got != before {
		t.Errorf("a child started after restore may use %s, want %s", got, before)
	}
	if _, err := PinProcess(1 << 20); err == nil {
		t.Error("PinProcess of a CPU this process may not use: no error")
	}
}
