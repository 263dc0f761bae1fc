package callgrind

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
)

// callgrindDump is a callgrind dump as valgrind 3.19 writes it with Args, shortened: the
// stretch of a run from the testing package's entry into B.ResetTimer (which zeroed the counts) to
// its entry into B.StopTimer (which wrote them). As callgrind does after a switch to the system
// stack, it files runtime code (at 0x3000, mallocgc) under the user function crypt.
const callgrindDump = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /tmp/x.test -test.run ^$ -test.bench ^BenchmarkEncrypt$/^des$ -test.benchtime 10x -test.cpu 1
part: 5

desc: I1 cache: 
desc: Timerange: Basic block 841373 - 1097507
desc: Trigger: --dump-before=testing.(*B).StopTimer

positions: instr
events: Ir
summary: 2281

ob=(1) /tmp/x.test
fl=(1) ???
fn=(1) testing.(*B).ResetTimer
0xa000 1
0xa004 1
fn=(2) example.com/minides.crypt
0x1000 1000
0x1004 500
cfn=(3) runtime.memmove
calls=2 0x2000
0x1008 40
cfn=(4) runtime.mallocgc
calls=1 0x3000
0x100c 300
0x3000 77
fn=(3)
0x2000 40
fn=(4)
0x3000 70
cfn=(3)
calls=1 0x2000
0x3004 30
fn=(5) runtime.memmove'2
0x2000 30
fn=(6) time.Now'2
0x4000 24
fn=(7) time.now
0x5000 20
fn=(8) testing.(*B).loopSlowPath
0x6000 21
fn=(9) gcWriteBarrier2
0x7000 7
fn=(10) 0x00000000deadbeef
0xdeadbeef 11
fn=(11) sync.runtime_Semacquire
0x8000 5
fn=(12) memeqbody
0x9000 9
totals: 1814
`

// fakeSymtab names code addresses by their 4 KiB page: see callgrindDump.
func fakeSymtab() *Symtab {
	t := &Symtab{}
	for i, name := range []string{"example.com/minides.crypt", "runtime.memmove", "runtime.mallocgc", "time.Now",
		"time.now", "testing.(*B).loopSlowPath", "gcWriteBarrier2", "sync.runtime_Semacquire", "memeqbody",
		trigReset, trigStart, trigStop, trigResult} {
		start := uint64(i+1) << 12
		t.start, t.end, t.name = append(t.start, start), append(t.end, start+0x1000), append(t.name, name)
		trig := int8(slices.Index(triggers[:], name))
		t.trigger = append(t.trigger, trig)
		if trig >= 0 {
			t.triggerAt[trig] = start
		}
	}
	return t
}

func TestReadDump(t *testing.T) {
	got, err := readDump(strings.NewReader(callgrindDump), fakeSymtab())
	if err != nil {
		t.Fatal(err)
	}
	// Total: every self cost, 2+1000+500+77+40+70+30+24+20+21+7+11+5+9; no call line's inclusive
	// cost. Counted: crypt's 1500, its call to memmove 40 (not memmove's self cost, nor the
	// runtime's call to it), time.Now's 24 (package time's own code; time.now is the runtime's).
	// Not the 77 instructions of mallocgc that callgrind filed under crypt, nor the 11 at an
	// address of no function, nor memeqbody's, a helper's, counted only through a counted caller's
	// call line. ResetTimer (trigger 0) ran from its first instruction.
	want := Segment{trigger: trigStop, Counts: Counts{Total: 1816, Counted: 1564}, ran: 1, entered: 1}
	if got != want {
		t.Errorf("readDump = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "events: Dr\nfn=a\n0x1 2\n", "events: Ir\nfn=a\n0x1 x\n",
		"positions: instr line\nevents: Ir\nfn=a\n0x1 0 2\n", "events: Ir\nfn=a\ncalls=1\n0x1 2\n"} {
		if _, err := readDump(strings.NewReader(bad), fakeSymtab()); err == nil {
			t.Errorf("readDump(%q): no error", bad)
		}
	}
}

// TestReadDumpStackCheck counts a function that failed its stack check twice: 10 calls ran its
// two-instruction check 12 times, its body 10 times and its more block twice. The count is that of
// 10 calls that passed it.
func TestReadDumpStackCheck(t *testing.T) {
	syms := fakeSymtab()
	syms.check = make([]stackCheck, len(syms.start))
	syms.check[0] = stackCheck{insns: 2, more: 0x1f00, end: 0x1f20} // crypt
	dump := `positions: instr
