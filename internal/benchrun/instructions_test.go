package benchrun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/callgrind"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// needValgrind skips a lane test without valgrind, and unless the long end-to-end set is on
// (PERFGATE_E2E=1, which .ci/run sets and under which a missing valgrind fails the test).
func needValgrind(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "valgrind", valgrind.InstallCommand)
	testenv.Long(t)
}

// buildDemo builds the test binaries of the named demo commits ("base#2" is a second export of
// base).
func buildDemo(t *testing.T, names ...string) map[string]Binary {
	t.Helper()
	trees := testmod.DemoTrees(t, names...)
	cache := filepath.Join(t.TempDir(), "gocache")
	bins := map[string]Binary{}
	for _, name := range names {
		cfg := demoConfig(t, trees[name], strings.ReplaceAll(name, "#", "-")+".test")
		cfg.Cache = cache
		if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
			t.Fatal(err)
		}
		info, err := gobuild.Inspect(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		bins[name] = Binary{Path: cfg.Out, Dir: info.Dir, Commit: name}
	}
	return bins
}

// perOp returns the instructions/op samples of leaf name on side, in schedule order.
func perOp(run *Run, name string, side record.Side) []float64 {
	var out []float64
	for _, s := range run.Samples {
		if v, ok := s.Get(record.UnitInstructions); ok && s.Name == name && s.Side == side {
			out = append(out, v)
		}
	}
	return out
}

