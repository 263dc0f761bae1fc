package gate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestChecksListEveryCheck: every check package record names (the CheckXxx constants of
// record/result.go, read from the source so that a new one cannot be missed) is one of gateChecks,
// but the sandbox, which is not a check of the code and Decide lists apart.
func TestChecksListEveryCheck(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "record", "result.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, n := range v.Names {
				if !strings.HasPrefix(n.Name, "Check") || n.Name == "CheckSandbox" || i >= len(v.Values) {
					continue
				}
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("record.%s is not a string literal", n.Name)
				}
				name, _ := strconv.Unquote(lit.Value)
				names = append(names, name)
			}
		}
	}
	if len(names) < 4 {
		t.Fatalf("found only %q in record/result.go", names)
	}
	var listed []string
	for _, gc := range gateChecks {
		if slices.Contains(listed, gc.name) {
			t.Errorf("gateChecks lists %q twice", gc.name)
		}
		listed = append(listed, gc.name)
	}
	for _, n := range names {
		if !slices.Contains(listed, n) {
			t.Errorf("check %q of package record is not in gateChecks, so Verdict.Checks would leave it out", n)
		}
	}
}

// TestFailingCheckIsListed: for each check, a result that only that check fails: the verdict fails,
// and its Checks list that check as run. A check that can fail the gate but is missing from the
// list fails here.
func TestFailingCheckIsListed(t *testing.T) {
	clean, leaky := &record.CTSide{}, &record.CTSide{Branches: []record.CTSite{{Function: "f", Offset: 1}}}
	for _, tc := range []struct {
		check string
		p     Policy
		r     record.Result
	}{
		{record.CheckBenchmarks, Policy{GateUnits: []string{record.UnitTime}}, record.Result{
			Method:     record.Method{Metric: record.MetricTime},
			Benchmarks: []record.Benchmark{{Name: "Encrypt", Unit: record.UnitTime, Class: record.ClassSlower, DeltaPct: 20}}}},
		{record.CheckDifferential, Policy{Differential: true}, record.Result{
			Differential: record.Differential{Status: record.DiffMismatch, Ciphers: []record.Cipher{{Mismatches: 1}}}}},
		{record.CheckSize, Policy{MaxSizeGrowth: 10}, record.Result{
			Sizes: record.Sizes{Sections: []record.SectionSize{{Name: ".text", Base: 100, Head: 200}}}}},
		{record.CheckConstantTime, Policy{ConstantTime: record.CTFailNew}, record.Result{
			ConstantTime: &record.ConstantTime{Status: record.CTChecked, Operations: []record.CTOperation{
				{Constructor: "NewCipher", Operation: "Encrypt", Base: clean, Head: leaky}}}}},
	} {
		v := Decide(tc.r, tc.p)
		if v.Status != record.StatusFail {
			t.Errorf("%s: status %s %q, want a failure of that check", tc.check, v.Status, v.Reasons)
			continue
		}
		i := slices.IndexFunc(v.Checks, func(c record.Check) bool { return c.Name == tc.check })
		if i < 0 || !v.Checks[i].Ran {
			t.Errorf("%s failed the gate (%q) but Verdict.Checks = %+v does not list it as run", tc.check, v.Reasons,
				v.Checks)
		}
	}
}

// TestConstantTimeRow: the constant-time row is there when the check was asked for, run or not, and
// absent when it is off.
func TestConstantTimeRow(t *testing.T) {
	row := func(ct *record.ConstantTime, mode record.ConstantTimeMode) (record.Check, bool) {
		v := Decide(record.Result{ConstantTime: ct}, Policy{ConstantTime: mode})
		i := slices.IndexFunc(v.Checks, func(c record.Check) bool { return c.Name == record.CheckConstantTime })
		if i < 0 {
			return record.Check{}, false
		}
		return v.Checks[i], true
	}
	checked := &record.ConstantTime{Status: record.CTChecked, Operations: make([]record.CTOperation, 3)}
	if c, ok := row(checked, record.CTReport); !ok || !c.Ran || c.Detail != "3 operations" {
		t.Errorf("report, checked: %+v %v, want ran with 3 operations", c, ok)
	}
	if c, ok := row(&record.ConstantTime{Status: record.CTUnavailable, Reason: "no valgrind"}, record.CTFailNew); !ok ||
		c.Ran || c.Detail != "valgrind not available" {
		t.Errorf("fail-new, unavailable: %+v %v, want listed as not run", c, ok)
	}
	if c, ok := row(checked, record.CTOff); ok {
		t.Errorf("off: listed as %+v, want no row", c)
	}
}
