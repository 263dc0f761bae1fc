package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/perfgate/perfgate"
	"github.com/perfgate/perfgate/report"
)

// writeHTML renders res, with the samples of dir's bench.txt when it is there, as HTML to w.
func writeHTML(w io.Writer, dir string, res *perfgate.Result) error {
	samples, err := perfgate.ResultsDir(dir).ReadBench()
	if err != nil {
		return err
	}
	return report.HTML(w, res, samples, report.Options{})
}

// saveHTML writes dir's report.html for res.
func saveHTML(dir string, res *perfgate.Result) error {
	var b bytes.Buffer
	if err := writeHTML(&b, dir, res); err != nil {
		return fmt.Errorf("writing %s: %w", perfgate.FileReportHTML, err)
	}
	return perfgate.ResultsDir(dir).WriteReportHTML(b.Bytes())
}
