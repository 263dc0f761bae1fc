package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The testing package's functions whose entries delimit what a benchmark times (see Args):
// the timer's three methods, and the formatting of a leaf's result, which the testing package calls
// once per result line, after the leaf ran and outside any timed region.
const (
	trigReset  = "testing.(*B).ResetTimer"
	trigStart  = "testing.(*B).StartTimer"
	trigStop   = "testing.(*B).StopTimer"
	trigResult = "testing.BenchmarkResult.String"
)

// triggers lists the trigger functions; a segment's bit set of them follows this order.
var triggers = [...]string{trigReset, trigStart, trigStop, trigResult}

// Args are the valgrind options of a counting run. callgrind (its cache simulation is off
// by default) counts the instructions the program executes, per instruction address
// (--dump-instr=yes), and acts when the testing package enters a trigger function: on ResetTimer
// and StartTimer it drops what it counted so far (--zero-before), on StopTimer and on the
// formatting of a result line it writes what it counted so far to a file and starts afresh
// (--dump-before): out.1, out.2, … in order, and out at the end. So a file that ends at a StopTimer
// and began at a ResetTimer or StartTimer holds exactly a stretch the benchmark timer measured, and
// the files that end at a result line separate the leaves (TimedCounts). Dropping the rest, the
// start-up, the garbage collection runN starts each leaf with, the printing, keeps the files few
// and small: writing them is most of callgrind's cost here.
func Args(out string, cacheSim bool) []string {
	args := []string{"--tool=callgrind", "--callgrind-out-file=" + out, "--dump-instr=yes", "--dump-line=no",
		"--compress-strings=yes", "--compress-pos=no",
		"--zero-before=" + trigReset, "--zero-before=" + trigStart,
		"--dump-before=" + trigStop, "--dump-before=" + trigResult}
	if cacheSim {
		args = append(args, "--cache-sim=yes")
	}
	return args
}

// Segment is one callgrind dump: what the run executed since the last zeroing or dump, up to the
// trigger point that wrote it.
type Segment struct {
	trigger string // the function whose entry wrote the segment, "" for the end of the program
	Counts
	ran     uint8     // bit i: code of triggers[i] executed in the segment
	entered uint8     // bit i: the first instruction of triggers[i] executed in the segment
	At      time.Time // when callgrind wrote it (the file's modification time); zero when unknown
	// addrs is Counted by code address (a helper call's inclusive cost at the call's address), kept
	// only when the symbol table asks for it (Symtab.KeepAddrs); nil otherwise.
	addrs *AddrCounts
}

// AddrCounts is counted instructions by code address; its values add up to the Counted they were
// taken with.
type AddrCounts map[uint64]int64

// addAddr adds n instructions at addr to *c, making the map on first use.
func addAddr(c **AddrCounts, addr uint64, n int64) {
	if n == 0 {
		return
	}
	if *c == nil {
		m := AddrCounts{}
		*c = &m
	}
	(**c)[addr] += n
}

// mergeAddrs adds o's counts into *c.
func mergeAddrs(c **AddrCounts, o *AddrCounts) {
	if o == nil {
		return
	}
	for a, n := range *o {
		addAddr(c, a, n)
	}
}

// Counts is what one stretch of a run executed.
type Counts struct {
	Total   int64 // every instruction
	Counted int64 // the instructions of the code under test (see machineryFunc and helperFunc)
	// Cycles estimates the cycles of the code under test from callgrind's cache simulation, of the
	// same instructions Counted counts (see estCycles); 0 without the cache simulation.
	Cycles int64
	// Rechecks is how many times the code under test failed a stack check (see stackCheck): the
	// instructions that cost are left out of Counted.
	Rechecks int64
}

