package benchrun

import (
	"bufio"
	"cmp"
	"debug/elf"
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

	"golang.org/x/arch/x86/x86asm"
)

// The testing package's functions whose entries delimit what a benchmark times (see callgrindArgs):
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

// callgrindArgs are the valgrind options of a counting run. callgrind (its cache simulation is off
// by default) counts the instructions the program executes, per instruction address
// (--dump-instr=yes), and acts when the testing package enters a trigger function: on ResetTimer
// and StartTimer it drops what it counted so far (--zero-before), on StopTimer and on the
// formatting of a result line it writes what it counted so far to a file and starts afresh
// (--dump-before): out.1, out.2, … in order, and out at the end. So a file that ends at a StopTimer
// and began at a ResetTimer or StartTimer holds exactly a stretch the benchmark timer measured, and
// the files that end at a result line separate the leaves (timedCounts). Dropping the rest, the
// start-up, the garbage collection runN starts each leaf with, the printing, keeps the files few
// and small: writing them is most of callgrind's cost here.
func callgrindArgs(out string, cacheSim bool) []string {
	args := []string{"--tool=callgrind", "--callgrind-out-file=" + out, "--dump-instr=yes", "--dump-line=no",
		"--compress-strings=yes", "--compress-pos=no",
		"--zero-before=" + trigReset, "--zero-before=" + trigStart,
		"--dump-before=" + trigStop, "--dump-before=" + trigResult}
	if cacheSim {
		args = append(args, "--cache-sim=yes")
	}
	return args
}

// segment is one callgrind dump: what the run executed since the last zeroing or dump, up to the
// trigger point that wrote it.
type segment struct {
	trigger string // the function whose entry wrote the segment, "" for the end of the program
	Counts
	ran     uint8     // bit i: code of triggers[i] executed in the segment
	entered uint8     // bit i: the first instruction of triggers[i] executed in the segment
	at      time.Time // when callgrind wrote it (the file's modification time); zero when unknown
	// addrs is Counted by code address (a helper call's inclusive cost at the call's address), kept
	// only when the symbol table asks for it (symtab.keepAddrs); nil otherwise.
	addrs *addrCounts
}

// addrCounts is counted instructions by code address; its values add up to the Counted they were
// taken with.
type addrCounts map[uint64]int64

// addAddr adds n instructions at addr to *c, making the map on first use.
func addAddr(c **addrCounts, addr uint64, n int64) {
	if n == 0 {
		return
	}
	if *c == nil {
		m := addrCounts{}
		*c = &m
	}
	(**c)[addr] += n
}

