package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/pipeline"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

const compareUsage = `Usage: perfgate compare [flags] [BASE [HEAD]]

Compares the benchmarks, outputs and sizes of a package between two revisions.
BASE defaults to the merge-base of HEAD with the default branch; HEAD defaults to
the working tree, uncommitted changes included. A flag wins over the same key in
.perfgate.yml, which wins over the default shown below.

Examples:
  perfgate compare -pkg ./cipher/des
  perfgate compare -pkg ./cipher/des main HEAD
  perfgate compare -pkg ./cipher/des -bench 'Encrypt/.*/batch' -rounds 8 -o /tmp/res v1.2.0 HEAD
  perfgate compare -format json -pkg ./cipher/des main > result.json
  perfgate compare -pkg ./crypto/xtea main   # a monorepo: -pkg is relative to here, in any module
  perfgate compare -pkg ./cipher/...,./hash/crc main HEAD      # several packages, one verdict
  perfgate compare -pkg ./... -changed main HEAD                # only the packages the change touches
  perfgate compare -pkg ./... -shard 2/4 -o shard-2 main HEAD   # part 2 of 4; then perfgate merge

Exit codes: 0 the gate passed; 1 the gate failed (slower, a differential mismatch,
head does not build or its tests fail); 2 usage or configuration error; 3 could not
run (an unknown revision, a shallow clone, base does not build); 4 inconclusive
(under -on-inconclusive fail, the default).

Flags:
`

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	f := newCompareFlags("compare", &cfg)
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), compareUsage)
		printFlags(f.fs.Output(), f.fs, nil)
	}
	if code, ok := parseFlags(f.fs, args, stdout, stderr); !ok {
		return code
	}
	rest := f.fs.Args()
	if len(rest) > 2 {
		msg := fmt.Sprintf("compare takes at most two revisions, got %d: %s", len(rest), strings.Join(rest, " "))
		return usageError(stderr, msg, "put flags before the revisions: perfgate compare -pkg ./x BASE HEAD")
	}
	if len(rest) > 0 {
		cfg.Base = rest[0]
	}
	if len(rest) > 1 {
		cfg.Head = rest[1]
	}
	if err := f.apply(cfg.Dir, false); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	cfg.Log = stderr
	if cfg.Out == config.DefaultOutput {
		if err := config.IgnoreOutput(cfg.Out); err != nil {
			errorf(stderr, "%v", err)
			hintf(stderr, "name another results directory with -o DIR")
			return record.ExitCannotRun
		}
	}
	return compareAndReport(ctx, cfg, f.format, stdout, stderr)
}

// compareAndReport runs the comparison, whose results directory gets report.md and report.html,
// prints the report in format and returns the exit code.
func compareAndReport(ctx context.Context, cfg config.Config, format string, stdout, stderr io.Writer) int {
	res, err := pipeline.RunWith(ctx, cfg, evidence.Options{Markdown: true, HTML: true})
	if res == nil {
		errorf(stderr, "%v", err)
		explain(stderr, err)
		return config.ExitCode(err)
	}
	dir := results.Dir(cfg.Out)
	if perr := printResult(stdout, res, format); perr != nil {
		errorf(stderr, "%v", perr)
	}
	if err != nil {
		errorf(stderr, "%v", err)
		explain(stderr, err)
	}
	files := dir.Existing(results.FileReport, results.FileReportHTML, results.FileResult, results.FileBench)
	fmt.Fprintf(stderr, "perfgate: results in %s (%s)\n", cfg.Out, strings.Join(files, ", "))
	return res.Verdict.ExitCode
}

func printResult(w io.Writer, res *record.Result, format string) error {
	switch format {
	case "json":
		return report.JSON(w, res)
	case "markdown":
		_, err := io.WriteString(w, mdreport.Markdown(res, report.Options{}))
		return err
	default:
		return report.Text(w, res, report.Options{Color: colorOK(w), Unicode: unicodeOK(w)})
	}
}

// colorOK reports whether w is a terminal and NO_COLOR is unset.
func colorOK(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// unicodeOK reports whether w is a terminal with a UTF-8 locale, where the forest plot may use
// box-drawing characters; elsewhere it is drawn in ASCII.
func unicodeOK(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return utf8Locale(os.Getenv)
}

// utf8Locale reports whether the locale's character set is UTF-8: LC_ALL, else LC_CTYPE, else LANG
// decides.
func utf8Locale(getenv func(string) string) bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if locale := strings.ToLower(getenv(name)); locale != "" {
			return strings.Contains(locale, "utf-8") || strings.Contains(locale, "utf8")
		}
	}
	return false
}

// explain prints a hint for errors a user can act on.
func explain(w io.Writer, err error) {
	var shallow *gitsrc.ShallowError
	var unknown *gitsrc.UnknownRevisionError
	switch {
	case errors.As(err, &shallow):
		hintf(w, "this is a shallow clone: run 'git fetch --unshallow', or check out with fetch-depth: 0 in actions/checkout")
	case errors.As(err, &unknown):
		hintf(w, "name a branch, tag or commit that exists in this repository ('git branch -a', 'git tag')")
	case errors.Is(err, gitsrc.ErrNotRepository):
		hintf(w, "run perfgate inside a git work tree, or point -C at one")
	case errors.Is(err, context.Canceled):
		hintf(w, "interrupted: the results gathered so far were kept")
	case errors.Is(err, valgrind.ErrNotFound):
		hintf(w, "install valgrind with '%s', or measure time only with -metric time", valgrind.InstallCommand)
	}
}