// TestRunInstructionsDemo runs the lane on the demo history: folded against base, base against a
// second build of itself, and extraiter (one more step of a permutation loop per round) against
// folded.
func TestRunInstructionsDemo(t *testing.T) {
	needValgrind(t)
	bins := buildDemo(t, "base", "base#2", "folded", "extraiter")
	lane := func(t *testing.T, base, head string, filter string) (*Run, map[string]record.Benchmark, string) {
		t.Helper()
		var txt bytes.Buffer
		run, err := RunInstructions(t.Context(), RunConfig{Base: bins[base], Head: bins[head],
			Filter: mustMatcher(t, filter), CPU: -1, BenchTxt: &txt}, InstrConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Failures) > 0 {
			t.Fatalf("failures: %+v", run.Failures)
		}
		cs, err := bench.CompareInstructions(run.Samples, bench.DefaultInstrThresholdPct)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]record.Benchmark{}
		for _, c := range cs {
			byName[c.Name] = c
			t.Logf("%s: N=%d base %v head %v: %+.5f%% %s %s", c.Name, run.Iters[c.Name],
				perOp(run, c.Name, record.Base), perOp(run, c.Name, record.Head), c.DeltaPct, c.Class, c.Note)
			// The A–A and B–B pairs run one binary: they agree within the tolerance, else the class
			// is failed.
			if c.Base.N != 2 || c.Head.N != 2 || c.NoisePct > 100*bench.RepeatTolerance {
				t.Errorf("%s: %d base and %d head counts, spread %g%%: want 2 each within %g%%", c.Name,
					c.Base.N, c.Head.N, c.NoisePct, 100*bench.RepeatTolerance)
			}
		}
		return run, byName, txt.String()
	}

	t.Run("folded", func(t *testing.T) {
		run, cs, txt := lane(t, "base", "folded", `^(Encrypt|KeySetup)$/^des$`)
		if want := []string{"Encrypt/des", "KeySetup/des"}; !slices.Equal(run.Leaves, want) {
			t.Fatalf("leaves %q, want %q", run.Leaves, want)
		}
		// Folding P into the S-boxes removes a 32-step permutation from every round: encryption
		// runs far fewer instructions. Key setup is the same code on both sides.
		if c := cs["Encrypt/des"]; c.Class != record.ClassFaster || !(c.DeltaPct < -20) {
			t.Errorf("Encrypt/des: %s %+.2f%%, want faster by more than 20%%", c.Class, c.DeltaPct)
		}
		if c := cs["KeySetup/des"]; c.Class != record.ClassUnchanged {
			t.Errorf("KeySetup/des: %s %+.4f%%, want unchanged", c.Class, c.DeltaPct)
		}
		// bench.txt holds the counts in a unit stock benchstat reads.
		samples, err := benchtxt.ReadBenchTxt(strings.NewReader(txt))
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) != 8 || strings.Count(txt, " instructions/op") != 8 {
			t.Errorf("bench.txt has %d samples, want 8 in instructions/op:\n%s", len(samples), txt)
		}
	})

	t.Run("cycles", func(t *testing.T) {
		// With the cache simulation every sample also carries the estimated cycles: at least one
		// per instruction (each is an L1 access at least), and folding P makes encryption cheaper
		// in both.
		run, err := RunInstructions(t.Context(), RunConfig{Base: bins["base"], Head: bins["folded"],
			Filter: mustMatcher(t, `^Encrypt$/^des$`), CPU: -1}, InstrConfig{CacheSim: true})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := bench.CompareInstructions(run.Samples, bench.DefaultInstrThresholdPct)
		if err != nil {
			t.Fatal(err)
		}
		byUnit := map[string]record.Benchmark{}
		for _, c := range cs {
			byUnit[c.Unit] = c
			t.Logf("%s %s: base %v head %v %+.3f%% %s %s", c.Name, c.Unit, c.Base.Center, c.Head.Center, c.DeltaPct,
				c.Class, c.Note)
		}
		in, cyc := byUnit[record.UnitInstructions], byUnit[record.UnitEstCycles]
		if cyc.Base.N != 2 || !(cyc.Base.Center >= in.Base.Center) || !(cyc.Head.Center >= in.Head.Center) {
			t.Errorf("est-cycles/op %+v, instructions/op %+v: want 2 estimates a side, each at least the count",
				cyc, in)
		}
		if cyc.Class != record.ClassFaster && cyc.Class != record.ClassInconclusive {
			t.Errorf("est-cycles/op: %s, want faster (or inconclusive where the simulation did not repeat)", cyc.Class)
		}
	})

	t.Run("aa", func(t *testing.T) {
		// Two exports of one commit build the same binary: the counts are the same number and the
		// change is exactly 0.
		_, cs, _ := lane(t, "base", "base#2", `^Encrypt$/^des$`)
		if c := cs["Encrypt/des"]; c.Class != record.ClassUnchanged || c.DeltaPct != 0 || c.NoisePct != 0 {
			t.Errorf("A/A: %s %+g%%, spread %g%%: want unchanged, exactly 0", c.Class, c.DeltaPct, c.NoisePct)
		}
	})

	t.Run("extraiter", func(t *testing.T) {
		// extraiter runs permute's loop over a 49-entry table where folded's has 48 entries, and is
		// otherwise the same machine code (the loop bound and the table's address aside). The loop
		// body is straight-line code, so one more iteration executes exactly its instructions,
		// counted here from the disassembly.
		body := loopBody(t, bins["extraiter"].Path, `minides\.crypt$`, "expansionPlus(SB)")
		// An op encrypts benchBlocks = 8 blocks of 16 rounds, one expansion per round.
		want := float64(8 * 16 * body)
		_, cs, _ := lane(t, "folded", "extraiter", `^Encrypt$/^des$`)
		c := cs["Encrypt/des"]
		got := c.Head.Center - c.Base.Center
		t.Logf("loop body %d instructions: want %v more per op, got %v", body, want, got)
		// The counts are exact: the difference is the added instructions, not one more or less.
		if got != want {
			t.Errorf("extraiter adds %v instructions per op, want %v (%d-instruction loop body × 128)", got, want, body)
		}
	})
}

