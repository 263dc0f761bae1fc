package abba

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

func TestScheduleTwoBenchmarksTwoRounds(t *testing.T) {
	// The documented order: per round, each benchmark's A B B A back to back.
	want := []Entry{
		{0, 0, 0, record.Base}, {0, 0, 1, record.Head}, {0, 0, 2, record.Head}, {0, 0, 3, record.Base},
		{1, 0, 0, record.Base}, {1, 0, 1, record.Head}, {1, 0, 2, record.Head}, {1, 0, 3, record.Base},
		{0, 1, 0, record.Base}, {0, 1, 1, record.Head}, {0, 1, 2, record.Head}, {0, 1, 3, record.Base},
		{1, 1, 0, record.Base}, {1, 1, 1, record.Head}, {1, 1, 2, record.Head}, {1, 1, 3, record.Base},
	}
	got := Schedule(2, 2)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Schedule(2, 2) mismatch (-want +got):\n%s", diff)
	}
}

func TestScheduleDeterministicAndBalanced(t *testing.T) {
	const n, rounds = 5, 7
	first := Schedule(n, rounds)
	if diff := cmp.Diff(first, Schedule(n, rounds)); diff != "" {
		t.Fatalf("two calls differ:\n%s", diff)
	}
	if len(first) != n*rounds*4 {
		t.Fatalf("len = %d, want %d", len(first), n*rounds*4)
	}
	type benchSide struct {
		bench int
		side  record.Side
	}
	count := map[benchSide]int{} // (bench, side) → runs
	for i, e := range first {
		if e.Side != Slots[e.Slot] {
			t.Errorf("entry %d: side %v in slot %d", i, e.Side, e.Slot)
		}
		count[benchSide{e.Bench, e.Side}]++
	}
	for b := range n {
		for _, s := range []record.Side{record.Base, record.Head} {
			if got := count[benchSide{b, s}]; got != 2*rounds {
				t.Errorf("benchmark %d side %v: %d runs, want %d", b, s, got, 2*rounds)
			}
		}
	}
}

func TestScheduleEmpty(t *testing.T) {
	for _, c := range [][2]int{{0, 5}, {3, 0}, {-1, 2}} {
		if got := Schedule(c[0], c[1]); len(got) != 0 {
			t.Errorf("Schedule(%d, %d) = %d entries, want none", c[0], c[1], len(got))
		}
	}
}

func TestSides(t *testing.T) {
	if record.Base != "base" || record.Head != "head" {
		t.Errorf("A, B = %q, %q; want base, head (the sides result.json names)", record.Base, record.Head)
	}
}
