package shard

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
)

// TestPlanShards: every unit lands in exactly one shard, the split is the same every time, a
// package's checks are one unit, and with costs the shards get equal work rather than equal counts.
func TestPlanShards(t *testing.T) {
	pkgs := []bench.Package{
		{Rel: "./a", Benchmarks: []string{"Big", "S1", "S2"}},
		{Rel: "./b", Benchmarks: []string{"S3", "S4", "S5"}},
	}
	costs := map[string]float64{"./a BenchmarkBig": 6}
	pl := NewPlan(pkgs, 3, costs)
	if again := NewPlan(pkgs, 3, costs); again.Fingerprint() != pl.Fingerprint() {
		t.Fatal("two plans of the same work differ")
	}
	if NewPlan(pkgs, 3, nil).Fingerprint() == pl.Fingerprint() {
		t.Error("costs do not change the plan")
	}
	seen := map[string]int{}
	load := make([]float64, 3)
	for s := 1; s <= 3; s++ {
		for _, u := range pl.UnitsOf(s) {
			seen[u]++
		}
		for _, u := range pl.units {
			if u.shard == s {
				load[s-1] += u.cost
			}
		}
	}
	want := []string{"./a", "./a BenchmarkBig", "./a BenchmarkS1", "./a BenchmarkS2", "./b", "./b BenchmarkS3", "./b BenchmarkS4", "./b BenchmarkS5"}
	var got []string
	for u, n := range seen {
		if n != 1 {
			t.Errorf("unit %s is in %d shards", u, n)
		}
		got = append(got, u)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	// Total 13: the big benchmark alone in one shard (6), the seven others split 4 and 3.
	slices.Sort(load)
	if diff := cmp.Diff([]float64{3, 4, 6}, load); diff != "" {
		t.Errorf("loads (-want +got):\n%s", diff)
	}
	checks, tops := pl.Work(pl.units[1].shard, "./a")
	if !slices.Contains(tops, "Big") || len(tops) != 1 {
		t.Errorf("the shard of Big runs %v of ./a (checks %v), want only Big", tops, checks)
	}
}

// TestReadCosts: an earlier result's leaves in the gated unit count per top-level benchmark and
// package; a single-package result names the package at the top.
func TestReadCosts(t *testing.T) {
	dir := t.TempDir()
	r := &record.Result{Schema: record.Schema, Package: "./a", Benchmarks: []record.Benchmark{
		{Name: "Enc/des/1", Unit: record.UnitTime}, {Name: "Enc/des/2", Unit: record.UnitTime}, {Name: "Enc/des/1", Unit: "B/op"},
		{Name: "Sum", Unit: record.UnitTime, Package: "./b", Base: record.Summary{Center: 1}, Head: record.Summary{Center: 4}},
	}}
	if err := results.Dir(dir).WriteResult(r); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, filepath.Join(dir, results.FileResult)} {
		got, err := ReadCosts(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]float64{"./a BenchmarkEnc": 2, "./b BenchmarkSum": 2.5}, got); diff != "" {
			t.Errorf("readCosts(%s) (-want +got):\n%s", path, diff)
		}
	}
	var ce *config.Error
	if _, err := ReadCosts(filepath.Join(dir, "nope")); !errors.As(err, &ce) || ce.Key != "shard-costs" {
		t.Errorf("a missing cost file: %v, want a ConfigError naming shard-costs", err)
	}
}
