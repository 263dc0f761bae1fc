package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/record"
)

// counts returns instructions/op samples of one round of A–B–B–A: base gets b0 (slot 0) and b3 (slot 3), head
// h1 and h2.
func counts(name string, b0, h1, h2, b3 float64) []Sample {
	s := func(side Side, slot int, v float64) Sample {
		return Sample{Name: name, Side: side, Slot: slot, Iters: 100, Values: []Value{{Value: v, Unit: UnitInstructions}}}
	}
	return []Sample{s(Base, 0, b0), s(Head, 1, h1), s(Head, 2, h2), s(Base, 3, b3)}
}

func TestCompareInstructions(t *testing.T) {
	var samples []Sample
	samples = append(samples, counts("same", 1000, 1000, 1000, 1000)...)
	samples = append(samples, counts("near", 1e6, 1.004e6, 1.004e6, 1e6)...)     // +0.4%: inside 0.5%
	samples = append(samples, counts("slower", 1e6, 1.006e6, 1.006e6, 1e6)...)   // +0.6%
	samples = append(samples, counts("faster", 1e6, 0.9e6, 0.9e6, 1e6)...)       // −10%
	samples = append(samples, counts("wobbly", 1e6, 1e6, 1e6, 1.0002e6)...)      // base repeats to 0.02% only
	samples = append(samples, counts("edge", 1e6, 1.00505e6, 1.00505e6, 1e6)...) // 0.005% beyond the threshold
	samples = append(samples, counts("tiny", 1e6, 1e6+50, 1e6+30, 1e6+10)...)    // repeats within 0.01%
	// Another unit and a side without samples.
	samples = append(samples, Sample{Name: "same", Side: Base, Values: []Value{{Value: 1e-6, Unit: "sec/op"}}})
	samples = append(samples, counts("headless", 1, 1, 1, 1)[0])

	cs, err := CompareInstructions(samples, DefaultInstrThresholdPct)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name  string
		Class record.Class
		Delta float64 // DeltaPct rounded to 4 decimals
		P     float64
	}
	var got []row
	notes := map[string]string{}
	for _, c := range cs {
		if c.Unit != UnitInstructions || !c.Exact {
			t.Errorf("%s: unit %q exact %v", c.Name, c.Unit, c.Exact)
		}
		got = append(got, row{c.Name, c.Class, math.Round(c.DeltaPct*1e4) / 1e4, c.P})
		notes[c.Name] = c.Note
	}
	// Known answers: the deltas are (head median / base median − 1) × 100 of the counts above.
	want := []row{
		{"edge", record.ClassSlower, 0.505, 0},
		{"faster", record.ClassFaster, -10, 0},
		{"headless", record.ClassFailed, 0, 1},
		{"near", record.ClassUnchanged, 0.4, 1},
		{"same", record.ClassUnchanged, 0, 1},
		{"slower", record.ClassSlower, 0.6, 0},
		{"tiny", record.ClassUnchanged, 0.0035, 1},
		{"wobbly", record.ClassFailed, -0.01, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CompareInstructions (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"wobbly":   "base's counts of one binary range from 1000000 to 1000200, 0.0200% apart",
		"edge":     "within the lane's resolution",
		"headless": "no head samples",
	} {
		if !strings.Contains(notes[name], want) {
			t.Errorf("%s: note %q, want it to contain %q", name, notes[name], want)
		}
	}
	if notes["slower"] != "" || notes["same"] != "" {
		t.Errorf("notes of clear cases: %q, %q; want none", notes["slower"], notes["same"])
	}
	// Identical counts give exactly 0.
	for _, c := range cs {
		if c.Name == "same" && (c.DeltaPct != 0 || c.NoisePct != 0 || c.Base.Center != 1000 || c.Base.N != 2) {
			t.Errorf("same: %+v", c)
		}
	}

	if _, err := CompareInstructions(samples, 100); err == nil || !strings.Contains(err.Error(), "threshold") {
		t.Errorf("threshold 1: error %v, want one naming the threshold", err)
	}
	// A threshold of 0 makes every difference a change.
	cs, _ = CompareInstructions(counts("x", 1e6, 1e6+10, 1e6+10, 1e6), 0)
	if cs[0].Class != record.ClassSlower {
		t.Errorf("threshold 0: %s, want slower", cs[0].Class)
	}
}

func TestMetricNote(t *testing.T) {
	cmpOf := func(class record.Class, delta float64) Comparison { return Comparison{Class: class, DeltaPct: delta} }
	timed := func(class record.Class, ratio float64) Comparison {
		return Comparison{Class: class, DeltaPct: 99, Paired: &record.Paired{Ratio: ratio}}
	}
	for _, tc := range []struct {
		name          string
		time, instr   Comparison
		gates         string
		want, without string // want: a substring ("" for no note); without: must not appear
	}{
		{"agree", timed(record.ClassSlower, 1.05), cmpOf(record.ClassSlower, 3), "", "", ""},
		{"layout", timed(record.ClassSlower, 1.05), cmpOf(record.ClassUnchanged, 0.01), "sec/op",
			"time is slower (+5.0%) but instructions/op are unchanged (+0.01%): the same instructions run slower, which points at code layout, alignment, caches or the machine rather than at the code's work; sec/op gates", "+99"},
		{"latency", timed(record.ClassUnchanged, 1.001), cmpOf(record.ClassFaster, -10), "instructions/op",
			"instructions/op are faster (-10.00%) but time is unchanged (+0.1%): the instructions saved are off the critical path", ""},
		{"opposite", timed(record.ClassFaster, 0.97), cmpOf(record.ClassSlower, 2), "",
			"time says faster (-3.0%) but instructions/op say slower (+2.00%)", "gates"},
		{"noisy time", timed(record.ClassInconclusive, 1.02), cmpOf(record.ClassFaster, -8), "",
			"time is inconclusive but instructions/op are faster (-8.00%)", ""},
		{"unpaired time", cmpOf(record.ClassSlower, 4), cmpOf(record.ClassUnchanged, 0), "",
			"time is slower (+4.0%)", ""},
		{"failed", timed(record.ClassFailed, 1), cmpOf(record.ClassFaster, -8), "", "", ""},
		{"failed count", timed(record.ClassSlower, 1.1), cmpOf(record.ClassFailed, 0), "", "", ""},
	} {
		got := MetricNote(tc.time, tc.instr, tc.gates)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || tc.without != "" && strings.Contains(got, tc.without) {
			t.Errorf("%s: MetricNote = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// cachegrindOut is a cachegrind output file as valgrind 3.19 writes it with --cache-sim=no, shortened.
const cachegrindOut = `desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         49152 B, 64 B, 12-way associative
cmd: /tmp/x.test -test.run ^$ -test.bench ^BenchmarkEncrypt$/^des$ -test.benchtime=10x -test.cpu=1
events: Ir
fl=./block.go
fn=example.com/minides/minides.crypt
10 1000
11 500
fn=runtime.mallocgc
1 70
fl=./asm_amd64.s
fn=runtime.memmove
5 40
fn=gcWriteBarrier2
3 7
fn=memeqbody
2 9
fl=./internal/runtime/maps/map.go
fn=internal/runtime/maps.(*Map).getWithKey
7 11
fn=runtime.sysmon
4 13
summary: 1650
`

func TestReadCounts(t *testing.T) {
	got, err := readCounts(strings.NewReader(cachegrindOut))
	if err != nil {
		t.Fatal(err)
	}
	// Counted: crypt 1500, memmove 40, memeqbody 9. The rest is the runtime's.
	if want := (Counts{Total: 1650, Counted: 1549}); got != want {
		t.Errorf("readCounts = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "events: Dr\nfn=a\n1 2\n", "events: Ir\n1 2\n", "events: Ir\nfn=a\n1 x\n"} {
		if _, err := readCounts(strings.NewReader(bad)); err == nil {
			t.Errorf("readCounts(%q): no error", bad)
		}
	}
}

func TestRuntimeFunc(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.mallocgc":                 true,
		"runtime.(*pageAlloc).find":        true,
		"internal/runtime/maps.newarray":   true,
		"gcWriteBarrier2":                  true,
		"gogo":                             true,
		"internal/chacha8rand.block":       true,
		"runtime.memmove":                  false,
		"runtime.memequal64":               false,
		"memeqbody":                        false,
		"internal/bytealg.IndexByte":       false,
		"crypto/des.feistel":               false,
		"testing.(*B).Loop":                false,
		"example.com/runtime/x.f":          false,
		"github.com/perfgate/perfgate/x.f": false,
	} {
		if got := runtimeFunc(fn); got != want {
			t.Errorf("runtimeFunc(%q) = %v, want %v", fn, got, want)
		}
	}
}

func TestInstrEnv(t *testing.T) {
	got := instrEnv([]string{"A=1", "GOMAXPROCS=8", "GODEBUG=madvdontneed=1"})
	want := []string{"A=1", "GOMAXPROCS=1", "GODEBUG=madvdontneed=1,asyncpreemptoff=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instrEnv (-want +got):\n%s", diff)
	}
	if got := instrEnv(nil); !cmp.Equal(got, []string{"GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1"}) {
		t.Errorf("instrEnv(nil) = %q", got)
	}
}
