package abba

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// TestPeakRSSNotInherited: a child started while this process holds a large heap must not report
// this process's peak as its own (a vfork child inherits the shared memory's high-water mark), and
// a child that really uses more memory than this process reports at least that.
func TestPeakRSSNotInherited(t *testing.T) {
	ballast := make([]byte, 96<<20)
	for i := range ballast {
		if i%4096 == 0 {
			ballast[i] = 1
		}
	}
	run := func(touch int64) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSChild$")
		cmd.Env = append(os.Environ(), "PERFGATE_TOUCH="+strconv.FormatInt(touch, 10))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return PeakRSS(cmd.ProcessState)
	}
	if got := run(1 << 20); got != 0 {
		t.Errorf("a child touching 1 MiB reports a peak RSS of %d bytes: this process's %d MiB ballast, not its own", got, len(ballast)>>20)
	}
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		t.Fatal(err)
	}
	big := self.Maxrss*1024 + 64<<20
	if got := run(big); got < big {
		t.Errorf("a child touching %d bytes reports a peak RSS of %d bytes", big, got)
	}
	ballast[len(ballast)-1] = 2 // keep the ballast alive until here
}

// TestPeakRSSChild is the child of TestPeakRSSNotInherited: it touches PERFGATE_TOUCH bytes.
func TestPeakRSSChild(t *testing.T) {
	n, err := strconv.ParseInt(os.Getenv("PERFGATE_TOUCH"), 10, 64)
	if err != nil {
		t.Skip("the child of TestPeakRSSNotInherited")
	}
	b := make([]byte, n)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
}
