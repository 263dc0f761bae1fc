package mcaest

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A callgrind output file of the form --dump-instr=yes --compress-pos=no writes (abridged from a
// real one): the line after calls= is the call's inclusive cost, which the callee's own lines hold.
const callgrindOut = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  ./x.test -test.run=^$
part: 1

desc: I1 cache: 
desc: Timerange: Basic block 0 - 1200
desc: Trigger: Program termination

positions: instr
events: Ir
summary: 1234

ob=(1) /tmp/x.test
fl=(1) ???
fn=(1) main.loop
0x401000 100
0x401003 100
0x401006 100
calls=100 0x402000
0x401008 500
0x40100d 1
fn=(2) main.leaf
0x402000 100
0x402000 100
totals: 1234
`

func TestParseCallgrind(t *testing.T) {
	got, err := parseCallgrind(strings.NewReader(callgrindOut))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]int64{0x401000: 100, 0x401003: 100, 0x401006: 100, 0x40100d: 1, 0x402000: 200}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	for _, bad := range []string{
		"positions: instr line\nevents: Ir\n",
		"positions: instr\nevents: Dr Ir\n",
		"positions: instr\n0x401000 1\n",
		"positions: instr\nevents: Ir\n0x401000\n",
		"positions: instr\nevents: Ir\n0x401000 1\n+3 1\n",
	} {
		if _, err := parseCallgrind(strings.NewReader(bad)); err == nil {
			t.Errorf("parseCallgrind(%q) = nil error", bad)
		}
	}
}

// llvm-mca 14's summary of two regions, as it prints them with -instruction-info=false
// -resource-pressure=false (abridged: the timeline and bottleneck views are not printed by
// default).
const mcaOut = `
[0] Code Region - b0

Iterations:        100
Instructions:      300
Total Cycles:      303
Total uOps:        300

Dispatch Width:    6
uOps Per Cycle:    0.99
IPC:               0.99
Block RThroughput: 1.0

[1] Code Region - b1

Iterations:        100
Instructions:      200
Total Cycles:      1703
Total uOps:        300

Dispatch Width:    6
uOps Per Cycle:    0.18
IPC:               0.12
Block RThroughput: 17.0
`

func TestParseMCA(t *testing.T) {
	got, err := parseMCA(strings.NewReader(mcaOut))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]regionCycles{"b0": {100, 303}, "b1": {100, 1703}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(regionCycles{})); d != "" {
		t.Errorf("regions (-want +got):\n%s", d)
	}
	if p := got["b1"].perIter(); p != 17.03 {
		t.Errorf("b1's cycles per iteration = %v, want 17.03", p)
	}
	bad := "[0] Code Region - b0\nIterations: 100\nTotal Cycles: many\n"
	if _, err := parseMCA(strings.NewReader(bad)); err == nil {
		t.Errorf("parseMCA(%q) = nil error", bad)
	}
	if _, err := parseMCA(strings.NewReader("[0] Code Region - b0\nIterations: 100\n")); err == nil {
		t.Error("a region without total cycles: nil error")
	}
}

func TestRejectedLines(t *testing.T) {
	stderr := "<stdin>:5:1: error: invalid instruction mnemonic 'foo'\nfoo %rcx\n^~~\n" +
		"warning: found a return instruction in the input assembly sequence.\n" +
		"<stdin>:12:3: error: invalid operand for instruction\n"
	if d := cmp.Diff([]int{5, 12}, rejectedLines([]byte(stderr))); d != "" {
		t.Errorf("rejected lines (-want +got):\n%s", d)
	}
}

func TestMCAInput(t *testing.T) {
	in, lines := mcaInput([]block{{insns: []string{"add %rbx,%rax", "ret"}}, {insns: []string{"nop"}}})
	want := "# LLVM-MCA-BEGIN b0\nadd %rbx,%rax\nret\n# LLVM-MCA-END b0\n# LLVM-MCA-BEGIN b1\nnop\n# LLVM-MCA-END b1\n"
	if string(in) != want {
		t.Errorf("input:\n%s\nwant:\n%s", in, want)
	}
	// Line 0 does not exist; the markers belong to no block.
	if d := cmp.Diff([]int{-1, -1, 0, 0, -1, -1, 1, -1}, lines); d != "" {
		t.Errorf("line blocks (-want +got):\n%s", d)
	}
}

// The machine code of a loop and what follows it, at 0x1000 (encodings from the Intel manual,
// checked with objdump -D -b binary -m i386:x86-64):
//
//	0x1000  48 01 d8   add %rbx,%rax
//	0x1003  48 ff c9   dec %rcx
//	0x1006  75 f8      jne 0x1000
//	0x1008  48 f7 f1   div %rcx
//	0x100b  c3         ret
//	0x100c  e9 ef ff ff ff  jmp 0x1000 (objdump: jmpq)
var loopCode = []byte{0x48, 0x01, 0xd8, 0x48, 0xff, 0xc9, 0x75, 0xf8, 0x48, 0xf7, 0xf1, 0xc3,
	0xe9, 0xef, 0xff, 0xff, 0xff}

func TestFormBlocks(t *testing.T) {
	tx := &text{secs: []textSec{{addr: 0x1000, code: loopCode}}}
	counts := map[uint64]int64{0x1000: 100, 0x1003: 100, 0x1006: 100, 0x1008: 1, 0x100b: 1, 0x100c: 2, 0x9000: 7}
	got := formBlocks(tx, counts)
	want := []block{
		{start: 0x1000, execs: 100, insns: []string{"add %rbx,%rax", "dec %rcx", "jne 0x1000"}},
		{start: 0x1008, execs: 1, insns: []string{"div %rcx", "retq"}},
		{start: 0x100c, execs: 2, insns: []string{"jmp 0x1000"}},
		{start: 0x9000, execs: 7, unknown: 1}, // outside the code
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(block{})); d != "" {
		t.Errorf("blocks (-want +got):\n%s", d)
	}
	// A count that changes within straight-line code (a jump into its middle) starts a block.
	counts[0x1003] = 150
	counts[0x1006] = 150
	if got := formBlocks(tx, counts); len(got) != 5 || got[1].start != 0x1003 || len(got[0].insns) != 1 {
		t.Errorf("a jump into 0x1003: blocks %+v, want 0x1000 (1 insn), 0x1003, 0x1008, 0x100c, 0x9000", got)
	}
	hot, total := hotBlocks(want, 0.98)
	if total != 311 || len(hot) != 2 || hot[0].start != 0x1000 || hot[1].start != 0x9000 {
		t.Errorf("hotBlocks = %+v, %d; want 0x1000 and 0x9000 of 311 instructions", hot, total)
	}
}

func TestCombine(t *testing.T) {
	tx := &text{}
	hot := []block{
		{start: 0x1000, execs: 100, insns: []string{"a", "b", "c"}},
		{start: 0x2000, execs: 10, insns: []string{"d"}, unknown: 1},
	}
	regions := []regionCycles{{100, 400}, {100, 1000}}
	// 100 × 4 + 10 × (10 + 1 unknown + 1 rejected) = 520 cycles for 320 covered instructions; 640
	// in all, so the rest is charged at the same rate: 1040 cycles in 10 iterations.
	res := combine(tx, hot, regions, []int{0, 1}, 640, 10)
	if res.Cycles != 104 || res.Instructions != 64 || res.Rejected != 2 {
		t.Errorf("combine: cycles %v, instructions %v, rejected %v; want 104, 64, 2", res.Cycles, res.Instructions,
			res.Rejected)
	}
	if res.Hot[0].Start != 0x1000 || res.Hot[1].PerIter != 12 {
		t.Errorf("combine: hot blocks %+v", res.Hot)
	}
}

func TestMergeBlocks(t *testing.T) {
	tx := &text{syms: []elf.Symbol{{Name: "f", Value: 0x1000, Size: 0x10}, {Name: "g", Value: 0x1010, Size: 0x10}}}
	blocks := []block{
		{start: 0x1000, execs: 100, insns: []string{"a", "jne"}},
		{start: 0x1008, execs: 1, insns: []string{"b", "je"}},
		{start: 0x100c, execs: 1, insns: []string{"c"}, unknown: 1},
		{start: 0x1010, execs: 1, insns: []string{"d"}}, // another function
		{start: 0x9000, execs: 1, insns: []string{"e"}}, // no function
		{start: 0x9004, execs: 1, insns: []string{"f"}},
	}
	want := []block{
		{start: 0x1000, execs: 100, insns: []string{"a", "jne"}},
		{start: 0x1008, execs: 1, insns: []string{"b", "je", "c"}, unknown: 1},
		{start: 0x1010, execs: 1, insns: []string{"d"}},
		{start: 0x9000, execs: 1, insns: []string{"e"}},
		{start: 0x9004, execs: 1, insns: []string{"f"}},
	}
	if d := cmp.Diff(want, mergeBlocks(tx, blocks), cmp.AllowUnexported(block{})); d != "" {
		t.Errorf("merged (-want +got):\n%s", d)
	}
}
