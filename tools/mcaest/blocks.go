package mcaest

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// block is a straight-line run of executed instructions: consecutive in memory, each executed as
// many times as the first, and none but the last a branch, call or return. Each of its instructions
// ran execs times.
type block struct {
	start uint64
	insns []string // in GNU (AT&T) syntax, as objdump prints them and llvm-mca reads them
	execs int64
	// unknown is how many of its instructions did not decode (x86asm does not know every
	// extension); the block holds them as one-cycle placeholders (see costBlocks).
	unknown int
}

// ir returns the instructions the block executed.
func (b *block) ir() int64 { return b.execs * int64(len(b.insns)+b.unknown) }

// text is the executable code of an ELF binary.
type text struct {
	secs []textSec
	syms []elf.Symbol // function symbols, sorted by address
}

type textSec struct {
	addr uint64
	code []byte
}

// readText reads the executable sections and function symbols of the amd64 ELF binary path.
func readText(path string) (*text, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading machine code: %w", err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return nil, fmt.Errorf("%s is a %s binary; the estimate reads amd64 machine code only", path, f.Machine)
	}
	t := &text{}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		code, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("reading the machine code of %s: %w", path, err)
		}
		t.secs = append(t.secs, textSec{addr: s.Addr, code: code})
	}
	syms, _ := f.Symbols() // without a symbol table, branch targets print as addresses
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			t.syms = append(t.syms, s)
		}
	}
	slices.SortFunc(t.syms, func(a, b elf.Symbol) int { return cmp.Compare(a.Value, b.Value) })
	return t, nil
}

// decode decodes the instruction at addr; ok is false when addr is outside the code or does not
// decode.
func (t *text) decode(addr uint64) (x86asm.Inst, bool) {
	for _, s := range t.secs {
		if addr >= s.addr && addr < s.addr+uint64(len(s.code)) {
			inst, err := x86asm.Decode(s.code[addr-s.addr:], 64)
			return inst, err == nil
		}
	}
	return x86asm.Inst{}, false
}

// funcName returns the name of the function whose code holds addr, or "".
func (t *text) funcName(addr uint64) string {
	i, _ := slices.BinarySearchFunc(t.syms, addr+1, func(s elf.Symbol, a uint64) int { return cmp.Compare(s.Value, a) })
	if i == 0 || addr >= t.syms[i-1].Value+max(t.syms[i-1].Size, 1) {
		return ""
	}
	return t.syms[i-1].Name
}

// endsBlock reports whether op transfers control: a block ends with it.
func endsBlock(op x86asm.Op) bool {
	name := op.String()
	switch {
	case strings.HasPrefix(name, "J"), strings.HasPrefix(name, "LOOP"), strings.HasPrefix(name, "IRET"):
		return true
	}
	switch op {
	case x86asm.CALL, x86asm.LCALL, x86asm.RET, x86asm.LRET, x86asm.SYSCALL, x86asm.UD2, x86asm.INT:
		return true
	}
	return false
}

// formBlocks groups the executed addresses of counts (instructions executed per address) into
// blocks. An address that does not decode is an unknown instruction of the block it falls in, and
// ends it (its length is unknown).
func formBlocks(t *text, counts map[uint64]int64) []block {
	addrs := make([]uint64, 0, len(counts))
	for a := range counts {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	var out []block
	var cur *block
	var next uint64 // the address that continues cur
	for _, a := range addrs {
		n := counts[a]
		if cur == nil || a != next || n != cur.execs {
			out = append(out, block{start: a, execs: n})
			cur = &out[len(out)-1]
		}
		inst, ok := t.decode(a)
		if !ok {
			cur.unknown++
			cur = nil
			continue
		}
		cur.insns = append(cur.insns, gnuSyntax(inst, a))
		next = a + uint64(inst.Len)
		if endsBlock(inst.Op) {
			cur = nil
		}
	}
	return out
}

// mergeBlocks merges, in place, each run of blocks (in address order, as formBlocks returns them)
// that lie in one function and executed equally often into one block: a path through the function
// that an iteration takes, branches and all, which llvm-mca then runs as one sequence, so that a
// dependency chain crossing a branch or a call is seen. Blocks the path skips are not in it; the
// compiler lays a function's likely path out in address order, so the sequence is mostly the order
// they ran in.
func mergeBlocks(t *text, blocks []block) []block {
	out := blocks[:0]
	fn := ""
	for _, b := range blocks {
		f := t.funcName(b.start)
		if n := len(out); n > 0 && f == fn && f != "" && out[n-1].execs == b.execs {
			out[n-1].insns = append(out[n-1].insns, b.insns...)
			out[n-1].unknown += b.unknown
			continue
		}
		out = append(out, b)
		fn = f
	}
	return out
}

// gnuSyntax returns the instruction inst at addr in GNU syntax as llvm-mca reads it: as x86asm
// prints it, which is objdump's, except that a direct jump prints as jmp, not objdump's jmpq, which
// llvm-mca 14 rejects.
func gnuSyntax(inst x86asm.Inst, addr uint64) string {
	s := x86asm.GNUSyntax(inst, addr, nil)
	if rest, ok := strings.CutPrefix(s, "jmpq 0x"); ok {
		return "jmp 0x" + rest
	}
	return s
}

// hotBlocks returns the blocks, most instructions first, that together executed at least share of
// all the instructions, and the instructions of all blocks.
func hotBlocks(blocks []block, share float64) (hot []block, total int64) {
	for i := range blocks {
		total += blocks[i].ir()
	}
	hot = slices.Clone(blocks)
	slices.SortStableFunc(hot, func(a, b block) int { return cmp.Compare(b.ir(), a.ir()) })
	var sum int64
	for i := range hot {
		if float64(sum) >= share*float64(total) {
			return hot[:i], total
		}
		sum += hot[i].ir()
	}
	return hot, total
}

// countedCode reports whether the instructions of the function named fn are the benchmark's own:
// code of the binary outside the Go runtime (its scheduler, collector, allocator and timers, whose
// share of a run follows wall-clock pacing and differs between the runs at N and 2N) and outside
// the testing package, plus the runtime's copy, clear and compare helpers, which do the calling
// code's work. Functions without a package qualifier are the runtime's assembly, except the bodies
// of package internal/bytealg's compares. Allocation is left out with the runtime, as the
// instruction-count lane leaves it out (package bench decides by a finer rule of its own, which
// this should share).
func countedCode(fn string) bool {
	switch fn {
	case "", "time.now":
		return false
	case "runtime.memmove", "runtime.memclrNoHeapPointers", "runtime.memequal", "memeqbody", "cmpbody",
		"indexbytebody", "countbody":
		return true
	}
	for _, p := range []string{"runtime.", "internal/runtime/", "testing.", "internal/chacha8rand."} {
		if strings.HasPrefix(fn, p) {
			return false
		}
	}
	return strings.Contains(fn, ".") && !strings.Contains(fn, ".runtime_")
}

// keepCounted removes from counts the addresses outside countedCode and returns the instructions
// removed.
func keepCounted(t *text, counts map[uint64]int64) int64 {
	var removed int64
	for a, n := range counts {
		if !countedCode(t.funcName(a)) {
			removed += n
			delete(counts, a)
		}
	}
	return removed
}
