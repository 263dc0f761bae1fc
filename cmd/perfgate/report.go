package main

import (
	"io"

	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
)

const reportUsage = `Usage: perfgate report [-format markdown|text|json|html] DIR

Re-renders the results directory DIR written by compare.

Examples:
  perfgate report -format text .perfgate/results
  perfgate report -format html .perfgate/results > report.html

Flags:
`

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", reportUsage)
	format := fs.String("format", "markdown", "output format: markdown, text, json or html")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "report takes one results directory", "perfgate report .perfgate/results")
	}
	switch *format {
	case "markdown", "text", "json", "html":
	default:
		errorf(stderr, "-format: invalid value %q: want markdown, text, json or html", *format)
		return record.ExitUsage
	}
	res, err := results.ReadResult(fs.Arg(0))
	if err != nil {
		return usageError(stderr, err.Error(), "DIR is the directory 'perfgate compare -o DIR' wrote")
	}
	print := func() error { return printResult(stdout, res, *format) }
	if *format == "html" {
		print = func() error { return writeHTML(stdout, fs.Arg(0), res) }
	}
	if err := print(); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	return record.ExitPass
}
