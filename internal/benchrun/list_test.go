package benchrun

import (
	"testing"

	"github.com/perfgate/perfgate/internal/benchtxt"
)

func TestChildFailure(t *testing.T) {
	c := &child{stdout: []byte("BenchmarkHang\t"), timedOut: true, idle: 3e9, limit: 15e9}
	if kind, msg := c.failure(); kind != "timeout" || msg != "killed after printing nothing for 3s\nBenchmarkHang\t" {
		t.Errorf("timeout: %q %q", kind, msg)
	}
	c = &child{stdout: []byte("BenchmarkDots\t....."), overran: true, idle: 3e9, limit: 15e9}
	if kind, msg := c.failure(); kind != "timeout" || msg != "killed after its wall-clock limit of 15s\nBenchmarkDots\t....." {
		t.Errorf("wall-clock limit: %q %q", kind, msg)
	}
	c = &child{stderr: []byte("panic: x\n")}
	if kind, msg := c.failure(); kind != "panic" || msg != "panic: x" {
		t.Errorf("panic: %q %q", kind, msg)
	}
	if kind, _ := (&child{stdout: []byte("PASS\n")}).failure(); kind != "" {
		t.Errorf("success classified as %q", kind)
	}
}

// TestSplit: a measured run is SubRuns sub-runs of a share of its iterations each, fewer for a leaf
// of fewer iterations; a whole leaf (lengthened for the steady state) is one call of all of them.
func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		l           leaf
		runs, iters int
	}{
		{leaf{iters: 1000}, benchtxt.SubRuns, 1000 / benchtxt.SubRuns},
		{leaf{iters: 3}, 3, 1},
		{leaf{iters: 0}, 1, 1},
		{leaf{iters: 8, whole: true}, 1, 8},
		{leaf{iters: 0, whole: true}, 1, 1},
	} {
		if runs, iters := tt.l.split(); runs != tt.runs || iters != tt.iters {
			t.Errorf("%+v: split %d×%d, want %d×%d", tt.l, runs, iters, tt.runs, tt.iters)
		}
	}
}