// readDump reads one callgrind output file written with Args: positions "instr", the
// single event Ir. syms names the function that holds a code address.
//
// Every cost is attributed by its instruction's address, never by the function callgrind files it
// under: callgrind follows calls and returns, and the Go runtime's switches between goroutine and
// system stacks (systemstack, mcall, gogo) and its stack copying confuse it, so that it files now
// and then runtime code that ran on the system stack (a heap growth, say) under the user function
// that was running before. The counted instructions are those at the addresses of functions that
// are not the Go runtime's or the testing package's machinery, plus the cost of the calls such
// functions make to the runtime's helpers that do their work (helperFunc), named by the call's
// source and target addresses. A call line's cost, the inclusive cost of the call, is never added
// to Total.
func readDump(r io.Reader, syms *Symtab) (Segment, error) {
	var s Segment
	var events, call bool
	var cols []int    // the columns of the cache simulation's events (cacheColumns), nil without it
	var target uint64 // the address a calls= line calls
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "desc: Trigger: "):
			if t, ok := strings.CutPrefix(line, "desc: Trigger: --dump-before="); ok {
				s.trigger = t
			}
		case strings.HasPrefix(line, "positions:"):
			if f := strings.Fields(strings.TrimPrefix(line, "positions:")); len(f) != 1 || f[0] != "instr" {
				return s, fmt.Errorf("callgrind output: %q, want positions instr (--dump-instr=yes --dump-line=no)", line)
			}
		case strings.HasPrefix(line, "events:"):
			f := strings.Fields(strings.TrimPrefix(line, "events:"))
			if len(f) == 0 || f[0] != "Ir" {
				return s, fmt.Errorf("callgrind output: events %q, want Ir first", line)
			}
			events, cols = true, cacheColumns(f)
		case strings.HasPrefix(line, "calls="):
			// "calls=COUNT TARGET-ADDRESS"
			f := strings.Fields(strings.TrimPrefix(line, "calls="))
			var err error
			if len(f) < 2 {
				err = errors.New("no target")
			} else {
				target, err = strconv.ParseUint(f[1], 0, 64)
			}
			if err != nil {
				return s, fmt.Errorf("callgrind output: malformed call %q", line)
			}
			call = true
		case strings.HasPrefix(line, "0x"):
			// "ADDRESS IR [DR DW …]": the instructions executed at one address (and, with the cache
			// simulation, its data accesses and misses), or after a calls= line the inclusive cost
			// of the call made there.
			addr, n, err := parseCost(line, cols)
			if err != nil {
				return s, err
			}
			if call {
				s.addCall(syms, addr, target, n)
				call = false
			} else {
				s.add(syms, addr, n)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("reading callgrind output: %w", err)
	}
	if !events {
		return s, errors.New("callgrind output holds no instruction counts")
	}
	return s, nil
}

// addCall adds the inclusive cost n of a call made at addr to target: counted when counted code
// calls one of the runtime's helpers (helperFunc).
func (s *Segment) addCall(syms *Symtab, addr, target uint64, n cost) {
	fn, _ := syms.funcAt(addr)
	if callee, _ := syms.funcAt(target); countedFunc(fn) && helperFunc(callee) {
		s.Counted += n.ir
		s.Cycles += n.cycles
		if syms.KeepAddrs {
			addAddr(&s.addrs, addr, n.ir)
		}
	}
}

// add adds n instructions executed at addr: to Total, to Counted when addr is in counted code, and
// to the trigger bits when it is in a trigger function.
func (s *Segment) add(syms *Symtab, addr uint64, cn cost) {
	fn, trig := syms.funcAt(addr)
	n := cn.ir
	s.Total += n
	if countedFunc(fn) {
		// A stack check that failed (see stackCheck): its more block is left out, and so is the
		// second run of the check it leads to (in the estimate, as that many L1 hits).
		switch c := syms.checkOf(addr); {
		case addr < c.more || addr >= c.end:
			s.Counted += n
			s.Cycles += cn.cycles
			if syms.KeepAddrs {
				addAddr(&s.addrs, addr, n)
			}
		case addr == c.more:
			s.Counted -= c.insns * n
			if syms.KeepAddrs { // the check's second run, taken off at the function's entry
				if i := syms.index(addr); i >= 0 {
					addAddr(&s.addrs, syms.start[i], -c.insns*n)
				}
			}
			if cn.cycles > 0 { // with the cache simulation
				s.Cycles -= c.insns * n
			}
			s.Rechecks += n
		}
	}
	if trig >= 0 && n > 0 {
		s.ran |= 1 << trig
		if addr == syms.triggerAt[trig] {
			s.entered |= 1 << trig
		}
	}
}

// cost is what one line of a callgrind dump says ran at one address: instructions, and the
// estimated cycles (estCycles) when the dump has the cache simulation's events.
type cost struct{ ir, cycles int64 }

