package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// twoFuncs is a package with two functions, each measured by its own benchmark; mulF and mulG are
// their constants, and doc is a comment put above the package clause (it shifts every line, not the
// code).
func twoFuncs(doc, mulF, mulG string) map[string]string {
	return map[string]string{
		"go.mod": testmod.GoMod("example.com/two", "1.22"),
		"two.go": doc + "package two\n\n// F scrambles x.\nfunc F(x uint32) uint32 { return (x ^ 0x5bd1e995) * " + mulF + " }\n\n" +
			"// G scrambles x another way.\nfunc G(x uint32) uint32 { return (x + 0x27d4eb2f) * " + mulG + " }\n",
		"two_test.go": "package two\n\nimport \"testing\"\n\nvar sink uint32\n\n" +
			"func TestFG(t *testing.T) {\n\tif F(1) == F(2) || G(1) == G(2) {\n\t\tt.Fatal(\"not injective on 1, 2\")\n\t}\n}\n\n" +
			"func BenchmarkF(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += F(uint32(i))\n\t}\n}\n\n" +
			"func BenchmarkG(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += G(uint32(i))\n\t}\n}\n",
	}
}

// sameCodeRepo commits twoFuncs as base, then a doc-comment-only change, then a change of G alone.
func sameCodeRepo(t *testing.T) (repo *testmod.Repo, base, doc, changeG string) {
	t.Helper()
	repo = testmod.NewRepo(t)
	base = repo.Commit("base", twoFuncs("", "2654435761", "2246822519"))
	doc = repo.Commit("doc", twoFuncs("// Package two has two functions.\n//\n// Neither is a hash anyone should use.\n", "2654435761", "2246822519"))
	changeG = repo.Commit("change G", twoFuncs("", "2654435761", "3266489917"))
	return repo, base, doc, changeG
}

// byName returns res's sec/op benchmark rows by name.
func byName(res *record.Result) map[string]record.Benchmark {
	m := map[string]record.Benchmark{}
	for _, b := range res.Benchmarks {
		if b.Unit == record.UnitTime {
			m[b.Name] = b
		}
	}
	return m
}

func TestSameCodeEndToEnd(t *testing.T) {
	repo, base, doc, changeG := sameCodeRepo(t)
	config := func(t *testing.T, head string) config.Config {
		cfg := fastConfig(t, repo.Dir, ".", base, head)
		cfg.TimeSameCode = false
		return cfg
	}

	t.Run("doc comment: all same, nothing timed", func(t *testing.T) {
		cfg := config(t, doc)
		res, err := runE2E(t, cfg)
		if err != nil || res.Verdict.Status != record.StatusPass || res.Verdict.ExitCode != record.ExitPass {
			t.Fatalf("verdict %s %v, error %v; want pass", res.Verdict.Status, res.Verdict.Reasons, err)
		}
		if res.Method.BinariesSame {
			t.Fatal("the fixture's binaries are byte-identical: the doc comment must shift line numbers")
		}
		got := byName(res)
		if len(got) != 2 {
			t.Fatalf("benchmarks %v, want F and G", benchNames(res))
		}
		for _, name := range []string{"F", "G"} {
			b := got[name]
			if !b.SameCode || b.Class != record.ClassUnchanged || b.Note != record.NoteSameCode || b.Rounds != 0 || b.Base.N != 0 {
				t.Errorf("%s: %+v; want same code, unchanged, untimed", name, b)
			}
		}
		if res.Method.Settled != 2 {
			t.Errorf("settled %d, want 2", res.Method.Settled)
		}
		var bench record.Check
		for _, c := range res.Verdict.Checks {
			if c.Name == record.CheckBenchmarks {
				bench = c
			}
		}
		if !bench.Ran || bench.Detail != "2 benchmarks: same machine code" {
			t.Errorf("benchmark check %+v, want ran with detail %q", bench, "2 benchmarks: same machine code")
		}
		// Nothing was timed: bench.txt holds no sample.
		txt, err := os.ReadFile(filepath.Join(cfg.Out, "bench.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(txt), "Benchmark") {
			t.Errorf("bench.txt has samples:\n%s", txt)
		}
		// result.json says same_code on every row.
		raw, err := os.ReadFile(filepath.Join(cfg.Out, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Benchmarks []map[string]any `json:"benchmarks"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, b := range doc.Benchmarks {
			if b["same_code"] != true {
				t.Errorf("result.json row %v: same_code %v, want true", b["name"], b["same_code"])
			}
		}
	})

	t.Run("one function changed: its benchmark timed", func(t *testing.T) {
		res, err := runE2E(t, config(t, changeG))
		if err != nil || res.Verdict.Status == record.StatusError {
			t.Fatalf("verdict %s %v, error %v", res.Verdict.Status, res.Verdict.Reasons, err)
		}
		got := byName(res)
		if f := got["F"]; !f.SameCode || f.Class != record.ClassUnchanged || f.Base.N != 0 || f.Head.N != 0 {
			t.Errorf("F: %+v; want same code, unchanged, untimed", f)
		}
		if g := got["G"]; g.SameCode || g.Base.N == 0 || g.Head.N == 0 || g.Note == record.NoteSameCode {
			t.Errorf("G: %+v; want changed code, timed on both sides", g)
		}
		// The other units of a timed benchmark say the same.
		for _, b := range res.Benchmarks {
			if b.Name == "G" && b.SameCode {
				t.Errorf("G %s: same_code true", b.Unit)
			}
		}
	})

	t.Run("time-same-code times it anyway", func(t *testing.T) {
		cfg := config(t, doc)
		cfg.TimeSameCode = true
		res, err := runE2E(t, cfg)
		wantCompared(t, res, err, "F", "G")
		for _, b := range res.Benchmarks {
			if !b.SameCode || b.Note == record.NoteSameCode {
				t.Errorf("%s %s: same code %v, note %q; want same code recorded, the timed class standing", b.Name, b.Unit, b.SameCode, b.Note)
			}
		}
	})
}
