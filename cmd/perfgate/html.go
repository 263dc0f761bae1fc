package main

import (
	"io"

	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
)

// writeHTML renders res, with the samples of dir's bench.txt when it is there, as HTML to w.
func writeHTML(w io.Writer, dir string, res *record.Result) error {
	samples, err := results.Dir(dir).ReadBench()
	if err != nil {
		return err
	}
	return htmlreport.HTML(w, res, samples, report.Options{})
}
