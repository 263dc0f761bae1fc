package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden renders the text and JSON of the shared fixtures; mdreport's TestGolden renders their
// Markdown.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *record.Result
	}{{"pass", reportfixture.Pass()}, {"fail", reportfixture.Fail()}} {
		t.Run(tc.name, func(t *testing.T) {
			var text bytes.Buffer
			if err := Text(&text, tc.r, Options{}); err != nil {
				t.Fatal(err)
			}
			reportfixture.Golden(t, tc.name+".txt.golden", text.String(), *update)

			var js bytes.Buffer
			if err := JSON(&js, tc.r); err != nil {
				t.Fatal(err)
			}
			reportfixture.Golden(t, tc.name+".json.golden", js.String(), *update)
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, want := range []*record.Result{reportfixture.Pass(), reportfixture.Fail(), reportfixture.HostileResult()} {
		var buf bytes.Buffer
		if err := JSON(&buf, want); err != nil {
			t.Fatal(err)
		}
		var got record.Result
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, &got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		if !strings.HasPrefix(buf.String(), "{\n  \"schema\": 1,\n  \"package\": ") {
			t.Errorf("keys not in struct order: %.60q", buf.String())
		}
	}
}

func TestJSONRejectsNaN(t *testing.T) {
	r := reportfixture.Pass()
	r.Benchmarks[0].P = nan()
	if err := JSON(&bytes.Buffer{}, r); err == nil || !strings.Contains(err.Error(), "writing result json") {
		t.Errorf("JSON with NaN: err = %v, want a wrapped error", err)
	}
}