events: Ir
fn=(1) example.com/minides.crypt
0x1000 12
0x1004 12
0x1008 10
0x1f00 2
0x1f05 2
cfn=(2) runtime.morestack_noctxt
calls=2 0x3000
0x1f0a 900
0x1f0f 2
0x1f1b 2
0x1ff0 5
`
	got, err := readDump(strings.NewReader(dump), syms)
	if err != nil {
		t.Fatal(err)
	}
	// Counted: 10 × the 3 instructions of a call, and 5 after the more block; Total: every self
	// cost.
	if want := (Counts{Total: 47, Counted: 35, Rechecks: 2}); got.Counts != want {
		t.Errorf("readDump = %+v, want %+v", got.Counts, want)
	}
}

func TestReadSymtab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/prog\n\ngo 1.22\n")
	write("prog.go", "package prog\n\n//go:noinline\nfunc Work(n int) int { return n * 3 }\n")
	write("prog_test.go", "package prog\n\nimport \"testing\"\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor b.Loop() {\n\t\tWork(7)\n\t}\n}\n")
	build := func(args ...string) string {
		t.Helper()
		out := filepath.Join(dir, fmt.Sprint(len(args)))
		if _, _, err := proc.Run(proc.Command(t.Context(), dir, nil, append(append([]string{"go"}, args...), "-o", out)...)); err != nil {
			t.Fatal(err)
		}
		return out
	}
	bin := build("test", "-c")
	syms, err := ReadSymtab(bin)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var work, bench, stop elf.Symbol
	for _, s := range all {
		switch s.Name {
		case "example.com/prog.Work":
			work = s
		case "example.com/prog.BenchmarkWork":
			bench = s
		case trigStop:
			stop = s
		}
	}
	// Work is a leaf with a small frame, which has no stack check; BenchmarkWork begins with CMPQ
	// SP, 16(R14); JBE more, and its more block ends its code.
	if c := syms.checkOf(work.Value); c != (stackCheck{}) {
		t.Errorf("Work's stack check %+v, want none", c)
	}
	if c := syms.checkOf(bench.Value); c.insns != 2 || c.more <= bench.Value || c.end != bench.Value+bench.Size {
		t.Errorf("BenchmarkWork (%#x+%d): stack check %+v, want 2 instructions and a more block at its end",
			bench.Value, bench.Size, c)
	}
	// Every address of Work's code is Work's; the byte after it is another function's or none.
	for _, addr := range []uint64{work.Value, work.Value + work.Size/2, work.Value + work.Size - 1} {
		if got, trig := syms.funcAt(addr); got != "example.com/prog.Work" || trig != -1 {
			t.Errorf("funcAt(%#x) = %q, %d, want Work, -1 (%#x+%d)", addr, got, trig, work.Value, work.Size)
		}
	}
	if got, _ := syms.funcAt(work.Value + work.Size); got == "example.com/prog.Work" {
		t.Errorf("funcAt(end of Work) = %q", got)
	}
	if got, _ := syms.funcAt(0); got != "" {
		t.Errorf("funcAt(0) = %q, want none", got)
	}
	// The trigger functions are known by their index and first instruction.
	if _, trig := syms.funcAt(stop.Value + 1); trig != 2 || syms.triggerAt[2] != stop.Value {
		t.Errorf("StopTimer at %#x: trigger %d at %#x, want 2 at %#x", stop.Value+1, trig, syms.triggerAt[2], stop.Value)
	}
	// A binary without the testing package, or without symbols, cannot be counted.
	for _, args := range [][]string{{"build"}, {"test", "-c", "-ldflags=-s"}} {
		if _, err := ReadSymtab(build(args...)); err == nil {
			t.Errorf("ReadSymtab of go %s: no error", strings.Join(args, " "))
		}
	}
}

func TestTimedCounts(t *testing.T) {
	// seg is a segment written at trigger, whose code ran from the trigger functions in ran (by
	// their index in triggers, R S P E), the first from its first instruction when entered.
	seg := func(trigger string, counted int64, entered bool, ran ...int) Segment {
		s := Segment{trigger: trigger, Counts: Counts{Total: counted + 1000, Counted: counted}}
		for _, r := range ran {
			s.ran |= 1 << r
		}
		if entered && len(ran) > 0 {
			s.entered = 1 << ran[0]
		}
		return s
	}
	const R, S, P, E = 0, 1, 2, 3
	segs := []Segment{
		// The start of the process, up to the first stop of a timer (a parent benchmark's, after
		// its leaves).
		seg(trigStop, 900, false),
		// A b.Loop leaf: b.Loop's ResetTimer zeroed the counts (runN's ResetTimer and StartTimer,
		// and the set-up, were zeroed and never written), the loop ran, b.Loop stopped the timer;
		// callgrind reported StopTimer entered again after its ReadMemStats switched stacks; runN
		// stopped the stopped timer; the result.
		seg(trigStop, 1000, true, R), seg(trigStop, 3, true, P), seg(trigStop, 2, false, P), seg(trigResult, 8, true, P),
		// A b.N leaf whose loop stops its timer for a set-up in each of its 2 iterations: the first
		// stretch began at runN's StartTimer, the second at the loop's; callgrind reported the
		// result formatting entered a second time, which is no second result.
		seg(trigStop, 40, true, S), seg(trigStop, 60, true, S), seg(trigStop, 4, true, P), seg(trigResult, 5, true, P),
		seg(trigResult, 7, true, E),
		// A leaf whose loop's ResetTimer callgrind missed: a stretch ran StartTimer's and
		// ResetTimer's code.
		seg(trigStop, 5000, true, S, R), seg(trigStop, 9, true, P), seg(trigResult, 1, true, P),
		// The end of the program.
		seg("", 70, true, E),
	}
	// timed: the stretches that ran the timer's code; the paused leaf's two say its timer stopped
	// in between, and the lost stretch counts as one.
	want := []LeafCount{{Counted: 1000, Timed: 1}, {Counted: 100, Timed: 2}, {Counted: 0, Lost: true, Timed: 1}}
	if got := TimedCounts(segs); !slices.Equal(got, want) {
		t.Errorf("TimedCounts = %+v, want %+v", got, want)
	}
}

func TestMachineryFunc(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.mallocgc":                 true,
		"runtime.(*pageAlloc).find":        true,
		"internal/runtime/maps.newarray":   true,
		"gcWriteBarrier2":                  true,
		"gogo":                             true,
		"internal/chacha8rand.block":       true,
		"testing.(*B).StopTimer":           true,
		"time.now":                         true,
		"sync.runtime_SemacquireMutex":     true,
		"time.Now":                         false,
		"internal/bytealg.IndexByte":       false,
		"crypto/des.feistel":               false,
		"example.com/runtime/x.f":          false,
		"github.com/perfgate/perfgate/x.f": false,
	} {
		if got := machineryFunc(fn); got != want {
			t.Errorf("machineryFunc(%q) = %v, want %v", fn, got, want)
		}
	}
	for fn, want := range map[string]bool{"runtime.memmove": true, "runtime.memequal64": true, "memeqbody": true,
		"runtime.memclrNoHeapPointers": true, "runtime.mallocgc": false, "crypto/des.feistel": false} {
		if got := helperFunc(fn); got != want {
			t.Errorf("helperFunc(%q) = %v, want %v", fn, got, want)
		}
	}
}

// TestReadDumpCacheSim reads a dump with callgrind's cache simulation: the estimated cycles of the
// counted code weigh each access by where the simulation found it (L1 1, last level 5, memory 35),
// trailing zero events left out as callgrind does, and a counted call to a helper adds its
// inclusive estimate.
func TestReadDumpCacheSim(t *testing.T) {
	dump := `positions: instr
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
fn=(1) example.com/minides.crypt
0x1000 100 20 10 1 2 0 0 1
0x1004 50
cfn=(2) runtime.memmove
calls=1 0x2000
0x1008 40 8 8 0 1 1
fn=(2)
0x2000 40 8 8 0 1 1
`
	got, err := readDump(strings.NewReader(dump), fakeSymtab())
	if err != nil {
		t.Fatal(err)
	}
	// 0x1000: 130 accesses, 3 L1 misses of which 1 went to memory: 127 + 5·2 + 35·1 = 172. 0x1004:
	// 50 instructions, all L1 hits: 50. The call at 0x1008: 56 accesses, 2 L1 misses, both
	// last-level hits: 54 + 10 = 64. memmove's own line counts only through the call.
	if want := (Counts{Total: 190, Counted: 190, Cycles: 172 + 50 + 64}); got.Counts != want {
		t.Errorf("readDump = %+v, want %+v", got.Counts, want)
	}
	// Without the cache events the estimate stays 0.
	got, err = readDump(strings.NewReader("positions: instr\nevents: Ir\nfn=(1) example.com/minides.crypt\n0x1000 7\n"),
		fakeSymtab())
	if err != nil || got.Counts != (Counts{Total: 7, Counted: 7}) {
		t.Errorf("readDump without cache events = %+v, %v", got.Counts, err)
	}
}
