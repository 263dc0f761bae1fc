package valgrind

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUsesFeatures(t *testing.T) {
	// Lines as go tool objdump prints them.
	dis := []byte(`  sha256block_amd64.s:1234	0x4a1b20	0f38cbca	SHA256RNDS2 X0, X1, X2
  arith_amd64.s:77	0x4b0000	660f38f6c1	ADCXQ AX, CX
  gcm.s:10	0x4c0000	c4e27ddcc1	VAESENC X1, X0, X0
`)
	hidden := []string{"x86.adx", "x86.cpuid.sha", "x86.cpuid.vaes", "x86.avx512bw", "x86.somethingnew"}
	// VAESENC on X registers is AES-NI under VEX, not VAES: only the Y and Z forms need VAES.
	want := []string{"x86.adx", "x86.cpuid.sha", "x86.somethingnew"}
	if diff := cmp.Diff(want, UsesFeatures(dis, hidden)); diff != "" {
		t.Errorf("UsesFeatures (-want +got):\n%s", diff)
	}
	if got := UsesFeatures([]byte("  x.go:1	0x1	c3	RET\n"), []string{"x86.adx", "x86.avx512f"}); got != nil {
		t.Errorf("a binary without the instructions uses %v", got)
	}
	// A host with AVX-VNNI (valgrind 3.19 hides it): a binary without its instructions does not use
	// it.
	if got := UsesFeatures(dis, []string{"x86.avxvnni", "x86.avxifma"}); got != nil {
		t.Errorf("a binary without AVX-VNNI or AVX-IFMA instructions uses %v", got)
	}
	if got := UsesFeatures([]byte("  v.s:1	0x1	c4e27550c2	VPDPBUSD Y2, Y1, Y0\n"), []string{"x86.avxvnni"}); len(got) != 1 {
		t.Errorf("AVX-VNNI code not recognised: %v", got)
	}
	if got := UsesFeatures([]byte("  z.s:1	0x1	62	VPADDD Z1, Z2, Z3\n"), []string{"x86.avx512f"}); len(got) != 1 {
		t.Errorf("AVX-512 code not recognised: %v", got)
	}
}

// TestProbe runs the probe natively and under valgrind. On a host whose kernel reports SHA (sha_ni
// in /proc/cpuinfo), valgrind 3.19 hides it, and the probe must say so. On a host whose CPU lacks
// RDTSCP (no rdtscp in /proc/cpuinfo), valgrind 3.19 still reports it and cannot decode it: the
// probe must find it, turn it off for Go code and quote valgrind's diagnosis; elsewhere that half
// skips with one line.
func TestProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the probe and runs valgrind")
	}
	vg, err := Find(context.Background(), "", "the test needs it")
	if err != nil {
		t.Skip("no valgrind")
	}
	h, err := Probe(context.Background(), vg.Path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s hides %v; reports %v, which the host lacks; off: %v; diagnoses: %v", vg.Version, h.Hidden, h.Phantom,
		h.Off, h.Diagnoses)
	if !slices.IsSorted(h.Hidden) || !slices.IsSorted(h.Phantom) {
		t.Errorf("not sorted: %v, %v", h.Hidden, h.Phantom)
	}
	info, _ := os.ReadFile("/proc/cpuinfo")
	old := strings.HasPrefix(vg.Version, "valgrind-3.19")
	if strings.Contains(string(info), " sha_ni") && old && !slices.Contains(h.Hidden, "x86.cpuid.sha") {
		t.Errorf("this CPU has SHA and %s hides it, but the probe found %v", vg.Version, h.Hidden)
	}
	if strings.Contains(string(info), " rdtscp") {
		if slices.Contains(h.Phantom, "x86.cpuid.rdtscp") {
			t.Errorf("this CPU has RDTSCP, but the probe says it lacks it: %v", h.Phantom)
		}
		t.Log("this CPU has RDTSCP: the switch that keeps Go code off it under valgrind is not exercised here")
		return
	}
	if !old {
		t.Logf("this CPU lacks RDTSCP; %s may not report it", vg.Version)
		return
	}
	if !slices.Contains(h.Phantom, "x86.cpuid.rdtscp") || !slices.Contains(h.Off, "cpu.rdtscp=off") {
		t.Fatalf("this CPU lacks RDTSCP and %s reports it, but the probe found %v, off %v", vg.Version, h.Phantom, h.Off)
	}
	if d := h.Diagnoses["x86.cpuid.rdtscp"]; !strings.Contains(d, "cannot decode RDTSCP (0F 01 F9)") {
		t.Errorf("diagnosis of RDTSCP = %q; want valgrind's decoder named", d)
	}
	if env := h.Env([]string{"A=1", "GODEBUG=x=1"}); !slices.Contains(env, "GODEBUG=x=1,cpu.rdtscp=off") {
		t.Errorf("Env = %v; want the switch added to GODEBUG", env)
	}
}

func TestProbeSysVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "golang.org/x/sys " + probeSysVersion + "\n"; !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %q: update probeSysVersion", strings.TrimSpace(want))
	}
}

// TestSwitchRunsGoUnderValgrind runs a Go program whose runtime contends its locks (where Go 1.26
// reads the cycle counter with RDTSCP, runtime.cputicks: channels, timers and the collector across
// two Ps) under the real valgrind with the probe's switches, three times. On this project's host
// without RDTSCP it died with SIGILL in 3 of 3 runs without them, and ran in 3 of 3 with. Elsewhere
// it skips with one line.
func TestSwitchRunsGoUnderValgrind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program and runs it under valgrind")
	}
	vg, err := Find(context.Background(), "", "the test needs it")
	if err != nil {
		t.Skip("no valgrind")
	}
	if info, _ := os.ReadFile("/proc/cpuinfo"); strings.Contains(string(info), " rdtscp") {
		t.Skip("this CPU has RDTSCP: valgrind decodes it, and the switch has nothing to show here")
	}
	h, err := Probe(context.Background(), vg.Path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := `package main

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

func main() {
	runtime.GOMAXPROCS(2)
	var wg sync.WaitGroup
	ch := make(chan int)
	total := 0
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keep [][]byte
			for i := 0; i < 3000; i++ {
				keep = append(keep, make([]byte, 1024))
				if len(keep) > 64 {
					keep = keep[:0]
				}
				if i%50 == 0 {
					time.Sleep(10 * time.Microsecond)
				}
				ch <- 1
			}
		}()
	}
	go func() { wg.Wait(); close(ch) }()
	for v := range ch {
		total += v
	}
	fmt.Println(total)
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module contend\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "contend")
	if out, err := exec.Command("go", "build", "-C", dir, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	for i := range 3 {
		cmd := exec.Command(vg.Path, "--tool=none", "-q", bin)
		cmd.Env = h.Env(os.Environ())
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "12000" {
			t.Fatalf("run %d under valgrind with %v: %v\n%s", i+1, h.Off, err, out)
		}
	}
}