// mergeAddrs adds o's counts into *c.
func mergeAddrs(c **addrCounts, o *addrCounts) {
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

// readDump reads one callgrind output file written with callgrindArgs: positions "instr", the
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
func readDump(r io.Reader, syms *symtab) (segment, error) {
	var s segment
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
func (s *segment) addCall(syms *symtab, addr, target uint64, n cost) {
	fn, _ := syms.funcAt(addr)
	if callee, _ := syms.funcAt(target); countedFunc(fn) && helperFunc(callee) {
		s.Counted += n.ir
		s.Cycles += n.cycles
		if syms.keepAddrs {
			addAddr(&s.addrs, addr, n.ir)
		}
	}
}

// add adds n instructions executed at addr: to Total, to Counted when addr is in counted code, and
// to the trigger bits when it is in a trigger function.
func (s *segment) add(syms *symtab, addr uint64, cn cost) {
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
			if syms.keepAddrs {
				addAddr(&s.addrs, addr, n)
			}
		case addr == c.more:
			s.Counted -= c.insns * n
			if syms.keepAddrs { // the check's second run, taken off at the function's entry
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

// countedFunc reports whether the instructions of the function named fn count: code of the binary's
// that is neither the runtime's or the testing package's machinery nor one of the runtime's
// helpers.
func countedFunc(fn string) bool { return fn != "" && !machineryFunc(fn) && !helperFunc(fn) }

// symtab names the functions of a binary's machine code from its symbol table.
type symtab struct {
	start, end []uint64 // sorted by start
	name       []string
	trigger    []int8 // the index in triggers of each function, or -1
	// each function's stack check, the zero stackCheck when it has none (or it is unknown)
	check     []stackCheck
	triggerAt [len(triggers)]uint64
	// keepAddrs asks readDump to keep the counted instructions by address (segment.addrs), which
	// attribution reads; off, the dumps are summed without them.
	keepAddrs bool
}

// readSymtab reads the function symbols of the ELF binary path, which must define the trigger
// functions, and the stack checks of its functions (see stackCheck).
func readSymtab(path string) (*symtab, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading symbols: %w", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("reading symbols of %s: %w (the instruction-count lane needs them: do not strip the test "+
			"binary)", path, err)
	}
	syms = slices.DeleteFunc(syms, func(s elf.Symbol) bool { return elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 })
	slices.SortFunc(syms, func(a, b elf.Symbol) int { return cmp.Compare(a.Value, b.Value) })
	t := &symtab{}
	found := 0
	for _, s := range syms {
		t.start = append(t.start, s.Value)
		t.end = append(t.end, s.Value+s.Size)
		t.name = append(t.name, s.Name)
		i := int8(slices.Index(triggers[:], s.Name))
		t.trigger = append(t.trigger, i)
		if i >= 0 {
			t.triggerAt[i] = s.Value
			found++
		}
	}
	if found != len(triggers) {
		return nil, fmt.Errorf("%s does not define the testing package's %s: is it a Go test binary?", path,
			strings.Join(triggers[:], ", "))
	}
	t.check = make([]stackCheck, len(t.start))
	if f.Machine != elf.EM_X86_64 {
		return t, nil
	}
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		code, err := sec.Data()
		if err != nil {
			return nil, fmt.Errorf("reading the machine code of %s: %w", path, err)
		}
		lo, _ := slices.BinarySearch(t.start, sec.Addr)
		for i := lo; i < len(t.start) && t.end[i] <= sec.Addr+uint64(len(code)); i++ {
			t.check[i] = readStackCheck(code[t.start[i]-sec.Addr:t.end[i]-sec.Addr], t.start[i], t)
		}
	}
	return t, nil
}

// index returns the index of the function whose code holds addr, or -1.
func (t *symtab) index(addr uint64) int {
	i, _ := slices.BinarySearch(t.start, addr+1) // the first start above addr
	if i == 0 || addr >= t.end[i-1] {
		return -1
	}
	return i - 1
}

// funcAt returns the name of the function whose code holds addr, or "", and its index in triggers,
// or -1.
func (t *symtab) funcAt(addr uint64) (string, int) {
	i := t.index(addr)
	if i < 0 {
		return "", -1
	}
	return t.name[i], int(t.trigger[i])
}

// checkOf returns the stack check of the function whose code holds addr.
func (t *symtab) checkOf(addr uint64) stackCheck {
	if i := t.index(addr); i >= 0 && i < len(t.check) {
		return t.check[i]
	}
	return stackCheck{}
}

// stackCheck is the check of the stack's bound that a Go function on amd64 begins with, and the
// block that calls the runtime when the check fails, which the compiler puts at the function's end:
//
//	entry: CMPQ SP, 16(R14)            // (a large frame: LEAQ -frame(SP), R12; CMPQ R12, 16(R14))
//	       JBE  more                   // (a huge one first checks SP - frame for underflow)
//	       … the function's body …
//	more:  spill the register arguments
//	       CALL runtime.morestack_noctxt
//	       reload them
//	       JMP  entry
//
// The check fails when the goroutine's stack must grow, and also when the runtime has asked the
// goroutine to stop at its next function call by poisoning the bound it compares with: sysmon does
// that to a goroutine that has run for 10 ms of wall time (retake, preemptone), asynchronous
// preemption or not, and the collector does it to shrink a stack. Either way the function runs its
// more block once and its check a second time, which adds instructions to the counted code at
// wall-clock times: valgrind runs one thread at a time and gives sysmon a turn only now and then,
// so a benchmark loop is preempted a different number of times in each run, at different functions
// (measured on this repository's gate: about once a process, 2 to 20 instructions a time). readDump
// removes them: it leaves the more blocks' instructions out and takes one run of the check off for
// each run of its more block, which counts each call once, as if the stack had room and nobody had
// asked. (A stack that really grows is left out the same way: its growth is the runtime's cost, and
// how often it happens depends on when the collector last shrank it.) readSymtab decodes the checks
// of amd64 code only; elsewhere the counts keep these instructions, and the repeat check reports
// when they make a difference.
type stackCheck struct {
	// instructions from the entry to the JBE, inclusive; 0 when the function has no check
	insns     int64
	more, end uint64 // the more block's code: [more, end)
}

// readStackCheck decodes the stack check of the function at addr whose machine code is code. syms
// names the target of the more block's call. It returns the zero stackCheck when the function does
// not begin with one (assembly marked NOSPLIT, a leaf function with a small frame) or anything does
// not decode as expected.
func readStackCheck(code []byte, addr uint64, syms *symtab) stackCheck {
	var c stackCheck
	pc := 0
	for n := int64(1); ; n++ {
		inst, err := x86asm.Decode(code[pc:], 64)
		if err != nil || n > 6 {
			return stackCheck{}
		}
		pc += inst.Len
		if inst.Op == x86asm.JBE {
			rel, ok := inst.Args[0].(x86asm.Rel)
			if !ok || int(rel) <= 0 || pc+int(rel) >= len(code) {
				return stackCheck{}
			}
			c.insns, c.more = n, addr+uint64(pc+int(rel))
			pc += int(rel)
			break
		}
		switch inst.Op {
		case x86asm.CMP, x86asm.LEA, x86asm.MOV, x86asm.SUB, x86asm.JB:
		default:
			return stackCheck{} // the body has begun: no stack check
		}
	}
	// The more block: moves that spill and reload the arguments, a call of runtime.morestack or
	// morestack_noctxt, and a jump back to the entry.
	called := false
	for pc < len(code) {
		inst, err := x86asm.Decode(code[pc:], 64)
		if err != nil {
			return stackCheck{}
		}
		pc += inst.Len
		rel, _ := inst.Args[0].(x86asm.Rel)
		target := addr + uint64(pc) + uint64(int64(rel))
		switch inst.Op {
		case x86asm.CALL:
			name, _ := syms.funcAt(target)
			if !strings.HasPrefix(name, "runtime.morestack") {
				return stackCheck{}
			}
			called = true
		case x86asm.JMP:
			if !called || target != addr {
				return stackCheck{}
			}
			c.end = addr + uint64(pc)
			return c
		case x86asm.RET, x86asm.UD2, x86asm.INT:
			return stackCheck{}
		default:
			if rel != 0 { // a branch: the block is not a more block
				return stackCheck{}
			}
		}
	}
	return stackCheck{}
}

// machineryFunc reports whether the function named fn (as in a Go symbol table) belongs to the Go
// runtime's own machinery or to the testing package, which the counted instructions leave out:
// package runtime, the internal/runtime packages, the runtime's random generator
// (internal/chacha8rand, refilled as the scheduler draws from it), the runtime's implementations of
// other packages' functions (sync.runtime_Semacquire, time.now), the runtime's assembly entry
// points, and package testing (the timer, b.Loop's bookkeeping).
//
// What is left out (allocation, garbage collection, the scheduler, sysmon, timers, stack growth)
// runs on wall-clock pacing and on when the collector happens to run: under valgrind its count
// changes from one run of the same binary to the next. Allocation is gated exactly by allocs/op and
// B/op instead.
func machineryFunc(fn string) bool {
	switch {
	case strings.HasPrefix(fn, "runtime."), strings.HasPrefix(fn, "internal/runtime/"),
		strings.HasPrefix(fn, "internal/chacha8rand."), strings.HasPrefix(fn, "testing."),
		fn == "time.now", fn == "time.Sleep":
		return true
	}
	if i := strings.LastIndexByte(fn, '.'); i >= 0 && strings.HasPrefix(fn[i+1:], "runtime_") {
		return true
	}
	// Assembly without a package qualifier: the runtime's entry points and write barriers.
	for _, p := range []string{"gcWriteBarrier", "gogo", "gosave", "_rt0_", "morestack", "asmcgocall"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// helperFunc reports whether fn is one of the runtime's helpers that do the calling code's own work
// in a number of instructions fixed by their arguments: copy (runtime.memmove), clear
// (runtime.memclrNoHeapPointers), == on arrays and strings (runtime.memequal and the bodies of
// package internal/bytealg: memeqbody, cmpbody, indexbytebody, countbody). Their instructions count
// when counted code calls them, and only then: the runtime calls them too, at its own pace.
func helperFunc(fn string) bool {
	for _, p := range []string{"runtime.memmove", "runtime.memequal", "runtime.memclrNoHeapPointers",
		"memeqbody", "cmpbody", "indexbytebody", "countbody"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// readDumps reads and removes the dumps of the callgrind run whose --callgrind-out-file was out:
// out.1, out.2, … in order, then out, written at the end of the program (absent when the program
// was killed).
func readDumps(out string, syms *symtab) ([]segment, error) {
	var segs []segment
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
			s.at = info.ModTime()
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

// callsTo returns how many calls to the function at target a callgrind dump (positions "instr")
// records from code under test (countedFunc), by the address of each call instruction.
func callsTo(r io.Reader, syms *symtab, target uint64) (int64, error) {
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

// leafCount is the timed count of one result line: the counted instructions of the stretches its
// benchmark timed, and whether callgrind lost track of the timer on the way (lost).
type leafCount struct {
	counted int64
	// the estimate of the same instructions (Counts.Cycles), 0 without the cache simulation
	cycles int64
	// addrs is counted by address (segment.addrs), nil unless the symbol table keeps addresses.
	addrs *addrCounts
	lost  bool
	// wall is the wall-clock time from the dump before each timed stretch to the dump that ended
	// it, added up: the stretch under callgrind, runtime and kernel included, with the untimed work
	// since the previous dump (runN's garbage collection, the benchmark's set-up). 0 when the
	// dumps' times are unknown.
	wall time.Duration
	// timed is how many segments ran the code of ResetTimer or StartTimer (lost ones included): 1
	// for a benchmark that never stops its timer, in a process that runs it once at 1 iteration;
	// more when it stops and starts it, in its loop or around a set-up (lane.timerInLoop tells
	// which).
	timed int
}

// timedCounts returns, for each result line the run printed (in order), the counted instructions of
// the stretches its benchmark timed: what the printed ns/op measures, plus, for a b.N benchmark,
// its first run at b.N = 1, since a reset of the timer that the next zeroing follows leaves no
// trace (see minInstrIters).
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
func timedCounts(segs []segment) []leafCount {
	const timer = 1<<0 | 1<<1 // ResetTimer, StartTimer
	var out []leafCount
	var cur leafCount
	for i, s := range segs {
		switch {
		case bits.OnesCount8(s.ran) > 1:
			cur.lost = true
		case s.ran&timer != 0:
			cur.counted += s.Counted
			cur.cycles += s.Cycles
			mergeAddrs(&cur.addrs, s.addrs)
		}
		if s.ran&timer != 0 {
			cur.timed++
			if i > 0 && !s.at.IsZero() && !segs[i-1].at.IsZero() {
				cur.wall += s.at.Sub(segs[i-1].at)
			}
		}
		if s.trigger == trigResult && s.entered&(1<<3) == 0 {
			out = append(out, cur)
			cur = leafCount{}
		}
	}
	return out
}