// The cache simulation's events (callgrind --cache-sim=yes), in the order cacheColumns returns
// their columns.
var cacheEvents = [...]string{"Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"}

// cacheColumns returns the column of each of cacheEvents in a dump's events (Ir first), or nil when
// any is missing: then the dump has no cache simulation.
func cacheColumns(events []string) []int {
	cols := make([]int, len(cacheEvents))
	for i, e := range cacheEvents {
		if cols[i] = slices.Index(events, e); cols[i] < 0 {
			return nil
		}
	}
	return cols
}

// parseCost parses a cost line "ADDRESS IR [EVENT …]"; cols are the cache events' columns
// (cacheColumns), nil when there are none. callgrind leaves out trailing zero events. A dump has a
// line per executed address, so this allocates nothing.
func parseCost(line string, cols []int) (uint64, cost, error) {
	a, rest, _ := strings.Cut(line, " ")
	addr, err := strconv.ParseUint(a, 0, 64)
	if err != nil || strings.TrimSpace(rest) == "" {
		return 0, cost{}, fmt.Errorf("callgrind output: malformed line %q", line)
	}
	var v [16]int64 // Ir and the events after it; callgrind's cache simulation writes 9 in all
	n := 0
	for f := range strings.FieldsSeq(rest) {
		if n == len(v) {
			return 0, cost{}, fmt.Errorf("callgrind output: more than %d events in %q", len(v), line)
		}
		if v[n], err = strconv.ParseInt(f, 10, 64); err != nil {
			return 0, cost{}, fmt.Errorf("callgrind output: malformed count in %q", line)
		}
		n++
	}
	c := cost{ir: v[0]}
	if cols != nil {
		var ev [len(cacheEvents)]int64
		for i, col := range cols {
			if col < n {
				ev[i] = v[col]
			}
		}
		c.cycles = estCycles(v[0], ev[:])
	}
	return addr, c, nil
}

// estCycles estimates cycles from instructions and the cache simulation's events (in cacheEvents
// order) with the weights gungraun uses: an L1 hit 1 cycle, a last-level hit 5, a miss to memory
// 35. Every instruction fetch and data access is one L1 access. The estimate sees cache misses the
// instruction count does not; it does not see latency (a DIV and an ADD cost the same) or the
// pipeline.
func estCycles(ir int64, ev []int64) int64 {
	accesses := ir + ev[0] + ev[1]
	l1miss := ev[2] + ev[3] + ev[4]
	llmiss := ev[5] + ev[6] + ev[7]
	return (accesses - l1miss) + 5*(l1miss-llmiss) + 35*llmiss
}

// ReadDumps reads and removes the dumps of the callgrind run whose --callgrind-out-file was out:
// out.1, out.2, … in order, then out, written at the end of the program (absent when the program
// was killed).
func ReadDumps(out string, syms *Symtab) ([]Segment, error) {
	var segs []Segment
	read := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer os.Remove(path)
		defer f.Close()
		s, err := readDump(f, syms)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		if info, err := f.Stat(); err == nil {
			s.At = info.ModTime()
		}
		segs = append(segs, s)
		return nil
	}
	for i := 1; ; i++ {
		err := read(out + "." + strconv.Itoa(i))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return segs, err
		}
	}
	if err := read(out); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return segs, err
	}
	return segs, nil
}

// CallsTo returns how many calls to the function at target a callgrind dump (positions "instr")
// records from code under test (countedFunc), by the address of each call instruction.
func CallsTo(r io.Reader, syms *Symtab, target uint64) (int64, error) {
	var total, pending int64
	call := false
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "calls="):
			f := strings.Fields(strings.TrimPrefix(line, "calls="))
			call = false
			if len(f) < 2 {
				return 0, fmt.Errorf("callgrind output: malformed call %q", line)
			}
			to, err := strconv.ParseUint(f[1], 0, 64)
			if err != nil {
				return 0, fmt.Errorf("callgrind output: malformed call %q", line)
			}
			if to == target {
				if pending, err = strconv.ParseInt(f[0], 10, 64); err != nil {
					return 0, fmt.Errorf("callgrind output: malformed call %q", line)
				}
				call = true
			}
		case call && strings.HasPrefix(line, "0x"):
			a, _, _ := strings.Cut(line, " ")
			addr, err := strconv.ParseUint(a, 0, 64)
			if err != nil {
				return 0, fmt.Errorf("callgrind output: malformed line %q", line)
			}
			if fn, _ := syms.funcAt(addr); countedFunc(fn) {
				total += pending
			}
			call = false
		default:
			call = call && !strings.HasPrefix(line, "0x")
		}
	}
	return total, sc.Err()
}

