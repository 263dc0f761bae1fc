package mdreport

import (
	"strings"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// mdForest adds the forests to a Markdown doc as code blocks, which GitHub shows as they are.
func mdForest(d *doc, r *record.Result) {
	for _, f := range report.Forests(r, report.ForestMaxRows) {
		d.para(text.Block(strings.Join(report.ForestText(f, true, false), "\n")))
	}
}
