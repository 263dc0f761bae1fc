package abba

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// allocEnv makes this test binary, run with -test.run=TestHelperAlloc, allocate and touch that many
// MiB.
const allocEnv = "ABBA_TEST_ALLOC_MIB"

// held keeps the parent's own allocation reachable while its children run.
var held []byte

func TestHelperAlloc(t *testing.T) {
	mib, err := strconv.Atoi(os.Getenv(allocEnv))
	if err != nil {
		t.Skip("a helper process for TestLauncherPeakRSS")
	}
	b := make([]byte, mib<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	held = b
}

// runPeak runs this test binary's TestHelperAlloc allocating mib MiB, directly or through the
// launcher, and returns its peak RSS as perfgate would record it.
func runPeak(t *testing.T, mib int, launched bool) int64 {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-test.run=^TestHelperAlloc$"}
	env := append(os.Environ(), allocEnv+"="+strconv.Itoa(mib))
	if !launched {
		cmd := exec.Command(self, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return PeakRSS(cmd.ProcessState)
	}
	return runLaunched(t, mib).PeakRSS
}

// runFaults runs TestHelperAlloc allocating mib MiB through the launcher and returns its minor
// page faults.
func runFaults(t *testing.T, mib int) int64 { return runLaunched(t, mib).MinorFaults }

// runLaunched runs this test binary's TestHelperAlloc allocating mib MiB through the launcher and
// returns the launcher's report.
func runLaunched(t *testing.T, mib int) LaunchReport {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-test.run=^TestHelperAlloc$"}
	env := append(os.Environ(), allocEnv+"="+strconv.Itoa(mib))
	launcher, err := BuildLauncher(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(launcher, append([]string{self}, args...)...)
	cmd.Env = env
	cmd.ExtraFiles = []*os.File{w}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	report, _ := readAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if !strings.Contains(out.String(), "PASS") {
		t.Fatalf("the helper did not run through the launcher: %s", out.String())
	}
	t.Logf("launcher report %q", strings.TrimSpace(string(report)))
	return ParseLaunchReport(report)
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

// TestLauncherPeakRSS: with this process holding 160 MiB, a child that allocates 64 MiB reports
// this process's peak when started directly (PeakRSS hides it: nothing), and its own peak, 64 MiB
// and the Go runtime's few MiB, through the launcher; a child that allocates nothing reports a few
// MiB, not nothing.
func TestLauncherPeakRSS(t *testing.T) {
	held = make([]byte, 160<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	const mib = 1 << 20
	direct := runPeak(t, 64, false)
	big := runPeak(t, 64, true)
	small := runPeak(t, 0, true)
	t.Logf("64 MiB child: direct %.1f MiB, launched %.1f MiB; empty child launched %.1f MiB",
		float64(direct)/mib, float64(big)/mib, float64(small)/mib)
	if direct != 0 && direct < 160*mib {
		t.Errorf("direct child reported %.1f MiB: the inherited high-water mark is no longer there; "+
			"the launcher may be unneeded", float64(direct)/mib)
	}
	if big < 64*mib || big > 64*mib+24*mib {
		t.Errorf("launched 64 MiB child: %.1f MiB, want 64 to 88 MiB", float64(big)/mib)
	}
	if small <= 0 || small > 24*mib {
		t.Errorf("launched empty child: %.1f MiB, want a few MiB", float64(small)/mib)
	}
}

func TestParseLaunchReport(t *testing.T) {
	for in, want := range map[string]LaunchReport{
		"maxrss 71303168 3145728 minflt 1875\n": {71303168, 1875},
		// no higher than the launcher's own: may be the launcher's
		"maxrss 3145728 3145728 minflt 900": {0, 900},
		"maxrss x 1 minflt 3":               {0, -1},
		"":                                  {0, -1},
		"maxrss 5 4 3":                      {0, -1},
		"maxrss 71303168 3145728":           {0, -1}, // a launcher of before the faults
		"maxrss 71303168 3145728 minflt -2": {0, -1},
	} {
		if got := ParseLaunchReport([]byte(in)); got != want {
			t.Errorf("ParseLaunchReport(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// TestLauncherFaults: a child that touches 64 MiB of fresh memory reports at least one minor fault
// per 4 KiB page of it through the launcher (huge pages would make it fewer: then this is skipped).
func TestLauncherFaults(t *testing.T) {
	big, small := runFaults(t, 64), runFaults(t, 0)
	t.Logf("minor faults: 64 MiB child %d, empty child %d", big, small)
	if small < 0 || big < 0 {
		t.Fatalf("faults unknown: %d, %d", big, small)
	}
	if big-small < (64<<20)/4096/2 {
		t.Skipf("64 MiB cost %d faults more than nothing: huge pages?", big-small)
	}
}