// LeafCount is the timed count of one result line: the counted instructions of the stretches its
// benchmark timed, and whether callgrind lost track of the timer on the way (lost).
type LeafCount struct {
	Counted int64
	// the estimate of the same instructions (Counts.Cycles), 0 without the cache simulation
	Cycles int64
	// Addrs is counted by address (Segment.addrs), nil unless the symbol table keeps addresses.
	Addrs *AddrCounts
	Lost  bool
	// Wall is the wall-clock time from the dump before each timed stretch to the dump that ended
	// it, added up: the stretch under callgrind, runtime and kernel included, with the untimed work
	// since the previous dump (runN's garbage collection, the benchmark's set-up). 0 when the
	// dumps' times are unknown.
	Wall time.Duration
	// Timed is how many segments ran the code of ResetTimer or StartTimer (lost ones included): 1
	// for a benchmark that never stops its timer, in a process that runs it once at 1 iteration;
	// more when it stops and starts it, in its loop or around a set-up (lane.timerInLoop tells
	// which).
	Timed int
}

// TimedCounts returns, for each result line the run printed (in order), the counted instructions of
// the stretches its benchmark timed: what the printed ns/op measures, plus, for a b.N benchmark,
// its first run at b.N = 1, since a reset of the timer that the next zeroing follows leaves no
// trace (see benchrun's minInstrIters).
//
// Every trigger point leaves its function's code at the start of the segment that follows it (the
// dump or zeroing happens as the function is entered), so the trigger functions whose code ran in a
// segment say how it began: a segment that ran ResetTimer's or StartTimer's code began when the
// timer was reset or started and is timed; one that ran StopTimer's or the result formatting's
// began when the timer stopped, or after a result, and is not. A segment that ran the code of two
// trigger functions has a trigger point callgrind missed, as happens when the Go runtime copies a
// goroutine's stack or switches stacks under a trigger function, which leaves callgrind thinking
// that function is still running. Its leaf's count is then lost, never guessed. callgrind may also
// report a trigger function entered a second time in the middle of its code, after a switch to the
// system stack within it: a second zeroing changes nothing, a second dump of the result formatting
// (a segment that began at its first instruction and ends at it again) is not another result.
func TimedCounts(segs []Segment) []LeafCount {
	const timer = 1<<0 | 1<<1 // ResetTimer, StartTimer
	var out []LeafCount
	var cur LeafCount
	for i, s := range segs {
		switch {
		case bits.OnesCount8(s.ran) > 1:
			cur.Lost = true
		case s.ran&timer != 0:
			cur.Counted += s.Counted
			cur.Cycles += s.Cycles
			mergeAddrs(&cur.Addrs, s.addrs)
		}
		if s.ran&timer != 0 {
			cur.Timed++
			if i > 0 && !s.At.IsZero() && !segs[i-1].At.IsZero() {
				cur.Wall += s.At.Sub(segs[i-1].At)
			}
		}
		if s.trigger == trigResult && s.entered&(1<<3) == 0 {
			out = append(out, cur)
			cur = LeafCount{}
		}
	}
	return out
}

// PerOpAddrs is the per-address count of one operation, from the counts at n and 2n iterations: (at
// 2n − at n) / n, as the lane takes the total. Addresses whose difference is 0 are left out.
func PerOpAddrs(at1, at2 *AddrCounts, n int) map[uint64]float64 {
	out := map[uint64]float64{}
	if at2 != nil {
		for a, x := range *at2 {
			out[a] = float64(x)
		}
	}
	if at1 != nil {
		for a, x := range *at1 {
			out[a] -= float64(x)
		}
	}
	for a, x := range out {
		if x == 0 {
			delete(out, a)
		} else {
			out[a] = x / float64(n)
		}
	}
	return out
}
