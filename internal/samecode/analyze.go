package samecode

import (
	"bytes"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Report is the answer for one pair of test binaries.
type Report struct {
	// Identical is true when the two files are byte for byte the same; every benchmark is then
	// Same.
	Identical bool
	// Fallback says why the binaries were not analysed (another format or architecture, no symbol
	// table, …); every benchmark is then reported changed unless Identical. Empty when they were
	// analysed.
	Fallback string
	// Benchmarks maps each top-level benchmark name, without the "Benchmark" prefix, to its
	// verdict.
	Benchmarks map[string]Verdict
	// Units is how many symbols (functions, data, carriers) base's binary was cut into, and Common
	// how many of them every benchmark reaches (the runtime, the testing package, package
	// initialisation, …).
	Units, Common int

	// reached maps each benchmark to the names of the units it reaches (for tests).
	reached map[string]map[string]bool
}

// Verdict says whether one benchmark runs the same machine code on both sides.
type Verdict struct {
	// Same is true when every unit the benchmark can reach is the same in head after normalisation.
	Same bool
	// Reason names the first difference found and how the benchmark reaches it (e.g.
	// "example.com/p.f: bytes differ at +0x1c (reached from example.com/p.g ←
	// example.com/p.BenchmarkX)"), or why the benchmark could not be analysed. Empty when Same. It
	// holds symbol names from the binaries: escape it before it goes into Markdown.
	Reason string
	// Reached is how many units the benchmark reaches, the common ones included.
	Reached int
}

// Analyze decides, for each benchmark, whether the test binary headBin runs exactly the machine
// code of baseBin. Benchmark names may be given with or without the "Benchmark" prefix and with
// sub-benchmark parts ("Encrypt/des/single" is the top-level benchmark "Encrypt"); the report is
// keyed by top-level name. An error means a file could not be read; a binary that cannot be
// analysed gives a Fallback, not an error.
func Analyze(baseBin, headBin string, benchmarks []string) (*Report, error) {
	names := topLevel(benchmarks)
	rep := &Report{Benchmarks: map[string]Verdict{}}
	all := func(v Verdict) *Report {
		for _, n := range names {
			rep.Benchmarks[n] = v
		}
		return rep
	}
	bb, err := os.ReadFile(baseBin)
	if err != nil {
		return nil, fmt.Errorf("reading base binary: %w", err)
	}
	hb, err := os.ReadFile(headBin)
	if err != nil {
		return nil, fmt.Errorf("reading head binary: %w", err)
	}
	if bytes.Equal(bb, hb) {
		rep.Identical = true
		return all(Verdict{Same: true}), nil
	}
	// The two binaries are read at the same time: decoding every function is most of the work.
	var head *image
	var headWhy string
	done := make(chan struct{})
	go func() {
		head, headWhy = open(headBin, hb)
		close(done)
	}()
	base, why := open(baseBin, bb)
	<-done
	switch {
	case why != "":
		why = "base: " + why
	case headWhy != "":
		why = "head: " + headWhy
	default:
		return analyze(rep, base, head, names), nil
	}
	rep.Fallback = why
	return all(Verdict{Reason: "binaries differ and were not analysed: " + why}), nil
}

// open loads and prepares one binary, or says why it cannot be analysed. The binary holds untrusted
// code: a flaw of the reader that it trips (a panic) makes it not analysable, in whichever
// goroutine open runs.
func open(path string, content []byte) (img *image, why string) {
	defer func() {
		if v := recover(); v != nil {
			img, why = nil, fmt.Sprintf("reading it failed: %v", v)
		}
	}()
	r := bytes.NewReader(content)
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, "not an ELF file"
	}
	if why := supported(f, r); why != "" {
		return nil, why
	}
	b, err := load(path, f)
	if err == nil {
		err = prepare(b)
	}
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// topLevel returns the distinct top-level names of benchmarks, without the "Benchmark" prefix,
// sorted.
func topLevel(benchmarks []string) []string {
	var out []string
	for _, n := range benchmarks {
		n, _, _ = strings.Cut(n, "/")
		out = append(out, strings.TrimPrefix(n, "Benchmark"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// recordReached makes Analyze record the units each benchmark reaches in Report.reached (for
// tests).
var recordReached = false

// testFunc matches the identifier of a function the test main lists: its tables are not followed,
// so that reaching the test main does not reach every test and benchmark.
var testFunc = regexp.MustCompile(`^(Test|Benchmark|Example|Fuzz)[^.]*$`)

// funcIdent returns the identifier part of a function symbol "import/path.Name…" (after the
// package).
func funcIdent(sym string) (pkg, ident string) {
	slash := strings.LastIndex(sym, "/")
	dot := strings.Index(sym[slash+1:], ".")
	if dot < 0 {
		return "", sym
	}
	return sym[:slash+1+dot], sym[slash+1+dot+1:]
}

// analyze walks, from the roots every benchmark shares and then from each benchmark function, the
// units base can reach, and compares each with its namesake in head.
func analyze(rep *Report, base, head *image, names []string) *Report {
	if recordReached {
		rep.reached = map[string]map[string]bool{}
	}
	rep.Units = len(base.units)
	tables := testTables(base)
	diff := map[*unit]string{}
	compared := func(u *unit) string {
		d, ok := diff[u]
		if !ok {
			d = differ(base, head, u)
			diff[u] = d
		}
		return d
	}
	// walk reaches from roots the units not yet in reached, and returns the first difference and
	// the path it was reached by. A type descriptor referred to only as the type of an allocation
	// (sig.allocs) is reached for its layout: compared, and followed only to its GC mask
	// (layoutEdges), unless something reaches it in full.
	type item struct {
		u      *unit
		layout bool
	}
	walk := func(reached, layout map[*unit]bool, roots []*unit) string {
		var work []item
		for _, u := range roots {
			work = append(work, item{u, false})
		}
		from := map[*unit]*unit{}
		first := ""
		push := func(u, t *unit, lay bool) {
			if reached[t] || lay && layout[t] {
				return
			}
			if _, ok := from[t]; !ok {
				from[t] = u
			}
			work = append(work, item{t, lay})
		}
		for len(work) > 0 {
			it := work[0]
			work = work[1:]
			u := it.u
			if reached[u] || it.layout && layout[u] {
				continue
			}
			if it.layout {
				layout[u] = true
			} else {
				reached[u] = true
			}
			if d := compared(u); d != "" && first == "" {
				first = u.name + ": " + d + via(from, u)
			}
			if it.layout {
				for _, t := range base.layoutEdges(u) {
					push(u, t, false)
				}
				continue
			}
			sg := base.sigOf(u)
			for _, t := range sg.edges {
				if tables[u] && strings.HasSuffix(t.name, "·f") {
					if _, id := funcIdent(strings.TrimSuffix(t.name, "·f")); testFunc.MatchString(id) {
						continue
					}
				}
				push(u, t, false)
			}
			for _, t := range sg.allocs {
				push(u, t, true)
			}
		}
		return first
	}
	common, commonLayout := map[*unit]bool{}, map[*unit]bool{}
	commonDiff := walk(common, commonLayout, commonRoots(base))
	rep.Common = len(common)
	for _, n := range names {
		fns := benchFuncs(base, n)
		if len(fns) == 0 {
			rep.Benchmarks[n] = Verdict{Reason: "no function Benchmark" + n + " in base"}
			continue
		}
		if len(benchFuncs(head, n)) != len(fns) {
			rep.Benchmarks[n] = Verdict{Reason: "Benchmark" + n + " is not the same function in head"}
			continue
		}
		reached := make(map[*unit]bool, len(common)+256)
		for u := range common {
			reached[u] = true
		}
		layout := maps.Clone(commonLayout)
		d := walk(reached, layout, fns)
		if d == "" {
			d = commonDiff
		}
		for u := range reached {
			delete(layout, u)
		}
		rep.Benchmarks[n] = Verdict{Same: d == "", Reason: d, Reached: len(reached) + len(layout)}
		if rep.reached != nil {
			rep.reached[n] = map[string]bool{}
			for u := range reached {
				rep.reached[n][u.name] = true
			}
			for u := range layout {
				rep.reached[n][u.name] = true
			}
		}
	}
	return rep
}

// via describes the path by which u was reached, nearest first, at most a few steps.
func via(from map[*unit]*unit, u *unit) string {
	var path []string
	for p := from[u]; p != nil && len(path) < 6; p = from[p] {
		path = append(path, p.name)
	}
	if len(path) == 0 {
		return ""
	}
	return " (reached from " + strings.Join(path, " ← ") + ")"
}

// testTables returns the data the test main's main function reaches through data alone: its tables
// of tests, benchmarks, fuzz targets and examples. Their function values are not followed.
func testTables(b *image) map[*unit]bool {
	tables := map[*unit]bool{}
	m := b.byNam["main.main"]
	if m == nil {
		return tables
	}
	work := slices.Clone(b.sigOf(m).edges)
	for len(work) > 0 {
		u := work[len(work)-1]
		work = work[:len(work)-1]
		if tables[u] || u.kind != kindData {
			continue
		}
		tables[u] = true
		work = append(work, b.sigOf(u).edges...)
	}
	return tables
}

// commonRoots are where every benchmark run starts or passes: the entry point, the runtime's and
// the test main's main functions, and every package's initialisation.
func commonRoots(b *image) []*unit {
	var roots []*unit
	if u, _ := b.lookup(b.f.Entry); u != nil {
		roots = append(roots, u)
	}
	for _, n := range []string{"main.main", "runtime.main"} {
		if u := b.byNam[n]; u != nil {
			roots = append(roots, u)
		}
	}
	for _, u := range b.units {
		if isInit(u.name) {
			roots = append(roots, u)
		}
	}
	return roots
}

var initName = regexp.MustCompile(`\.init(\.\d+)?$|\.\.inittask$`)

func isInit(name string) bool { return initName.MatchString(name) }

// benchFuncs returns the functions named BenchmarkN in b (in the package under test or its external
// test package).
func benchFuncs(b *image, n string) []*unit {
	var out []*unit
	for _, u := range b.units {
		if u.kind != kindText {
			continue
		}
		if _, id := funcIdent(u.name); id == "Benchmark"+n {
			out = append(out, u)
		}
	}
	return out
}
