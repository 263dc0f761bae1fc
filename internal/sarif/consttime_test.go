package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaHint says where the SARIF 2.1.0 JSON schema comes from: it is read at test time, never
// copied into the repository. .ci/run takes it from the npm package @microsoft/jest-sarif (MIT),
// which ships the schema as published (lib/schemas/sarif-2.1.0-rtm.5.json; the OASIS standard's
// schema is the same up to its errata), and points PERFGATE_SARIF_SCHEMA at it.
const schemaHint = "npm pack @microsoft/jest-sarif@1.0.0-beta.0 and point it at package/lib/schemas/sarif-2.1.0-rtm.5.json"

// schemaFile returns the schema's path ($PERFGATE_SARIF_SCHEMA), or skips the test when there is
// none (fails it under PERFGATE_E2E=1).
func schemaFile(t *testing.T) string {
	t.Helper()
	return testenv.NeedFile(t, "PERFGATE_SARIF_SCHEMA", schemaHint)
}

// validate checks log against the SARIF 2.1.0 schema, formats (uri) included.
func validate(t *testing.T, log []byte) error {
	t.Helper()
	f := schemaFile(t)
	raw, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("reading the schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatalf("compiling the schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// fixture is a comparison of a table cipher whose head added a lookup and widened another, dropped
// a third and kept the rest, in two operations.
func fixture() *record.ConstantTime {
	load := func(fn string, off, line, perLookup int) record.CTSite {
		return record.CTSite{Function: fn, Offset: off, File: "block.go", Line: line, Kind: "load", Table: "spBox",
			TableSize: 2048, Lines: 32, LinesPerLookup: perLookup}
	}
	base := &record.CTSide{Loads: []record.CTSite{load("feistel", 0x20, 10, 4), load("feistel", 0x40, 11, 1),
		load("round", 0x60, 12, 4)}}
	head := &record.CTSide{
		Branches: []record.CTSite{{Function: "expandKey", Offset: 0x13, File: "key.go", Line: 40}},
		Loads: []record.CTSite{load("feistel", 0x20, 10, 4), load("feistel", 0x40, 11, 4),
			load("feistel", 0x80, 20, 2)},
	}
	return &record.ConstantTime{Status: record.CTChecked, Tool: "valgrind-3.19.0 lackey", Secrets: 6, Seed: 1,
		Dir: "cipher/des", Operations: []record.CTOperation{
			{Constructor: "NewCipher", Operation: "Encrypt", Base: base, Head: head},
			{Constructor: "NewCipher", Operation: "Decrypt", Base: base, Head: head},
			{Constructor: "NewCipher", Operation: "EncryptBlocks", Base: &record.CTSide{}, Head: &record.CTSide{}},
		}}
}

func TestConstantTime(t *testing.T) {
	out, err := ConstantTime(fixture(), Options{Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	var log Log
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || log.Version != "2.1.0" || log.Schema != SchemaURI {
		t.Fatalf("log %s %s with %d runs", log.Schema, log.Version, len(log.Runs))
	}
	type row struct {
		Rule, URI, Baseline, Level string
		Line                       int
	}
	var got []row
	for _, r := range log.Runs[0].Results {
		pl := r.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URIBaseID != SrcRoot {
			t.Errorf("result at %s has base %q, want %s", pl.ArtifactLocation.URI, pl.ArtifactLocation.URIBaseID, SrcRoot)
		}
		got = append(got, row{r.RuleID, pl.ArtifactLocation.URI, r.BaselineState, r.Level, pl.Region.StartLine})
	}
	// One result per instruction, whatever the number of operations it shows in; sorted by file and
	// line.
	want := []row{
		{RuleLoad, "cipher/des/block.go", "unchanged", "note", 10},
		{RuleLoad, "cipher/des/block.go", "updated", "warning", 11},
		{RuleLoad, "cipher/des/block.go", "absent", "none", 12},
		{RuleLoad, "cipher/des/block.go", "new", "warning", 20},
		{RuleBranch, "cipher/des/key.go", "new", "warning", 40},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	grew := log.Runs[0].Results[1]
	for _, s := range []string{"spBox (2048 bytes)", "4 64-byte lines per lookup", "NewCipher Encrypt, NewCipher Decrypt",
		"Grew: base's lookup touched 1 line."} {
		if !strings.Contains(grew.Message.Text, s) {
			t.Errorf("message %q lacks %q", grew.Message.Text, s)
		}
	}
	if grew.Properties["perfgate/state"] != "grew" || grew.Properties["perfgate/linesPerLookup"] != float64(4) ||
		grew.Properties["perfgate/baseLinesPerLookup"] != float64(1) {
		t.Errorf("properties %v", grew.Properties)
	}
	fps := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		fps[r.PartialFingerprints["perfgateSite/v1"]] = true
	}
	if len(fps) != len(want) {
		t.Errorf("%d distinct fingerprints for %d results", len(fps), len(want))
	}

	// A fingerprint does not change when the lines above move.
	moved := fixture()
	for i := range moved.Operations {
		if h := moved.Operations[i].Head; h != nil {
			for j := range h.Loads {
				h.Loads[j].Line += 5
			}
		}
	}
	out2, err := ConstantTime(moved, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log2 Log
	if err := json.Unmarshal(out2, &log2); err != nil {
		t.Fatal(err)
	}
	for _, r := range log2.Runs[0].Results {
		if r.BaselineState == "new" && r.RuleID == RuleLoad && !fps[r.PartialFingerprints["perfgateSite/v1"]] {
			t.Errorf("the fingerprint of %s changed when its line moved", r.Message.Text)
		}
	}
}

// TestNotChecked: a check that did not run uploads no results and says why, in a valid log.
func TestNotChecked(t *testing.T) {
	for _, ct := range []*record.ConstantTime{nil, {Status: record.CTUnavailable, Reason: "valgrind not found"}} {
		out, err := ConstantTime(ct, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var log Log
		if err := json.Unmarshal(out, &log); err != nil {
			t.Fatal(err)
		}
		inv := log.Runs[0].Invocations
		if len(log.Runs[0].Results) != 0 || len(inv) != 1 || inv[0].ExecutionSuccessful ||
			len(inv[0].ToolExecutionNotifications) != 1 {
			t.Errorf("%v: %s", ct, out)
		}
		if ct != nil && !strings.Contains(inv[0].ToolExecutionNotifications[0].Message.Text, "valgrind not found") {
			t.Errorf("the notification does not say why: %s", out)
		}
	}
}

// TestSchemaValid validates the logs of TestConstantTime and TestNotChecked against the SARIF 2.1.0
// schema.
func TestSchemaValid(t *testing.T) {
	for _, ct := range []*record.ConstantTime{fixture(), nil,
		{Status: record.CTUnavailable, Reason: "valgrind not found"}} {
		out, err := ConstantTime(ct, Options{Version: "v1.2.3"})
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, out); err != nil {
			t.Errorf("not valid SARIF 2.1.0: %v\n%s", err, out)
		}
	}
}

// TestValidatorRejects makes sure the schema check can fail: a log with a baselineState SARIF does
// not define and a result without a message.
func TestValidatorRejects(t *testing.T) {
	out, err := ConstantTime(fixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][2]string{
		{`"baselineState": "new"`, `"baselineState": "fresh"`},
		{`"version": "2.1.0"`, `"version": "2.2.0"`},
	} {
		b := bytes.Replace(out, []byte(bad[0]), []byte(bad[1]), 1)
		if bytes.Equal(b, out) {
			t.Fatalf("%s not in the log", bad[0])
		}
		if err := validate(t, b); err == nil {
			t.Errorf("the schema accepts %s", bad[1])
		}
	}
}

// TestSeveralPackages: each operation's sites are in its own package's directory.
func TestSeveralPackages(t *testing.T) {
	site := record.CTSite{Function: "encrypt", Offset: 4, File: "block.go", Line: 7, Kind: "load", Table: "sbox",
		TableSize: 256, Lines: 4, LinesPerLookup: 4}
	side := &record.CTSide{Loads: []record.CTSite{site}}
	ct := &record.ConstantTime{Status: record.CTChecked, Dir: "a", Operations: []record.CTOperation{
		{Constructor: "NewCipher", Operation: "Encrypt", Package: "./a", Dir: "a", Base: side, Head: side},
		{Constructor: "NewCipher", Operation: "Encrypt", Package: "./b", Dir: "x/b", Base: side, Head: side},
	}}
	out, err := ConstantTime(ct, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var log Log
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range log.Runs[0].Results {
		uris = append(uris, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	if diff := cmp.Diff([]string{"a/block.go", "x/b/block.go"}, uris); diff != "" {
		t.Errorf("uris (-want +got):\n%s", diff)
	}
}