// TestRunInstructionsLoopStyles counts a b.N benchmark and a b.Loop benchmark of the same work at
// two sizes in one run. The work is a loop of straight-line code, so 100 more elements execute
// exactly 100 more loop bodies per op, counted from the disassembly; both loop styles must show
// that, the b.N one at any N.
func TestRunInstructionsLoopStyles(t *testing.T) {
	needValgrind(t)
	dir := t.TempDir()
	write := func(name, text string) { testmod.Write(t, dir, map[string]string{name: text}) }
	write("go.mod", "module example.com/loopy\n\ngo 1.24\n")
	write("loopy.go", `package loopy

// Sum adds the elements of x.
//
//go:noinline
func Sum(x []int) int {
	s := 0
	for _, v := range x {
		s ^= v
	}
	return s
}
`)
	write("loopy_test.go", `package loopy

import (
	"strconv"
	"testing"
)

var sink int

func BenchmarkN(b *testing.B) {
	for _, n := range []int{100, 200} {
		x := make([]int, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += Sum(x)
			}
		})
	}
}

func BenchmarkLoop(b *testing.B) {
	for _, n := range []int{100, 200} {
		x := make([]int, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				sink += Sum(x)
			}
		})
	}
}
`)
	cfg := gobuild.Config{Dir: dir, Pkg: ".", Out: filepath.Join(dir, "loopy.test")}
	if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	body := loopBody(t, bin.Path, `loopy\.Sum$`, "XORQ")
	for _, target := range []int64{0, 100} { // the default N, and the smallest: minInstrIters
		run, err := RunInstructions(t.Context(), RunConfig{Base: bin, Head: bin, CPU: -1}, InstrConfig{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Failures) > 0 {
			t.Fatalf("failures: %+v", run.Failures)
		}
		cs, err := bench.CompareInstructions(run.Samples, bench.DefaultInstrThresholdPct)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]float64{}
		for _, c := range cs {
			t.Logf("target %d: %s: N=%d base %v head %v", target, c.Name, run.Iters[c.Name], perOp(run, c.Name, record.Base), perOp(run, c.Name, record.Head))
			byName[c.Name] = c.Base.Center
			if target == 100 && run.Iters[c.Name] != minInstrIters {
				t.Errorf("target 100: %s at N=%d, want %d", c.Name, run.Iters[c.Name], minInstrIters)
			}
			if c.Class != record.ClassUnchanged || c.DeltaPct != 0 || c.NoisePct > 100*bench.RepeatTolerance {
				t.Errorf("%s: the same binary on both sides is %s %+g%%, spread %g%%: want unchanged, exactly 0", c.Name, c.Class, c.DeltaPct, c.NoisePct)
			}
		}
		want := float64(100 * body)
		for _, style := range []string{"N", "Loop"} {
			got := byName[style+"/200"] - byName[style+"/100"]
			if got != want {
				t.Errorf("target %d: %s/200 − %s/100 = %v instructions/op, want %v (100 × a %d-instruction loop body)",
					target, style, style, got, want, body)
			}
		}
	}
}

// TestRunInstructionsOddCount runs a benchmark that, in the first counting process that sees a
// marker file, does more work per op and removes the marker: one count of the base pair is off, as
// a rare one-process event makes it. The lane must count that side a third time and keep the two
// counts that agree, so the same binary on both sides is unchanged, exactly 0, and no count is
// flagged unrepeatable.
func TestRunInstructionsOddCount(t *testing.T) {
	needValgrind(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "odd")
	testmod.Write(t, dir, map[string]string{
		"go.mod": "module example.com/odd\n\ngo 1.24\n",
		"odd_test.go": `package odd

import (
	"os"
	"strings"
	"testing"
)

var sink int

//go:noinline
func sum(x []int) int {
	s := 0
	for _, v := range x {
		s ^= v
	}
	return s
}

func BenchmarkWork(b *testing.B) {
	x := make([]int, 64)
	extra := 0
	// Only a counting process (valgrind preloads its core) at N > 1 (not the 1-iteration estimate) sees it.
	underValgrind := strings.Contains(os.Getenv("LD_PRELOAD"), "vgpreload")
	if underValgrind && b.N > 1 && os.Remove(` + strconv.Quote(marker) + `) == nil {
		extra = 32
	}
	for i := 0; i < b.N; i++ {
		sink += sum(x) + sum(x[:extra])
	}
}
`})
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := gobuild.Config{Dir: dir, Pkg: ".", Out: filepath.Join(dir, "odd.test")}
	if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	var progress bytes.Buffer
	run, err := RunInstructions(t.Context(), RunConfig{Base: bin, Head: bin, CPU: -1, Progress: &progress},
		InstrConfig{Target: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the marker is still there (%v): no counting process did the extra work, so the test tests nothing",
			err)
	}
	if len(run.Failures) > 0 {
		t.Fatalf("failures: %+v", run.Failures)
	}
	t.Logf("base %v head %v", perOp(run, "Work", record.Base), perOp(run, "Work", record.Head))
	cs, err := bench.CompareInstructions(run.Samples, bench.DefaultInstrThresholdPct)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Class != record.ClassUnchanged || cs[0].DeltaPct != 0 {
		t.Fatalf("comparisons %+v: want Work unchanged, exactly 0", cs)
	}
	if !strings.Contains(progress.String(), "counting a third time") {
		t.Errorf("progress does not say the pair was counted again:\n%s", progress.String())
	}
}

