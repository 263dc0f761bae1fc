package shard

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/record"
)

// TestCombineLeavesPartsAlone: Combine labels the rows of each part with its package in the
// combined result and changes nothing the parts hold, so that a caller may combine the same parts
// twice.
func TestCombineLeavesPartsAlone(t *testing.T) {
	part := func(pkg string) record.Result {
		return record.Result{Package: pkg,
			Benchmarks:   []record.Benchmark{{Name: "Encrypt", Unit: record.UnitTime, Class: record.ClassUnchanged}},
			Differential: record.Differential{Status: record.DiffIdentical, Ciphers: []record.Cipher{{Name: "NewCipher"}}},
			Sizes: record.Sizes{Sections: []record.SectionSize{{Name: ".text", Base: 10, Head: 12}},
				Notes: []string{"a note"}},
		}
	}
	parts := []record.Result{part("./a"), part("./b")}
	before := []record.Result{part("./a"), part("./b")}
	r := Combine(parts, bench.DefaultStatsOptions)
	if diff := cmp.Diff(before, parts); diff != "" {
		t.Errorf("Combine changed its parts (-before +after):\n%s", diff)
	}
	var pkgs []string
	for _, c := range r.Differential.Ciphers {
		pkgs = append(pkgs, c.Package)
	}
	if want := []string{"./a", "./b"}; !cmp.Equal(pkgs, want) {
		t.Errorf("ciphers' packages = %v, want %v", pkgs, want)
	}
	if again := Combine(parts, bench.DefaultStatsOptions); !cmp.Equal(again.Sizes, r.Sizes) {
		t.Errorf("a second Combine of the same parts differs:\n%s", cmp.Diff(r.Sizes, again.Sizes))
	}
}

// TestCombineCarriesWhy: each part's explanations come through, labelled with the part's package,
// and a merge names each shard's profiles where writeMerged copies them.
func TestCombineCarriesWhy(t *testing.T) {
	part := func(pkg, name string) record.Result {
		return record.Result{Package: pkg, Why: []record.Why{{Name: name, Class: record.ClassSlower,
			ProfileFiles: map[record.Side]string{record.Base: "cpu-base-1.pprof", record.Head: "cpu-head-1.pprof"}}}}
	}
	parts := []record.Result{part("./a", "Sum"), part("./b", "Encrypt")}
	inShard(parts[1].Why, "shards/2")
	r := Combine(parts, bench.DefaultStatsOptions)
	if len(r.Why) != 2 || r.Why[0].Package != "./a" || r.Why[1].Package != "./b" || r.Why[1].Name != "Encrypt" {
		t.Fatalf("Why = %+v", r.Why)
	}
	if got := r.Why[1].ProfileFiles[record.Head]; got != "shards/2/cpu-head-1.pprof" {
		t.Errorf("shard 2's head profile is %q", got)
	}
	if got := r.Why[0].ProfileFiles[record.Base]; got != "cpu-base-1.pprof" {
		t.Errorf("part 1's base profile is %q", got)
	}
}
