// Package abba plans and starts the child processes of an interleaved A–B–B–A benchmark comparison.
//
// It knows nothing about Go tooling: it deals in benchmark indexes, rounds, slots and *exec.Cmd
// values.
//
// Data flows through it in two steps. Schedule turns "n benchmarks, R rounds" into the exact,
// deterministic order of runs: in each round every benchmark runs A B B A (A is the base revision,
// B the head) back to back, then the next benchmark. Keeping a benchmark's four runs adjacent in
// time means the machine's state (frequency, thermal, neighbours on a shared runner) is as similar
// as possible within a round, which is what a paired estimator that compares head with base round
// by round needs; repeating the whole sweep R times spreads the rounds across the run so slow drift
// shows up between rounds rather than between sides.
//
// Choose then decides where the children run: on Linux one CPU (by default the last CPU this
// process may use, since CPU 0 takes more interrupts), and Start starts each child on it. Pinning
// works by locking a fresh goroutine to its OS thread, setting that thread's affinity, and starting
// the child from it: the child inherits the mask at fork. The thread is never unlocked, so when the
// goroutine ends the Go runtime discards the thread instead of reusing it, and no other goroutine
// of this process ever runs with the narrowed mask. Start reads the child's Cpus_allowed_list from
// /proc right after it starts, so the pinning is verified, not assumed. Where affinity is not
// available (macOS, Windows) children run unpinned and the Pinning says why.
package abba

import "github.com/perfgate/perfgate/record"

// Slots is the order of the sides within one round of one benchmark: A B B A. An entry's Slot
// indexes it.
var Slots = [4]record.Side{record.Base, record.Head, record.Head, record.Base}

// Entry is one run of the schedule.
type Entry struct {
	Bench int         // index of the benchmark, 0..n-1, as given to Schedule
	Round int         // 0-based round
	Slot  int         // 0..3: the position in the benchmark's A B B A of this round
	Side  record.Side // Slots[Slot]
}

// Schedule returns the runs of n benchmarks over rounds rounds, in the order they are to be run:
// round 0 first; within a round benchmark 0's A B B A, then benchmark 1's, and so on. The result
// has n×rounds×4 entries and depends on nothing but n and rounds. Non-positive n or rounds give an
// empty schedule.
func Schedule(n, rounds int) []Entry {
	if n <= 0 || rounds <= 0 {
		return nil
	}
	out := make([]Entry, 0, n*rounds*len(Slots))
	for r := range rounds {
		for b := range n {
			for slot, side := range Slots {
				out = append(out, Entry{Bench: b, Round: r, Slot: slot, Side: side})
			}
		}
	}
	return out
}