// TestRunInstructionsPausedTimer counts a benchmark that stops its timer for a set-up in every
// iteration, which callgrind's tracking of calls loses (see callgrind.TimedCounts), next to the
// same work timed plainly. The lane must find it at calibration and leave it to wall time
// (timerInLoop), as a failure of neither side, and count the plain one as usual.
func TestRunInstructionsPausedTimer(t *testing.T) {
	needValgrind(t)
	dir := t.TempDir()
	write := func(name, text string) { testmod.Write(t, dir, map[string]string{name: text}) }
	write("go.mod", "module example.com/paused\n\ngo 1.24\n")
	write("paused_test.go", `package paused

import "testing"

//go:noinline
func work(x []int) int {
	s := 0
	for _, v := range x {
		s += v * v
	}
	return s
}

var sink int

func BenchmarkPaused(b *testing.B) {
	x := make([]int, 100)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range x {
			x[j] = i * j
		}
		b.StartTimer()
		sink += work(x)
	}
}

func BenchmarkPlain(b *testing.B) {
	x := make([]int, 100)
	for i := 0; i < b.N; i++ {
		sink += work(x)
	}
}
`)
	cfg := gobuild.Config{Dir: dir, Pkg: ".", Out: filepath.Join(dir, "paused.test")}
	if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	var progress bytes.Buffer
	run, err := RunInstructions(t.Context(), RunConfig{Base: bin, Head: bin, CPU: -1, Progress: &progress}, InstrConfig{})
	if err != nil {
		t.Fatal(err)
	}
	plain := perOp(run, "Plain", record.Base)
	if len(plain) != 2 {
		t.Fatalf("Plain: %v, want 2 counts on base; failures %+v", plain, run.Failures)
	}
	paused := perOp(run, "Paused", record.Base)
	t.Logf("Plain %v, Paused %v, failures %+v, uncounted %+v", plain, paused, run.Failures, run.Uncounted)
	if len(run.Failures) > 0 {
		t.Errorf("failures %+v, want none: a timer stopped in the loop is no failure of a side", run.Failures)
	}
	if len(paused) > 0 {
		t.Errorf("Paused counted %v: want it left to wall time", paused)
	}
	nc, ok := run.Uncounted["Paused"]
	if !ok || nc.Why != record.UncountedTimerInLoop || !strings.Contains(nc.Detail, "inside its loop") {
		t.Errorf("uncounted %+v, want Paused left to wall time as timer-in-loop", run.Uncounted)
	}
	if _, ok := run.Uncounted["Plain"]; ok {
		t.Errorf("Plain is uncounted: %+v", run.Uncounted)
	}
	// Detected once, never counted again and again: the calibration's process, the two probes, and
	// one A–B–B–A round of Plain at N and 2N (at most 3 processes of retries for a first leaf
	// callgrind lost).
	if strings.Contains(progress.String(), "lost track of the benchmark timer of Paused") {
		t.Errorf("Paused was counted again after its timer was lost:\n%s", progress.String())
	}
}

