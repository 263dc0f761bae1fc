package consttime

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/sarif"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkSARIF writes ct (of the package at pkgRel in the head tree headDir) as SARIF and checks that
// every result of head is on a line of the package's source, that the table loads name their table,
// and that the log is valid against the SARIF 2.1.0 schema (see sarifSchema).
func checkSARIF(t *testing.T, ct *record.ConstantTime, headDir, pkgRel string) {
	t.Helper()
	ct.Dir = filepath.ToSlash(filepath.Clean(pkgRel))
	out, err := sarif.ConstantTime(ct, sarif.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log sarif.Log
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	loads := 0
	for _, r := range log.Runs[0].Results {
		if r.BaselineState == "absent" {
			continue // base's line
		}
		pl := r.Locations[0].PhysicalLocation
		if pl == nil || pl.Region == nil {
			t.Errorf("%s: no file and line", r.Message.Text)
			continue
		}
		src, err := os.ReadFile(filepath.Join(headDir, filepath.FromSlash(pl.ArtifactLocation.URI)))
		if err != nil {
			t.Errorf("%s: %v", r.Message.Text, err)
			continue
		}
		if n := bytes.Count(src, []byte("\n")); pl.Region.StartLine < 1 || pl.Region.StartLine > n {
			t.Errorf("%s: line %d of a file of %d lines", r.Message.Text, pl.Region.StartLine, n)
		}
		if r.RuleID == sarif.RuleLoad {
			loads++
			if tab, _ := r.Properties["perfgate/table"].(string); tab == "" || !strings.Contains(r.Message.Text, tab) {
				t.Errorf("%s: the message does not name the table %q", r.Message.Text, tab)
			}
		}
	}
	if loads == 0 {
		t.Errorf("no secret-dependent load in the SARIF log of a table cipher:\n%s", out)
	}
	schema := sarifSchema(t)
	if schema == "" {
		return
	}
	raw, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the log is not valid SARIF 2.1.0: %v", err)
	}
}

// sarifSchema returns the SARIF 2.1.0 schema's path ($PERFGATE_SARIF_SCHEMA; see package sarif's
// tests for where .ci/run gets it), or "" after a log line when there is none; under PERFGATE_E2E=1
// a missing schema fails.
func sarifSchema(t *testing.T) string {
	t.Helper()
	f := os.Getenv("PERFGATE_SARIF_SCHEMA")
	if _, err := os.Stat(f); f != "" && err == nil {
		return f
	}
	if testenv.E2E() {
		t.Fatalf("PERFGATE_SARIF_SCHEMA does not name the SARIF 2.1.0 schema (%q): .ci/run fetches it from npm", f)
	}
	t.Logf("SARIF schema validation skipped: set PERFGATE_SARIF_SCHEMA to the SARIF 2.1.0 JSON schema")
	return ""
}
