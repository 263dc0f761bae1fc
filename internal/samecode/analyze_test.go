package samecode

import (
	"strings"
	"testing"
)

// TestAnalyzeFixtures runs the cases on real test binaries. want gives, per benchmark,
// whether it must be reported same; a benchmark left out may go either way (calling same code
// changed is allowed), but one whose code changed must never be same.
func TestAnalyzeFixtures(t *testing.T) {
	cases := []struct {
		variant   string
		want      map[string]bool
		identical bool
	}{
		{"base", map[string]bool{"A": true, "B": true}, true},
		{"doc", map[string]bool{"A": true, "B": true}, false},
		{"onlyA", map[string]bool{"A": false, "B": true}, false},
		{"unreached", map[string]bool{"A": true, "B": true}, false},
		{"refactor", map[string]bool{"A": true, "B": true}, false},
		{"table", map[string]bool{"A": false, "B": true}, false},
		{"closure", map[string]bool{"A": false, "B": true}, false},
		{"iface", map[string]bool{"B": false}, false},
		{"asm", map[string]bool{"A": false, "B": true}, false},
		{"method", map[string]bool{"A": false, "B": true}, false},
		{"string", map[string]bool{"B": false}, false},
	}
	base := fixtureTest(t, "base")
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			head := fixtureTest(t, c.variant)
			rep, err := Analyze(base, head, []string{"BenchmarkA/sub", "B"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Fallback != "" {
				t.Fatalf("fallback: %s", rep.Fallback)
			}
			t.Logf("%+v", rep)
			if rep.Identical != c.identical {
				t.Errorf("Identical = %v, want %v", rep.Identical, c.identical)
			}
			if len(rep.Benchmarks) != 2 {
				t.Errorf("benchmarks = %v, want A and B", rep.Benchmarks)
			}
			for name, same := range c.want {
				v := rep.Benchmarks[name]
				if v.Same != same {
					t.Errorf("%s: Same = %v (%s), want %v", name, v.Same, v.Reason, same)
				}
				if !v.Same && v.Reason == "" {
					t.Errorf("%s: changed without a reason", name)
				}
				if v.Same && !rep.Identical && v.Reached <= rep.Common {
					t.Errorf("%s: reached %d units, no more than the %d common ones", name, v.Reached, rep.Common)
				}
			}
		})
	}
}

// TestAnalyzeReasons checks that a change is reported where it is.
func TestAnalyzeReasons(t *testing.T) {
	base := fixtureTest(t, "base")
	check := func(variant, bench, want string) {
		t.Helper()
		rep, err := Analyze(base, fixtureTest(t, variant), []string{bench})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Benchmarks[bench].Reason; !strings.Contains(r, want) {
			t.Errorf("%s, %s: reason %q, want it to name %q", variant, bench, r, want)
		}
	}
	check("onlyA", "A", "example.com/fx/p.onlyA")
	check("table", "A", "example.com/fx/p.table")
	check("asm", "A", "example.com/fx/p.asmMix")
	check("closure", "A", "example.com/fx/p_test.BenchmarkA.func1")
	check("method", "A", "example.com/fx/p.adder.Add")
}

// TestAnalyzeMissingBenchmark: a benchmark that is not in the binaries is changed, with a reason.
func TestAnalyzeMissingBenchmark(t *testing.T) {
	rep, err := Analyze(fixtureTest(t, "base"), fixtureTest(t, "doc"), []string{"Nope"})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Benchmarks["Nope"]; v.Same || !strings.Contains(v.Reason, "BenchmarkNope") {
		t.Errorf("Nope: %+v, want changed naming BenchmarkNope", v)
	}
}
