package mdreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

// TestGeomeanRow: every format shows the geometric-mean row of a unit that has one, once.
func TestGeomeanRow(t *testing.T) {
	r := reportfixture.Pass()
	r.Geomeans = []record.Geomean{{Unit: "sec/op", Base: 200e-9, Head: 130e-9, Ratio: 0.65, N: 6}}
	var text, html bytes.Buffer
	if err := report.Text(&text, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.HTML(&html, r, nil, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := Markdown(r, report.Options{})
	for _, tt := range []struct{ format, out, want string }{
		{"text", strings.Join(strings.Fields(text.String()), " "), "geomean 200.0 ns 130.0 ns −35.0% (6 benchmarks)"},
		{"markdown", md, "| *geomean* | 200.0 ns | 130.0 ns | −35.0% | 6 benchmarks |"},
		{"html", html.String(), `<td>sec/op</td><td class="num">200.0 ns</td><td class="num">130.0 ns</td>` +
			`<td class="num">−35.0%</td><td class="num">6</td>`},
	} {
		if n := strings.Count(tt.out, tt.want); n != 1 {
			t.Errorf("%s: %d of %q, want one, in\n%s", tt.format, n, tt.want, tt.out)
		}
	}
}
