package benchrun

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testmod"
)

// rssTest has a benchmark that allocates and touches 64 MiB, held for the whole process, and one
// that allocates nothing.
const rssTest = `package rss

import "testing"

var held []byte

func BenchmarkBig(b *testing.B) {
	if held == nil {
		held = make([]byte, 64<<20)
		for i := 0; i < len(held); i += 4096 {
			held[i] = 1
		}
	}
	for i := 0; i < b.N; i++ {
		held[i%len(held)]++
	}
}

func BenchmarkSmall(b *testing.B) {
	x := 0
	for i := 0; i < b.N; i++ {
		x += i
	}
	_ = x
}
`

// ballast holds TestPeakRSS's own memory while its children run.
var ballast []byte

// TestPeakRSS: each benchmark process reports its own peak, through the launcher, whatever
// perfgate's own peak is: a benchmark holding 64 MiB reports 64 MiB and the Go runtime's few MiB
// (before the launcher, 132 MiB here), and a small one a few MiB (before, nothing). Analyze
// compares the peak as a unit of its own.
func TestPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the launcher is for Linux")
	}
	ballast = make([]byte, 160<<20) // this process's peak, which a direct child would inherit
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	defer func() { ballast = nil }()
	dir := testmod.Temp(t, map[string]string{"go.mod": testmod.GoMod("example.com/rss", "1.26"), "rss_test.go": rssTest})
	bin := filepath.Join(dir, "rss.test")
	cmd := proc.Command(context.Background(), dir, []string{"GOWORK=off"}, "go", "test", "-c", "-trimpath", "-o", bin, ".")
	if _, _, err := proc.Run(cmd); err != nil {
		t.Fatalf("building fixture: %v", err)
	}
	b := Binary{Path: bin, Dir: dir}
	var log bytes.Buffer
	run, err := RunABBA(context.Background(), RunConfig{Base: b, Head: b, Rounds: 2, BenchTime: 2 * time.Millisecond,
		CPU: -1, Timeout: 20 * time.Second, Progress: &log})
	if err != nil {
		t.Fatalf("RunABBA: %v\n%s", err, log.String())
	}
	const mib = 1 << 20
	for _, s := range run.Samples {
		lo, hi := int64(64*mib), int64(88*mib)
		if s.Name == "Small" {
			lo, hi = 1, 24*mib
		}
		if s.PeakRSS < lo || s.PeakRSS > hi {
			t.Errorf("%s %s round %d: peak %.1f MiB, want %.0f to %.0f MiB", s.Name, s.Side, s.Round,
				float64(s.PeakRSS)/mib, float64(lo)/mib, float64(hi)/mib)
		}
	}
	cs, err := bench.Analyze(run.Samples, bench.DefaultStatsOptions)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, c := range cs {
		if c.Unit != benchtxt.UnitPeakRSS {
			continue
		}
		rows++
		t.Logf("%s: base %.1f MiB, head %.1f MiB, %s", c.Name, c.Base.Center/mib, c.Head.Center/mib, c.Class)
		if c.Base.N != 4 || c.Head.N != 4 || c.Class == "failed" {
			t.Errorf("%s %s: %d and %d samples, class %s", c.Name, c.Unit, c.Base.N, c.Head.N, c.Class)
		}
	}
	if rows != 2 {
		t.Errorf("%d rows of %s, want one per benchmark", rows, benchtxt.UnitPeakRSS)
	}
}
