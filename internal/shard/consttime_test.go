package shard

import (
	"testing"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/record"
)

func TestCombineConstantTime(t *testing.T) {
	part := func(pkg string, ct *record.ConstantTime) record.Result {
		ct.Package = pkg
		return record.Result{Package: pkg, Differential: record.Differential{Status: record.DiffIdentical},
			ConstantTime: ct}
	}
	op := record.CTOperation{Constructor: "NewCipher", Operation: "Encrypt", Base: &record.CTSide{},
		Head: &record.CTSide{}}
	a := part("./a", &record.ConstantTime{Status: record.CTChecked, Operations: []record.CTOperation{op}})
	b := part("./b", &record.ConstantTime{Status: record.CTUnavailable, Reason: "valgrind not found"})
	r := Combine([]record.Result{a, b}, bench.DefaultStatsOptions)
	ct := r.ConstantTime
	if ct == nil || ct.Status != record.CTUnavailable || ct.Reason != "./b: valgrind not found" {
		t.Fatalf("combined %+v, want unavailable because of ./b", ct)
	}
	if len(ct.Operations) != 1 || ct.Operations[0].Package != "./a" || a.ConstantTime.Operations[0].Package != "" {
		t.Errorf("operations %+v (part a's %+v), want ./a's, marked, and the part untouched", ct.Operations,
			a.ConstantTime.Operations)
	}
	if r := Combine([]record.Result{{Differential: record.Differential{Status: record.DiffIdentical}}},
		bench.DefaultStatsOptions); r.ConstantTime != nil {
		t.Errorf("no part ran the check, combined %+v", r.ConstantTime)
	}
}
