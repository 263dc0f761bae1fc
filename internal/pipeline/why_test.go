package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestSources reads a side's files by the names a -trimpath binary records, and nothing outside the
// module.
func TestSources(t *testing.T) {
	dir := testmod.Temp(t, map[string]string{
		"go.mod": "// a comment\nmodule \"example.com/m/v2\" // the module\n\ngo 1.22\n",
		"x/x.go": "package x\n",
		"m.go":   "package m\n",
	})
	src := (&pipeline{}).sources(&side{modDir: dir})
	for file, want := range map[string]string{"example.com/m/v2/x/x.go": "package x\n", "example.com/m/v2/m.go": "package m\n"} {
		if b, ok := src(file); !ok || string(b) != want {
			t.Errorf("%s: %q, %v", file, b, ok)
		}
	}
	for _, file := range []string{"fmt/print.go", "example.com/m/v2/x/../m.go", "example.com/m/v2/none.go", "example.com/m/x/x.go"} {
		if _, ok := src(file); ok {
			t.Errorf("%s found", file)
		}
	}
}

// TestResultsName names a package's profile from the comparison's results directory.
func TestResultsName(t *testing.T) {
	out := t.TempDir()
	p := &pipeline{cfg: config.Config{Out: out}, dir: results.Dir(out)}
	if got := p.resultsName("cpu-base-1.pprof"); got != "cpu-base-1.pprof" {
		t.Errorf("top: %q", got)
	}
	p.dir = results.Dir(out).Package("./cipher/des")
	if got := p.resultsName("cpu-base-1.pprof"); got != "packages/cipher/des/cpu-base-1.pprof" {
		t.Errorf("package: %q", got)
	}
}

// hotPkg is a package whose head does more work on one line of Work (line 8), and no longer inlines
// mix into Mixed (mix is marked go:noinline on head).
func hotPkg(head bool) map[string]string {
	body, directive := "s += v*2654435761 ^ s>>7", ""
	if head {
		body, directive = "s += (v*2654435761 ^ s>>7) * (v ^ s<<3) * (s>>11 | 1)", "//go:noinline\n"
	}
	return map[string]string{
		"go.mod": "module example.com/hot\n\ngo 1.22\n",
		"hot.go": `package hot

// Work mixes x into a sum.
func Work(x []uint32) uint32 {
	var s uint32
	for _, v := range x {
		// the line head changes
		` + body + `
	}
	return s
}

` + directive + `func mix(v, s uint32) uint32 { return v*2654435761 ^ s>>7 }

// Mixed mixes x with mix.
func Mixed(x []uint32) uint32 {
	var s uint32
	for _, v := range x {
		s += mix(v, s)
	}
	return s
}
`,
		"hot_test.go": `package hot

import "testing"

func TestWork(t *testing.T) {
	if Work([]uint32{1, 2}) == Work([]uint32{2, 1}) && Mixed([]uint32{1}) == 0 {
		t.Fatal("no mixing")
	}
}

var buf = make([]uint32, 256)

var sink uint32

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink += Work(buf)
	}
}

func BenchmarkMixed(b *testing.B) {
	for b.Loop() {
		sink += Mixed(buf)
	}
}
`,
	}
}

