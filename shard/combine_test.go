package shard

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/record"
)

// TestCombineLeavesPartsAlone: Combine labels the rows of each part with its package in the combined result and
// changes nothing the parts hold, so that a caller may combine the same parts twice.
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
