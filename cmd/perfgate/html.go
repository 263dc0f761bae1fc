package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate"
	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/report"
)

// htmlReportFile is the HTML report's name in a results directory.
const htmlReportFile = "report.html"

// writeHTML renders res, with the samples of dir/bench.txt when it is there, as HTML to w.
func writeHTML(w io.Writer, dir string, res *perfgate.Result) error {
	var samples []bench.Sample
	f, err := os.Open(filepath.Join(dir, "bench.txt"))
	switch {
	case err == nil:
		samples, err = bench.ReadBenchTxt(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, "bench.txt"), err)
		}
	case errors.Is(err, fs.ErrNotExist):
		// A comparison that stopped before timing has no samples: the page says so.
	default:
		return err
	}
	return report.HTML(w, res, samples, report.Options{})
}

// saveHTML writes dir/report.html for res.
func saveHTML(dir string, res *perfgate.Result) error {
	var b bytes.Buffer
	if err := writeHTML(&b, dir, res); err != nil {
		return fmt.Errorf("writing %s: %w", htmlReportFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, htmlReportFile), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", htmlReportFile, err)
	}
	return nil
}