// TestWhyInstructionsE2E runs a whole comparison under metric instructions on hotPkg: the Why of
// Work names hot.go:8, head's changed line, first; the Why of Mixed names the compiler's change
// (mix no longer inlined, into BenchmarkMixed, where Mixed is inlined); and the comment shows both.
func TestWhyInstructionsE2E(t *testing.T) {
	needLaneE2E(t)
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", hotPkg(false))
	head := repo.Commit("head", hotPkg(true))
	cfg := fastConfig(t, repo.Dir, ".", base, head)
	cfg.Metric = record.MetricInstructions
	res, err := runE2E(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	whys := map[string]record.Why{}
	for _, w := range res.Why {
		whys[w.Name] = w
	}
	work, ok := whys["Work"]
	if !ok || len(work.Lines) == 0 {
		t.Fatalf("no Why of Work with lines: %+v", res.Why)
	}
	// Work is inlined into its benchmark: the line is Work's, in BenchmarkWork's code.
	if l := work.Lines[0]; l.File != "example.com/hot/hot.go" || l.Line != 8 || l.BaseLine != 0 ||
		l.Func != "example.com/hot.Work" && l.Inlined != "example.com/hot.Work" || l.Head <= l.Base || l.Share < 0.5 {
		t.Errorf("Work's top line %+v, want head's changed hot.go:8 of Work, most of the change", l)
	}
	if work.Unit != record.UnitInstructions || work.HeadCount <= work.BaseCount || work.Class != record.ClassSlower {
		t.Errorf("Work: %s %v → %v, class %s", work.Unit, work.BaseCount, work.HeadCount, work.Class)
	}
	if !slices.ContainsFunc(work.Annotated, func(a record.WhyAnnotated) bool { return a.Func == "example.com/hot.Work" }) {
		t.Errorf("Work's annotated functions %+v, want Work first", work.Annotated)
	}
	mixed, ok := whys["Mixed"]
	if !ok {
		t.Fatalf("no Why of Mixed: %+v", res.Why)
	}
	if !slices.ContainsFunc(mixed.Compiler, func(c string) bool {
		return strings.HasPrefix(c, "mix is no longer inlined into ")
	}) {
		t.Errorf("Mixed's compiler changes %q, want mix no longer inlined; notes %q", mixed.Compiler, mixed.Notes)
	}
	if len(mixed.Lines) == 0 || !slices.ContainsFunc([]string{"example.com/hot.mix", "example.com/hot.Mixed"},
		func(fn string) bool { return mixed.Lines[0].Func == fn || mixed.Lines[0].Inlined == fn }) {
		t.Errorf("Mixed's top line %+v, want one of mix or Mixed", mixed.Lines)
	}
	md := mdreport.Markdown(res, report.Options{})
	for _, want := range []string{"hot.go:8", "mix is no longer inlined into "} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	// The result directory's result.json holds the same.
	back, err := results.Dir(cfg.Out).ReadResult(1 << 26)
	if err != nil || len(back.Why) != len(res.Why) {
		t.Errorf("result.json: %d whys, %v", len(back.Why), err)
	}
}

// TestWhyProfileE2E runs a whole comparison under metric time on hotPkg with Work made four times
// faster (a quarter of the loop): when wall time classes Work changed (timing never decides a test:
// otherwise the test has nothing to check), its Why holds a CPU profile diff naming Work (or its
// benchmark, where it is inlined), and both profiles are in the results directory.
func TestWhyProfileE2E(t *testing.T) {
	testenv.Long(t)
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", hotPkg(false))
	files := hotPkg(false)
	files["hot.go"] = strings.Replace(files["hot.go"], "for _, v := range x {\n\t\t// the line head changes",
		"for _, v := range x[:len(x)/4] {\n\t\t// the line head changes", 1)
	head := repo.Commit("head", files)
	cfg := fastConfig(t, repo.Dir, ".", base, head)
	cfg.Rounds, cfg.BenchTime = 4, config.For(50*time.Millisecond)
	res, err := runE2E(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var work *record.Why
	for i := range res.Why {
		if res.Why[i].Name == "Work" {
			work = &res.Why[i]
		}
	}
	if work == nil {
		for _, b := range res.Benchmarks {
			if b.Name == "Work" && b.Unit == record.UnitTime && (b.Class == record.ClassSlower || b.Class == record.ClassFaster) {
				t.Fatalf("Work is %s but has no Why: %+v", b.Class, res.Why)
			}
		}
		t.Skip("wall time did not class Work as changed under this load: nothing to explain")
	}
	if !slices.ContainsFunc(work.Profile, func(p record.WhyProfile) bool {
		return p.Func == "example.com/hot.Work" || p.Func == "example.com/hot.BenchmarkWork"
	}) {
		t.Errorf("Work's profile diff %+v names no example.com/hot.Work; notes %q", work.Profile, work.Notes)
	}
	for _, side := range []record.Side{record.Base, record.Head} {
		name := work.ProfileFiles[side]
		if fi, err := os.Stat(filepath.Join(cfg.Out, name)); name == "" || err != nil || fi.Size() == 0 {
			t.Errorf("%s profile %q: %v", side, name, err)
		}
	}
	if md := mdreport.Markdown(res, report.Options{}); !strings.Contains(md, "hot.Work") && !strings.Contains(md, "hot.BenchmarkWork") {
		t.Errorf("the comment does not name hot.Work:\n%s", md)
	}
}
