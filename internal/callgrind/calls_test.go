package callgrind

import (
	"strings"
	"testing"
	"time"
)

// TestCallsTo reads the call counts of a callgrind dump: calls to the target from code under test
// count, calls from the testing package and calls to other functions do not.
func TestCallsTo(t *testing.T) {
	syms := &Symtab{start: []uint64{0x1000, 0x2000, 0x3000}, end: []uint64{0x1100, 0x2100, 0x3100},
		name:    []string{"example.com/p.BenchmarkPaused", "testing.(*B).runN", "testing.(*B).StopTimer"},
		trigger: []int8{-1, -1, 2}}
	dump := `version: 1
positions: instr
events: Ir
fn=(1) example.com/p.BenchmarkPaused
0x1000 3
calls=7 0x3000
0x1010 70
calls=2 0x2000
0x1020 5
fn=(2) testing.(*B).runN
calls=2 0x3000
0x2010 20
`
	got, err := CallsTo(strings.NewReader(dump), syms, 0x3000)
	if err != nil || got != 7 {
		t.Errorf("callsTo = %d, %v; want 7 (runN's 2 calls are the testing package's)", got, err)
	}
}

// TestTimedCountsWall: a leaf's wall time is that of its timed stretches, each from the dump before
// it.
func TestTimedCountsWall(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	segs := []Segment{
		{trigger: trigStop, At: at(0)},               // start-up
		{trigger: trigStop, ran: 1 << 1, At: at(60)}, // timed, from StartTimer: 60 ms
		// runN's StopTimer to the result
		{trigger: trigResult, ran: 1 << 2, At: at(70)},
		{trigger: trigStop, ran: 1 << 0, At: at(75)},               // the next leaf: 5 ms
		{trigger: trigResult, ran: 1 << 2, entered: 0, At: at(76)}, // its result
	}
	got := TimedCounts(segs)
	if len(got) != 2 || got[0].Wall != 60*time.Millisecond || got[1].Wall != 5*time.Millisecond {
		t.Errorf("TimedCounts = %+v, want walls of 60 ms and 5 ms", got)
	}
}
