package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/bisect"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/record"
)

const bisectUsage = `Usage: perfgate bisect [flags] GOOD BAD

Finds the first commit on the first-parent path from GOOD to BAD at which the
selected benchmarks became slower than GOOD beyond the threshold (-check time),
or whose outputs started to differ from GOOD's (-check differential).

Each step is an ordinary comparison of a commit with GOOD (perfgate compare:
sandboxed, budgeted, both lanes as configured); where the instruction count
repeats and agrees with the time it decides, elsewhere time does. BAD is checked
first: when it is not slower there is nothing to find. A commit that does not
build is skipped, like git bisect skip; a step that stays inconclusive runs again
with twice the budget, and is then left untested, never guessed. The culprit is
confirmed against its parent. About ⌈log₂ n⌉ + 2 comparisons for n commits.

stdout: the culprit first (SHA, subject, its change with the interval), then one
line per step. stderr: progress, with an estimate of the time left. The results
directory (-o, default .perfgate/bisect) keeps bisect.json and each step's own
results directory under steps/.

Examples:
  perfgate bisect -pkg ./cipher/des v1.2.0 main
  perfgate bisect -pkg ./cipher/des -bench 'Encrypt/des' -metric time -budget 30s v1.2.0 HEAD
  perfgate bisect -check differential -pkg ./cipher/des v1.2.0 main
  perfgate bisect -format json -o /tmp/bisect -pkg . HEAD~20 HEAD > bisect.json

Exit codes: 0 a culprit was found, or BAD is not slower than GOOD (no change);
2 usage or configuration error (GOOD not an ancestor of BAD on its first-parent
path, GOOD and BAD the same commit); 3 could not run (an unknown revision, GOOD
does not build, a shallow clone, or commits that could not be tested leave
several candidates).

Flags:
`

// bisectOutput is the default results directory of bisect, beside compare's.
var bisectOutput = filepath.Join(filepath.Dir(config.DefaultOutput), "bisect")

func runBisect(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	f := newCompareFlags("bisect", &cfg, append([]string{"format"}, compareOnly...)...)
	f.fs.StringVar(&f.format, "format", "text", "output format on stdout: text or json")
	check := f.fs.String("check", bisect.CheckTime,
		"what to search for: time (slower than GOOD beyond the threshold) or differential (outputs differ from GOOD's)")
	tries := f.fs.Int("tries", 2, "runs of a step that stays inconclusive, each with twice the budget of the one before (1 to 5)")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), bisectUsage)
		printFlags(f.fs.Output(), f.fs, map[string]string{"o": bisectOutput})
	}
	if code, ok := parseFlags(f.fs, args, stdout, stderr); !ok {
		return code
	}
	rest := f.fs.Args()
	if len(rest) != 2 {
		msg := fmt.Sprintf("bisect takes two revisions, GOOD and BAD; got %d: %s", len(rest), strings.Join(rest, " "))
		return usageError(stderr, msg, "put flags before the revisions: perfgate bisect -pkg ./x v1.0.0 main")
	}
	if err := f.apply(cfg.Dir, false); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	switch {
	case *check != bisect.CheckTime && *check != bisect.CheckDifferential:
		errorf(stderr, "invalid -check %q: want time or differential", *check)
		return record.ExitUsage
	case *tries < 1 || *tries > 5:
		errorf(stderr, "invalid -tries %d: want a whole number from 1 to 5", *tries)
		return record.ExitUsage
	case f.format == "markdown":
		errorf(stderr, "invalid -format markdown: bisect prints text or json")
		return record.ExitUsage
	}
	if !f.given("o") {
		cfg.Out = bisectOutput
		if err := config.IgnoreOutput(cfg.Out); err != nil {
			errorf(stderr, "%v", err)
			hintf(stderr, "name another results directory with -o DIR")
			return record.ExitCannotRun
		}
	}

	path, err := bisect.FirstParentPath(cfg.Dir, rest[0], rest[1])
	if err != nil {
		errorf(stderr, "%v", err)
		explain(stderr, err)
		return pathExitCode(stderr, err)
	}
	commits := fmt.Sprintf("%d commits", len(path)-1)
	if len(path) == 2 {
		commits = "1 commit"
	}
	fmt.Fprintf(stderr, "perfgate: bisect: %s from GOOD %s to BAD %s on the first-parent path\n", commits,
		path[0].Short(), path[len(path)-1].Short())
	rep, err := bisect.Search(ctx, bisect.Config{
		Path:      path,
		Oracle:    &bisect.PipelineOracle{Config: cfg, Check: *check, Out: cfg.Out},
		Check:     *check,
		Threshold: cfg.Threshold,
		Tries:     *tries,
		Out:       cfg.Out,
		Log:       stderr,
	})
	if rep != nil {
		var perr error
		if f.format == "json" {
			perr = bisect.WriteJSON(stdout, rep)
		} else {
			perr = bisect.WriteText(stdout, rep)
		}
		if perr != nil {
			errorf(stderr, "%v", perr)
		}
	}
	if err != nil {
		errorf(stderr, "%v", err)
		explain(stderr, err)
		return config.ExitCode(err)
	}
	fmt.Fprintf(stderr, "perfgate: results in %s (%s, %s/)\n", cfg.Out, bisect.FileName, bisect.StepsDir)
	return rep.ExitCode()
}

// pathExitCode is the exit code of an error of bisect.FirstParentPath, with a hint where explain
// has none: 2 for revisions that do not make a range (the same commit, GOOD not before BAD), 3 for
// a revision that is not there (unknown, as compare says, or cut off by a shallow clone) and a
// repository that cannot answer (a git error).
func pathExitCode(stderr io.Writer, err error) int {
	var na *gitsrc.NotAncestorError
	switch {
	case errors.As(err, &na):
		hintf(stderr, "GOOD is the older revision, BAD the newer: perfgate bisect GOOD BAD")
		return record.ExitUsage
	case errors.Is(err, bisect.ErrSameCommit):
		return record.ExitUsage
	}
	return record.ExitCannotRun
}
