package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/record"
)

func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf)
	if p.tty {
		t.Fatal("a bytes.Buffer is not a terminal")
	}
	p.Calibrating("Encrypt")
	p.Running("Encrypt/des/single", record.Head, 0, 5, 1, 40, time.Minute)
	p.RoundDone(0, 5, 12*time.Second, 48*time.Second)
	p.Failed(record.Failure{Name: "Hang", Side: record.Head, Round: 2, Slot: 2, Kind: record.FailureTimeout, Message: "killed\nmore"})
	p.Looked(1, 3, 1, 2, 10*time.Second)
	p.Looked(2, 6, 2, 0, 0)
	p.Done(38, 1, time.Minute)
	want := "perfgate: calibrating Encrypt\n" +
		"perfgate: round 1/5 done after 12s, ETA 48s\n" +
		"perfgate: Hang failed on head (round 2 slot 2, timeout): killed\n" +
		"perfgate: stage 1 (3 rounds): 1 more benchmark settled, 2 still timed, 10s of budget left\n" +
		"perfgate: stage 2 (6 rounds): 2 more benchmarks settled, 0 still timed, 0s of budget left\n" +
		"perfgate: 38 samples, 1 failure in 1m0s\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestProgressTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &Reporter{w: &buf, tty: true}
	p.Running("Encrypt/des/single", record.Head, 0, 5, 1, 40, 61*time.Second)
	p.Running("Encrypt/"+strings.Repeat("x", 100), record.Base, 0, 5, 2, 40, time.Minute)
	p.RoundDone(0, 5, time.Second, time.Second) // shown on the line already
	p.Warn("w")
	want := "\r\033[K[2/40] round 1/5 head Encrypt/des/single, ETA 1m1s" +
		"\r\033[K[3/40] round 1/5 base Encrypt/" + strings.Repeat("x", 79-len("[3/40] round 1/5 base Encrypt/")-1) + "…" +
		"\r\033[Kperfgate: warning: w\n"
	if got := buf.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
	if tty, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		// /dev/null is a character device, which is what the check looks for.
		if !isTerminal(tty) {
			t.Error("/dev/null is a character device")
		}
	}
}