// TestRunInstructionsPreempted counts a benchmark whose loop runs for several hundred milliseconds
// under valgrind, long enough for sysmon to ask the goroutine to stop (asyncpreemptoff or not)
// several times a run, at wall-clock times: each request makes one of the calls in the loop run its
// function's stack check twice and its more block once (see callgrind's stackCheck). The lane
// leaves those out, so the four counts of an A/A run are the same number, bit for bit, and the
// change is exactly 0. valgrind runs one thread at a time, and on its default lock sysmon gets a
// turn only now and then; --fair-sched=yes gives every thread its turn, which makes the requests
// land in every run (7 in the loop of one process, measured). A direct run under callgrind checks
// that they did land in the counted code, else the test would prove nothing. Beside it, a benchmark
// that allocates enough for the collector to run during its loop, were it on (see instrEnv): its
// counts, too, are bit-identical.
func TestRunInstructionsPreempted(t *testing.T) {
	needValgrind(t)
	t.Setenv("VALGRIND_OPTS", "--fair-sched=yes")
	dir := t.TempDir()
	write := func(name, text string) { testmod.Write(t, dir, map[string]string{name: text}) }
	write("go.mod", "module example.com/long\n\ngo 1.24\n")
	write("long_test.go", `package long

import "testing"

// mix is one step of a hash. It calls fold, which makes it a function with a stack check (a leaf function
// with a small frame has none), and the loop calls it many times.
//
//go:noinline
func mix(h, x uint64) uint64 {
	return fold(h^x) * 0x100000001b3
}

//go:noinline
func fold(h uint64) uint64 { return h ^ h>>29 }

var sink uint64

func BenchmarkLong(b *testing.B) {
	for b.Loop() {
		h := uint64(14695981039346656037)
		for i := range uint64(100_000) {
			h = mix(h, i)
		}
		sink += h
	}
}

type node struct {
	next *node
	val  [3]uint64
}

//go:noinline
func list(n int) *node {
	var head *node
	for i := range n {
		head = &node{next: head, val: [3]uint64{uint64(i)}}
	}
	return head
}

var head *node

// BenchmarkAlloc allocates 320 KB per op: the collector would run during the loop.
func BenchmarkAlloc(b *testing.B) {
	for b.Loop() {
		head = list(10_000)
	}
}
`)
	cfg := gobuild.Config{Dir: dir, Pkg: ".", Out: filepath.Join(dir, "long.test")}
	if _, err := gobuild.Build(t.Context(), record.Base, cfg); err != nil {
		t.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: dir}
	run, err := RunInstructions(t.Context(), RunConfig{Base: bin, Head: bin, CPU: -1}, InstrConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Failures) > 0 {
		t.Fatalf("failures: %+v", run.Failures)
	}
	for _, name := range []string{"Long", "Alloc"} {
		counts := append(perOp(run, name, record.Base), perOp(run, name, record.Head)...)
		t.Logf("%s: N=%d: counts %v", name, run.Iters[name], counts)
		if len(counts) != 4 {
			t.Fatalf("%s: %d counts, want 4", name, len(counts))
		}
		for _, c := range counts[1:] {
			if c != counts[0] {
				t.Errorf("%s: the four counts of one binary differ: %v", name, counts)
				break
			}
		}
	}
	cs, err := bench.CompareInstructions(run.Samples, bench.DefaultInstrThresholdPct)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Class != record.ClassUnchanged || c.DeltaPct != 0 {
			t.Errorf("%s: %s %+g%%, want unchanged by exactly 0%%", c.Name, c.Class, c.DeltaPct)
		}
	}

	// The same loop at the lane's N, under callgrind directly: the counted code failed stack
	// checks.
	syms, err := callgrind.ReadSymtab(bin.Path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "callgrind.out")
	args := append(callgrind.Args(out, false), bin.Path, "-test.run=^$", "-test.bench=^BenchmarkLong$",
		"-test.benchtime="+strconv.Itoa(run.Iters["Long"])+"x", "-test.cpu=1")
	// (instrEnv(nil) with the host's switches: the lane's environment.)
	vg, err := valgrind.Find(t.Context(), "", "the test needs it")
	if err != nil {
		t.Fatal(err)
	}
	host, err := valgrind.Probe(t.Context(), vg.Path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := proc.Run(proc.Command(t.Context(), dir, host.Env(instrEnv(nil)), append([]string{vg.Path}, args...)...)); err != nil {
		t.Fatal(err)
	}
	segs, err := callgrind.ReadDumps(out, syms)
	if err != nil {
		t.Fatal(err)
	}
	var rechecks int64
	for _, s := range segs {
		rechecks += s.Rechecks
	}
	t.Logf("%d failed stack checks in the counted code of one run", rechecks)
	if rechecks == 0 {
		t.Errorf("no stack check failed in the counted code: the benchmark was never preempted, the test shows nothing")
	}
}

