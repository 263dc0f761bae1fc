package callgrind

import (
	"maps"
	"strings"
	"testing"
)

// TestReadDumpAddrs keeps the counted instructions by address: crypt's own, its call to memmove at
// the call's address (the call's inclusive cost, as Counted counts it), time.Now's; nothing of the
// runtime's or of an address of no function. They add up to Counted, and without KeepAddrs nothing
// is kept.
func TestReadDumpAddrs(t *testing.T) {
	syms := fakeSymtab()
	got, err := readDump(strings.NewReader(callgrindDump), syms)
	if err != nil || got.addrs != nil {
		t.Fatalf("readDump without KeepAddrs: addrs %v, %v", got.addrs, err)
	}
	syms.KeepAddrs = true
	got, err = readDump(strings.NewReader(callgrindDump), syms)
	if err != nil {
		t.Fatal(err)
	}
	want := AddrCounts{0x1000: 1000, 0x1004: 500, 0x1008: 40, 0x4000: 24}
	if got.addrs == nil || !maps.Equal(*got.addrs, want) {
		t.Errorf("addrs = %v, want %v", got.addrs, want)
	}
	var sum int64
	for _, n := range *got.addrs {
		sum += n
	}
	if sum != got.Counted {
		t.Errorf("addrs add up to %d, Counted is %d", sum, got.Counted)
	}
}

// TestReadDumpAddrsStackCheck: the failed checks' second runs come off at the function's entry, so
// the addresses still add up to Counted.
func TestReadDumpAddrsStackCheck(t *testing.T) {
	syms := fakeSymtab()
	syms.KeepAddrs = true
	syms.check = make([]stackCheck, len(syms.start))
	syms.check[0] = stackCheck{insns: 2, more: 0x1f00, end: 0x1f20}
	dump := "positions: instr\nevents: Ir\nfn=(1) example.com/minides.crypt\n0x1000 12\n0x1004 12\n0x1008 10\n" +
		"0x1f00 2\n0x1f05 2\n0x1ff0 5\n"
	got, err := readDump(strings.NewReader(dump), syms)
	if err != nil {
		t.Fatal(err)
	}
	want := AddrCounts{0x1000: 8, 0x1004: 12, 0x1008: 10, 0x1ff0: 5}
	if !maps.Equal(*got.addrs, want) || got.Counted != 35 {
		t.Errorf("addrs = %v (Counted %d), want %v (35)", *got.addrs, got.Counted, want)
	}
}

// TestTimedCountsAddrs sums the timed segments' addresses per leaf, and PerOpAddrs takes one
// operation from the counts at n and 2n: the loop's body doubles, the set-up does not.
func TestTimedCountsAddrs(t *testing.T) {
	seg := func(trigger string, ran uint8, addrs AddrCounts) Segment {
		var n int64
		for _, x := range addrs {
			n += x
		}
		return Segment{trigger: trigger, Counts: Counts{Counted: n}, ran: ran, entered: ran, addrs: &addrs}
	}
	const R, P = 1 << 0, 1 << 2
	run := func(n int64) []Segment {
		return []Segment{
			// set-up in the timed stretch, then the loop
			seg(trigStop, R, AddrCounts{0x10: 5, 0x20: 3 * n}),
			seg(trigStop, P, AddrCounts{0x30: 1000}),  // untimed
			seg(trigStop, R, AddrCounts{0x20: 2 * n}), // a second timed stretch
			seg(trigResult, P, AddrCounts{0x40: 7}),
		}
	}
	at1, at2 := TimedCounts(run(10)), TimedCounts(run(20))
	if len(at1) != 1 || at1[0].Counted != 5+50 || !maps.Equal(*at1[0].Addrs, AddrCounts{0x10: 5, 0x20: 50}) {
		t.Fatalf("TimedCounts = %+v", at1)
	}
	got := PerOpAddrs(at1[0].Addrs, at2[0].Addrs, 10)
	if want := map[uint64]float64{0x20: 5}; !maps.Equal(got, want) {
		t.Errorf("PerOpAddrs = %v, want %v", got, want)
	}
	if total := float64(at2[0].Counted-at1[0].Counted) / 10; got[0x20] != total {
		t.Errorf("per-address %v does not add up to the total %v", got, total)
	}
}
