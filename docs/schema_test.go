package docs

// docs/schema holds the JSON Schemas of the files scripts read: result.json (also perfgate compare
// -format json and the records perfgate record keeps) and bisect.json. The tests validate what
// perfgate writes against them, and check that the schemas' enumerations are the code's.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/bisect"
	"github.com/perfgate/perfgate/record"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles docs/schema/name.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("schema", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatalf("compiling %s: %v", name, err)
	}
	return sch
}

// validate checks the JSON document data against sch.
func validate(sch *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// TestResultSchema: the results the report package renders its golden files from validate; a result
// with an unknown verdict status, a missing class or an older schema number does not.
func TestResultSchema(t *testing.T) {
	sch := compileSchema(t, "result.schema.json")
	goldens, _ := filepath.Glob(filepath.Join("..", "internal", "report", "testdata", "*.json.golden"))
	if len(goldens) == 0 {
		t.Fatal("no internal/report/testdata/*.json.golden to validate")
	}
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(sch, data); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
	// A Result as the code marshals it, zero values included.
	data, err := json.Marshal(record.Result{Schema: record.Schema, Verdict: record.Verdict{Status: record.StatusError,
		ExitCode: record.ExitCannotRun}})
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(sch, data); err != nil {
		t.Errorf("a zero result: %v", err)
	}
	passFile := filepath.Join("..", "internal", "report", "testdata", "pass.json.golden")
	pass, _ := os.ReadFile(passFile)
	for _, bad := range []struct{ old, new string }{
		{`"status": "pass"`, `"status": "maybe"`},
		{`"class": "faster"`, `"klass": "faster"`},
		{`"schema": 1`, `"schema": 0`},
	} {
		mutated := strings.Replace(string(pass), bad.old, bad.new, 1)
		if mutated == string(pass) {
			t.Fatalf("%s has no %s", passFile, bad.old)
		}
		if validate(sch, []byte(mutated)) == nil {
			t.Errorf("%s → %s validates", bad.old, bad.new)
		}
	}
	if record.Schema != 1 {
		t.Errorf("record.Schema is %d: write docs/schema for it (and a CHANGELOG entry)", record.Schema)
	}
}

// TestResultSchemaEnums: the schema's classes and statuses are the code's.
func TestResultSchemaEnums(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("schema", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Verdict struct {
				Properties struct{ Status struct{ Enum []string } }
			}
			Benchmarks struct {
				Items struct {
					Properties struct{ Class struct{ Enum []string } }
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got []string, want ...string) {
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: schema %v, code %v", what, got, want)
		}
	}
	check("verdict.status", s.Properties.Verdict.Properties.Status.Enum, string(record.StatusPass),
		string(record.StatusFail), string(record.StatusInconclusive), string(record.StatusError))
	check("benchmarks[].class", s.Properties.Benchmarks.Items.Properties.Class.Enum, string(record.ClassSlower),
		string(record.ClassFaster), string(record.ClassUnchanged), string(record.ClassInconclusive),
		string(record.ClassFailed))
}

// TestBisectSchema: a bisection that found its culprit, as bisect.WriteJSON writes it, validates.
func TestBisectSchema(t *testing.T) {
	sch := compileSchema(t, "bisect.schema.json")
	sha := func(c byte) string { return strings.Repeat(string(c), 40) }
	good, bad := bisect.Commit{SHA: sha('a'), Subject: "good"}, bisect.Commit{SHA: sha('f'), Subject: "bad"}
	culprit := bisect.Commit{SHA: sha('c'), Subject: "slower"}
	rep := &bisect.Report{Schema: bisect.ReportSchema, Check: bisect.CheckTime, Status: bisect.StatusCulprit,
		Good: good, Bad: bad, Commits: 5, Comparisons: 3, Duration: time.Minute,
		Culprit: &bisect.Culprit{Commit: culprit, Index: 3, Parent: bisect.Commit{SHA: sha('b')}, Confirmed: true},
		Steps: []bisect.Step{
			{N: 1, Role: bisect.RoleBad, Index: 5, Head: bad, Base: good, Try: 1, Outcome: bisect.Slower},
			{N: 2, Role: bisect.RoleSearch, Index: 3, Head: culprit, Base: good, Try: 1, Outcome: bisect.Slower},
			{N: 3, Role: bisect.RoleConfirm, Index: 3, Head: culprit, Base: bisect.Commit{SHA: sha('b')}, Try: 1,
				Outcome: bisect.NotSlower},
		}}
	var buf bytes.Buffer
	if err := bisect.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := validate(sch, buf.Bytes()); err != nil {
		t.Errorf("bisect.json: %v\n%s", err, buf.String())
	}
	rep.Status = "found-it"
	buf.Reset()
	if err := bisect.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if validate(sch, buf.Bytes()) == nil {
		t.Error("a bisection with status found-it validates")
	}
}
