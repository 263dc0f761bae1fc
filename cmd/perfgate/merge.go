package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/shard"
	"github.com/perfgate/perfgate/record"
)

const mergeUsage = `Usage: perfgate merge [-o OUT] [-format text|markdown|json] DIR...

Combines the results directories that the shards of one comparison wrote
(perfgate compare -shard i/n, one per machine of a job matrix) into one results
directory, one report and one verdict: the benchmarks are judged again as one
family (Holm correction over all of them). It refuses directories that are not
the shards of one comparison: other base or head commits, another configuration,
another perfgate version, a shard missing or given twice.

Examples:
  perfgate merge -o perfgate-results shard-1 shard-2 shard-3 shard-4
  perfgate merge -format json shards/*

Flags:
`

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", mergeUsage)
	out := fs.String("o", "perfgate-results", "results directory to write")
	format := fs.String("format", "text", "output format: text, markdown or json")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	switch *format {
	case "markdown", "text", "json":
	default:
		errorf(stderr, "-format: invalid value %q: want text, markdown or json", *format)
		return record.ExitUsage
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "merge takes the results directories of the shards",
			"perfgate merge -o perfgate-results shard-1 shard-2")
	}
	return mergeAndReport(fs.Args(), *out, *format, stdout, stderr)
}

// mergeAndReport merges dirs into out, with report.md and report.html, prints the report in format
// and returns the exit code.
func mergeAndReport(dirs []string, out, format string, stdout, stderr io.Writer) int {
	res, err := shard.MergeWith(dirs, out, evidence.Options{Markdown: true, HTML: true})
	if res == nil {
		errorf(stderr, "%v", err)
		var me *shard.MergeError
		if errors.As(err, &me) {
			hintf(stderr, "give every shard's directory of one run, "+
				"all written by the same perfgate with the same configuration")
			return record.ExitUsage
		}
		return record.ExitCannotRun
	}
	dir := results.Dir(out)
	if perr := printResult(stdout, res, format); perr != nil {
		errorf(stderr, "%v", perr)
	}
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	files := dir.Existing(results.FileReport, results.FileReportHTML, results.FileResult, results.FileBench)
	fmt.Fprintf(stderr, "perfgate: merged %d shards into %s (%s)\n", len(dirs), out, strings.Join(files, ", "))
	return res.Verdict.ExitCode
}
