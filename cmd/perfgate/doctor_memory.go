package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// pageCost is what a touch of memory costs on this machine, per page, over a span of rounds.
type pageCost struct {
	First      time.Duration // the median first touch of a fresh page (a page fault)
	Lo, Hi     time.Duration // the cheapest and dearest round's first touches
	Mapped     time.Duration // the median touch of a page already mapped
	Rounds     int
	Span       time.Duration // from the first round to the last
	RegionSize int           // bytes mapped a round
}

// pageRegion is what memoryCheck maps a round: 32 MiB, 8,192 pages of 4 KiB, a heap's growth of a
// few collections.
const pageRegion = 32 << 20

// measurePages maps a fresh anonymous region, touches one byte of each page (each touch a page
// fault, which on a VM whose host reclaims guest memory can cost a VM exit), touches them again
// (mapped now), unmaps it and waits a little, for span: the host's memory cost drifts within
// seconds. Transparent huge pages are asked off the region, so that each 4 KiB page faults as a Go
// heap's growth does.
func measurePages(span time.Duration) (pageCost, error) {
	ps := os.Getpagesize()
	var first, mapped []time.Duration
	start := time.Now()
	for len(first) < 3 || time.Since(start) < span {
		b, err := unix.Mmap(-1, 0, pageRegion, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			return pageCost{}, fmt.Errorf("mapping %d MiB: %w", pageRegion>>20, err)
		}
		// a kernel without transparent huge pages has nothing to turn off
		unix.Madvise(b, unix.MADV_NOHUGEPAGE) //nolint:errcheck
		n := time.Duration(len(b) / ps)
		t0 := time.Now()
		for i := 0; i < len(b); i += ps {
			b[i] = 1
		}
		t1 := time.Now()
		for i := 0; i < len(b); i += ps {
			b[i]++
		}
		t2 := time.Now()
		if err := unix.Munmap(b); err != nil {
			return pageCost{}, fmt.Errorf("unmapping: %w", err)
		}
		first = append(first, t1.Sub(t0)/n)
		mapped = append(mapped, t2.Sub(t1)/n)
		time.Sleep(span / 20)
	}
	return summarizePages(first, mapped, time.Since(start)), nil
}

// summarizePages makes a pageCost of the rounds' per-page times.
func summarizePages(first, mapped []time.Duration, span time.Duration) pageCost {
	f, m := slices.Sorted(slices.Values(first)), slices.Sorted(slices.Values(mapped))
	return pageCost{First: f[len(f)/2], Lo: f[0], Hi: f[len(f)-1], Mapped: m[len(m)/2], Rounds: len(f), Span: span,
		RegionSize: pageRegion}
}

// expensiveTouch is the first touch of a page above which doctor hints that allocating benchmarks
// need longer runs: about ten times a bare-metal page fault.
const expensiveTouch = time.Microsecond

// memoryCheck is doctor's line about the host's memory: what a first touch of a page costs, its
// spread, how that compares with a touch of a mapped page, and what it means for benchmarks that
// allocate.
func memoryCheck(c pageCost) doctorCheck {
	ratio := float64(c.First) / float64(max(c.Mapped, 1))
	d := doctorCheck{Name: "memory", Status: "info", Detail: fmt.Sprintf("first touch of a page costs %s (%s–%s over "+
		"%s, %d rounds of %d MiB), %s× a touch of a mapped page (%s): an allocating benchmark pays it until its heap "+
		"stops growing, so perfgate warms each process at the run's iteration count before timing it, and bench.txt's "+
		"faults/op shows what each run still paid", short(c.First), short(c.Lo), short(c.Hi),
		c.Span.Round(100*time.Millisecond), c.Rounds, c.RegionSize>>20, strconv.FormatFloat(ratio, 'f', 0, 64),
		short(c.Mapped))}
	if c.First > expensiveTouch {
		d.Hint = "first touches are dear here (a VM whose host reclaims guest memory?): allocating benchmarks need " +
			"longer runs; raise -benchtime or -budget, and read faults/op in bench.txt"
	}
	return d
}

// short is d in two significant digits: 2.1µs, 52ns.
func short(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return strconv.FormatFloat(float64(d)/1e6, 'g', 2, 64) + "ms"
	case d >= time.Microsecond:
		return strconv.FormatFloat(float64(d)/1e3, 'g', 2, 64) + "µs"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}
