package callgrind

import (
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/perfgate/perfgate/internal/elfsym"
)

// countedFunc reports whether the instructions of the function named fn count: code of the binary's
// that is neither the runtime's or the testing package's machinery nor one of the runtime's
// helpers.
func countedFunc(fn string) bool { return fn != "" && !machineryFunc(fn) && !helperFunc(fn) }

// Symtab names the functions of a binary's machine code from its symbol table.
type Symtab struct {
	start, end []uint64 // sorted by start
	name       []string
	trigger    []int8 // the index in triggers of each function, or -1
	// each function's stack check, the zero stackCheck when it has none (or it is unknown)
	check     []stackCheck
	triggerAt [len(triggers)]uint64
	// KeepAddrs asks readDump to keep the counted instructions by address (Segment.addrs), which
	// attribution reads; off, the dumps are summed without them.
	KeepAddrs bool
}

// ReadSymtab reads the function symbols of the ELF binary path, which must define the trigger
// functions, and the stack checks of its functions (see stackCheck).
func ReadSymtab(path string) (*Symtab, error) {
	f, err := elfsym.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (the instruction-count lane needs them: do not strip the test binary)", err)
	}
	defer f.Close()
	t := &Symtab{}
	found := 0
	for _, s := range f.Funcs {
		t.start = append(t.start, s.Lo)
		t.end = append(t.end, s.Hi)
		t.name = append(t.name, s.Name)
		i := int8(slices.Index(triggers[:], s.Name))
		t.trigger = append(t.trigger, i)
		if i >= 0 {
			t.triggerAt[i] = s.Lo
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
	code, err := f.Code()
	if err != nil {
		return nil, err
	}
	for _, sec := range code {
		lo, _ := slices.BinarySearch(t.start, sec.Addr)
		for i := lo; i < len(t.start) && t.end[i] <= sec.Addr+uint64(len(sec.Bytes)); i++ {
			t.check[i] = readStackCheck(sec.Bytes[t.start[i]-sec.Addr:t.end[i]-sec.Addr], t.start[i], t)
		}
	}
	return t, nil
}

// StopTimer returns the address of testing.(*B).StopTimer.
func (t *Symtab) StopTimer() uint64 { return t.triggerAt[2] }

// index returns the index of the function whose code holds addr, or -1.
func (t *Symtab) index(addr uint64) int {
	i, _ := slices.BinarySearch(t.start, addr+1) // the first start above addr
	if i == 0 || addr >= t.end[i-1] {
		return -1
	}
	return i - 1
}

// funcAt returns the name of the function whose code holds addr, or "", and its index in triggers,
// or -1.
func (t *Symtab) funcAt(addr uint64) (string, int) {
	i := t.index(addr)
	if i < 0 {
		return "", -1
	}
	return t.name[i], int(t.trigger[i])
}

// checkOf returns the stack check of the function whose code holds addr.
func (t *Symtab) checkOf(addr uint64) stackCheck {
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
// how often it happens depends on when the collector last shrank it.) ReadSymtab decodes the checks
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
func readStackCheck(code []byte, addr uint64, syms *Symtab) stackCheck {
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
