package bench

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// TestRejudgeIsJointAnalysis: analysing two groups of benchmarks apart and rejudging their union
// gives exactly what Analyze gives for all of them at once, and a benchmark that is slower in its
// own small family is not slower in the union (Holm over more tests).
func TestRejudgeIsJointAnalysis(t *testing.T) {
	// X: head about 4% slower, with noise: p ≈ 0.003 alone, too weak after Holm over eleven tests.
	x := abbaSamples("X", "sec/op", [][4]float64{
		{100, 105, 107, 101}, {100, 101, 104, 99}, {101, 108, 103, 100}, {99, 101, 106, 100}, {100, 104, 101, 102},
	})
	var nulls []benchtxt.Sample
	for i := range 10 {
		d := float64(i%3) - 1
		nulls = append(nulls, abbaSamples(fmt.Sprintf("N%d", i), "sec/op", [][4]float64{
			{100, 100 + d, 101, 100}, {100, 99, 100 - d, 101}, {101, 100, 101, 100}, {99, 100 + d, 99, 100}, {100, 101, 100, 100 - d},
		})...)
	}
	opt := DefaultStatsOptions
	alone, err := Analyze(x, opt)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := Analyze(nulls, opt)
	if err != nil {
		t.Fatal(err)
	}
	if alone[0].Class != record.ClassSlower {
		t.Fatalf("X alone: class %q (p %v), want slower: the fixture no longer shows the point", alone[0].Class, alone[0].PHolm)
	}
	union := append(rest, alone...)
	if err := Rejudge(union, opt); err != nil {
		t.Fatal(err)
	}
	joint, err := Analyze(append(append([]benchtxt.Sample{}, x...), nulls...), opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(joint, union); diff != "" {
		t.Errorf("rejudged union differs from the joint analysis (-joint +union):\n%s", diff)
	}
	if union[10].Class == record.ClassSlower {
		t.Errorf("X in the union: still slower at PHolm %v", union[10].PHolm)
	}
	if err := Rejudge(union, StatsOptions{}); err == nil {
		t.Error("Rejudge accepted invalid options")
	}
}

// TestRejudgeFamilies: a staged run's p-value within its package is multiplied by the number of
// packages, once however often results are combined, and the class follows.
func TestRejudgeFamilies(t *testing.T) {
	c := record.Benchmark{Name: "X", Unit: "sec/op", Tested: true, PHolm: 0.02,
		Paired: &record.Paired{Ratio: 1.5, Lo: 1.4, Hi: 1.6, P: 0.001, Rounds: 5}, Class: record.ClassSlower}
	cs := []record.Benchmark{c}
	for range 2 { // combining twice (packages, then shards) must not correct twice
		if err := RejudgeFamilies(cs, 3, DefaultStatsOptions); err != nil {
			t.Fatal(err)
		}
		if got := cs[0]; !near(got.PHolm, 0.06, 1e-12) || got.PFamily != 0.02 || got.Class != record.ClassInconclusive {
			t.Errorf("after combining: PHolm %v, PFamily %v, class %s; want 0.06, 0.02, inconclusive", got.PHolm, got.PFamily, got.Class)
		}
	}
	cs = []record.Benchmark{c}
	if err := RejudgeFamilies(cs, 2, DefaultStatsOptions); err != nil || cs[0].Class != record.ClassSlower {
		t.Errorf("two families: class %s (%v), want slower at PHolm 0.04", cs[0].Class, err)
	}
}
