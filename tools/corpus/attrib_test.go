package corpus

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

func TestParseChanged(t *testing.T) {
	c, err := parseChanged("Hash128 hash128_amd64.s:14-287 Hash128_8 Other")
	if err != nil || c.Func != "Hash128" || c.File != "hash128_amd64.s" || c.From != 14 || c.To != 287 ||
		len(c.Benches) != 2 || !c.applies("Other") || c.applies("Hash8") {
		t.Errorf("parseChanged = %+v, %v", c, err)
	}
	if c, err := parseChanged("reduce modhash/modhash.go:11"); err != nil || c.From != 11 || c.To != 11 || !c.applies("X") {
		t.Errorf("one line: %+v, %v", c, err)
	}
	for _, bad := range []string{"reduce", "reduce modhash.go", "reduce modhash.go:x", "reduce modhash.go:9-3",
		"reduce ../x.go:1", "reduce modhash.go:0"} {
		if _, err := parseChanged(bad); err == nil {
			t.Errorf("parseChanged(%q): no error", bad)
		}
	}
}

// TestEveryChangedPairHasChanged: every pair whose truth has a benchmark changed beyond 2% says
// where the change lives, and every pair's changed lines are names the scorer can match.
func TestEveryChangedPairHasChanged(t *testing.T) {
	pairs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		if p.Truth == nil {
			continue
		}
		changed := false
		for _, b := range p.Truth.Benches {
			changed = changed || b.Beyond(2)
		}
		if changed && len(p.Changed) == 0 {
			t.Errorf("%s: the truth has a changed benchmark, the header no \"changed:\" line", p.Name)
		}
	}
}

func TestScoreAttribution(t *testing.T) {
	p := &Pair{Name: "inline-div", Changed: []Changed{{Func: "reduce", File: "modhash/modhash.go", From: 11, To: 15}},
		Truth: &Truth{Benches: []TruthBench{
			{Name: "Sum", Pct: 24, Lo: 12, Hi: 47},
			// not changed beyond the threshold: not scored
			{Name: "Xor", Pct: 4, Lo: -3, Hi: 19},
			{Name: "Other", Pct: 30, Lo: 20, Hi: 40}, // changed, but explained by nothing
		}}}
	line := func(file string, n int, fn, inl string) record.WhyLine {
		return record.WhyLine{File: file, Line: n, Func: fn, Inlined: inl, Head: 10}
	}
	cases := []struct {
		why  record.Why
		hit  bool
		name string
	}{
		// The line is in the changed range.
		{record.Why{Name: "Sum", Lines: []record.WhyLine{line("example.com/modhash/modhash/modhash.go", 13,
			"example.com/modhash/modhash.reduce", "")}}, true, "modhash.go:13 reduce"},
		// reduce inlined into Sum, its line elsewhere (an edit moved it): the function decides.
		{record.Why{Name: "Sum", Lines: []record.WhyLine{line("example.com/modhash/modhash/modhash.go", 40,
			"example.com/modhash/modhash.Sum", "example.com/modhash/modhash.reduce")}}, true, ""},
		// The top function is the one reduce is inlined into.
		{record.Why{Name: "Sum", Lines: []record.WhyLine{
			line("example.com/modhash/modhash/modhash.go", 25, "example.com/modhash/modhash.Sum", ""),
			line("example.com/modhash/modhash/modhash.go", 13, "example.com/modhash/modhash.Sum", "example.com/modhash/modhash.reduce")},
			Funcs: []record.WhyFunc{{Func: "example.com/modhash/modhash.Sum"}}}, true, "top function Sum"},
		// Another line of another function: a miss.
		{record.Why{Name: "Sum", Lines: []record.WhyLine{line("example.com/modhash/modhash/modhash.go", 25,
			"example.com/modhash/modhash.Sum", "")}}, false, "modhash.go:25 Sum"},
		// An assembly function: its symbol's ABI suffix is not part of the name.
		{record.Why{Name: "Sum", Lines: []record.WhyLine{{File: "example.com/modhash/modhash/modhash_amd64.s",
			BaseLine: 45, Func: "example.com/modhash/modhash.reduce.abi0", Base: 10}}}, true, "(base) reduce.abi0"},
		// The top code ran only in base; head's code that replaced it is the changed one
		// (highwayhash-avx2).
		{record.Why{Name: "Sum", Lines: []record.WhyLine{{File: "example.com/modhash/modhash/modhash_amd64.s",
			BaseLine: 162, Func: "example.com/modhash/modhash.reduceSSE4.abi0", Base: 34}},
			Funcs: []record.WhyFunc{{Func: "example.com/modhash/modhash.reduceSSE4.abi0", Base: 172}},
			Replaced: &record.WhyReplaced{Func: "example.com/modhash/modhash.reduceSSE4.abi0", Base: 172,
				By: "example.com/modhash/modhash.reduce.abi0", Head: 81}}, true, "replaced by reduce.abi0"},
		// Replaced by code that is not the changed one: a miss.
		{record.Why{Name: "Sum", Lines: []record.WhyLine{{File: "example.com/modhash/modhash/modhash_amd64.s",
			BaseLine: 162, Func: "example.com/modhash/modhash.reduceSSE4.abi0", Base: 34}},
			Replaced: &record.WhyReplaced{Func: "example.com/modhash/modhash.reduceSSE4.abi0", Base: 172,
				By: "example.com/modhash/modhash.updateAVX2.abi0", Head: 560}}, false, "replaced by updateAVX2.abi0"},
		// No count: the profile's top function.
		{record.Why{Name: "Sum", Profile: []record.WhyProfile{{Func: "example.com/modhash/modhash.reduce"}}}, true,
			"profile: reduce"},
	}
	for i, c := range cases {
		got := ScoreAttribution(p, &Outcome{Result: &record.Result{Why: []record.Why{c.why}}}, 2)
		if len(got) != 2 || got[0].Bench != "Sum" || got[1].Bench != "Other" || got[1].Hit || got[1].Named != "" {
			t.Fatalf("case %d: %+v", i, got)
		}
		if got[0].Hit != c.hit || !strings.Contains(got[0].Named, c.name) || got[0].Truth != "reduce modhash/modhash.go:11-15" {
			t.Errorf("case %d: %+v, want hit %v naming %q", i, got[0], c.hit, c.name)
		}
	}
	if ss := ScoreAttribution(&Pair{Name: "x", Truth: p.Truth}, &Outcome{}, 2); ss != nil {
		t.Errorf("a pair without changed lines: %+v", ss)
	}
	if s := AttrTotals([]AttrScore{{Hit: true}, {Hit: false}}); !strings.Contains(s, "1 of 2") || !strings.Contains(s, "50%") {
		t.Errorf("AttrTotals = %q", s)
	}
}