// loopBody disassembles function fn (a regexp for go tool objdump -s) of bin, finds the loop whose
// body refers to ref, and returns how many instructions one iteration executes: those from the
// target of the loop's backward jump to the jump itself. It fails the test when a jump inside the
// body lands inside it, since the body would then not be straight-line code.
func loopBody(t *testing.T, bin, fn, ref string) int {
	t.Helper()
	out, _, err := proc.Run(proc.Command(t.Context(), "", nil, "go", "tool", "objdump", "-s", fn, bin))
	if err != nil {
		t.Fatal(err)
	}
	type insn struct {
		addr   uint64
		text   string
		target uint64 // the target of a jump, else 0
	}
	var code []insn
	refAt := -1
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.FieldsFunc(line, func(r rune) bool { return r == '\t' })
		if len(f) < 4 || !strings.HasPrefix(f[1], "0x") {
			continue
		}
		addr, err := strconv.ParseUint(f[1], 0, 64)
		if err != nil {
			t.Fatalf("objdump line %q: %v", line, err)
		}
		in := insn{addr: addr, text: strings.TrimSpace(f[3])}
		if op, arg, ok := strings.Cut(in.text, " "); ok && strings.HasPrefix(op, "J") {
			in.target, _ = strconv.ParseUint(strings.TrimSpace(arg), 0, 64)
		}
		if strings.Contains(in.text, ref) && refAt < 0 {
			refAt = len(code)
		}
		code = append(code, in)
	}
	if refAt < 0 {
		t.Fatalf("%s: no instruction refers to %s", fn, ref)
	}
	for j := refAt; j < len(code); j++ {
		back := code[j]
		if back.target == 0 || back.target > code[refAt].addr {
			continue
		}
		n := 0
		for _, in := range code {
			if in.addr < back.target || in.addr > back.addr {
				continue
			}
			n++
			if in.addr != back.addr && in.target >= back.target && in.target <= back.addr {
				t.Fatalf("%s: the loop at %#x has a jump inside its body at %#x: not straight-line", fn, back.target, in.addr)
			}
		}
		return n
	}
	t.Fatalf("%s: no backward jump encloses the reference to %s", fn, ref)
	return 0
}

// TestRunInstructionsWithoutValgrind: a missing valgrind is an error wrapping valgrind.ErrNotFound
// that names the install command.
func TestRunInstructionsWithoutValgrind(t *testing.T) {
	_, err := RunInstructions(context.Background(), RunConfig{Base: Binary{Path: "a"}, Head: Binary{Path: "b"}},
		InstrConfig{Valgrind: filepath.Join(t.TempDir(), "valgrind")})
	if !errors.Is(err, valgrind.ErrNotFound) || !strings.Contains(err.Error(), valgrind.InstallCommand) {
		t.Errorf("RunInstructions without valgrind: %v, want valgrind.ErrNotFound naming %q", err, valgrind.InstallCommand)
	}
}

// BenchmarkInstructionLaneGate measures the cost of the instruction-count lane on this repository's
// own gate (.perfgate.yml: -bench '^(Encrypt|Decrypt|KeySetup)/' on ./cipher/des), one binary on
// both sides:
//
//	go test ./bench -run '^$' -bench InstructionLaneGate -benchtime 1x
//
// It reports the lane's wall time in seconds (lane-s) and the number of leaves counted.
func BenchmarkInstructionLaneGate(b *testing.B) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		b.Skip("needs valgrind")
	}
	cfg := gobuild.Config{Dir: "../..", Pkg: "./cipher/des", Out: filepath.Join(b.TempDir(), "des.test")}
	if _, err := gobuild.Build(b.Context(), record.Base, cfg); err != nil {
		b.Fatal(err)
	}
	info, err := gobuild.Inspect(b.Context(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	bin := Binary{Path: cfg.Out, Dir: info.Dir}
	for b.Loop() {
		run, err := RunInstructions(b.Context(), RunConfig{Base: bin, Head: bin, CPU: -1,
			Filter: mustMatcher(b, `^(Encrypt|Decrypt|KeySetup)$`)}, InstrConfig{})
		if err != nil {
			b.Fatal(err)
		}
		if len(run.Failures) > 0 {
			b.Fatalf("failures: %+v", run.Failures)
		}
		b.ReportMetric(run.Elapsed.Seconds(), "lane-s")
		b.ReportMetric(run.Calibration.Seconds(), "calibration-s")
		b.ReportMetric(float64(len(run.Leaves)), "leaves")
	}
}

func demoConfig(t *testing.T, dir, out string) gobuild.Config {
	return gobuild.Config{Dir: dir, Pkg: demo.Package, Out: filepath.Join(t.TempDir(), out)}
}
