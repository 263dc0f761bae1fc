package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// checkRunName is the name of perfgate's check run on the compared head.
const checkRunName = "perfgate"

// checkRunEvents are the events whose compared head gets a check run: a pull request's head and a
// merge queue entry's. A push has no pull request that would show it.
var checkRunEvents = map[string]bool{"pull_request": true, "merge_group": true}

// checkRunInput reads the check-run input: true or false; empty follows the comment input (a check
// run unless comment is false, which is also when the step gets no token).
func checkRunInput(r *ghaction.Runner, comment commentMode) (bool, error) {
	v := input(r, "check-run")
	if v == "" {
		return comment != commentNever, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &config.Error{Source: "input", Key: "check-run", Value: v, Want: commandKey("", "check-run").Form}
	}
	return b, nil
}

// conclusion is the check run's conclusion, which gates as the step's exit code does: success for
// exit 0 (neutral when the verdict is inconclusive under on-inconclusive: pass), failure for any
// other. A neutral check run lets a merge through, as a pass does: an inconclusive verdict that
// blocks the merge (exit 4) is a failure here too.
func conclusion(res *record.Result) string {
	switch {
	case res.Verdict.ExitCode != record.ExitPass:
		return ghaction.ConclusionFailure
	case res.Verdict.Status == record.StatusInconclusive:
		return ghaction.ConclusionNeutral
	case res.Verdict.Status == record.StatusPass:
		return ghaction.ConclusionSuccess
	}
	return ghaction.ConclusionFailure
}

// checkRunOf is the check run of res: the comment's verdict line as its title, the comment (without
// its marker) as its summary, and the lines of head the report names as annotations.
func checkRunOf(res *record.Result, md string) ghaction.CheckRun {
	title := "perfgate: " + report.StatusWord(res) + " — " +
		strings.Join(report.VerdictParts(res, text.Plain, func(s string) string { return s }), " · ")
	run := ghaction.CheckRun{
		Name: checkRunName, HeadSHA: res.Head.Commit, Conclusion: conclusion(res),
		Title: report.Clip(title, 250), Summary: strings.TrimPrefix(strings.TrimPrefix(md, mdreport.Marker), "\n"),
		Shorten: mdreport.Truncate,
	}
	for _, a := range report.Annotations(res) {
		level := ghaction.LevelWarning
		if a.Failure {
			level = ghaction.LevelFailure
		}
		run.Annotations = append(run.Annotations, ghaction.Annotation{Path: a.Path, Line: a.Line, Level: level,
			Title: a.Title, Message: a.Message})
	}
	return run
}

// postCheckRun creates perfgate's check run on the compared head. Like the comment, it never
// changes the verdict: a token without checks: write gets one note on stderr, any other failure a
// warning, and the report stays in the job summary and the results directory.
func postCheckRun(ctx context.Context, r *ghaction.Runner, res *record.Result, md string, stderr io.Writer) {
	if res.Head.Dirty || !gitsrc.IsFullSHA(res.Head.Commit) {
		fmt.Fprintf(stderr, "perfgate: head is not a commit: no check run\n")
		return
	}
	token := input(r, "github-token")
	if token == "" {
		fmt.Fprintf(stderr, "perfgate: no github-token input: no check run\n")
		return
	}
	client, owner, repo, err := repoClient(r, token, stderr)
	if err != nil {
		r.Warningf("perfgate: %v", err)
		return
	}
	run := checkRunOf(res, md)
	posted, err := client.CreateCheckRun(ctx, owner, repo, run)
	switch {
	case err != nil && ghaction.IsForbidden(err) && posted == nil:
		fmt.Fprintf(stderr, "perfgate: no check run: the token lacks 'checks: write' (grant it in the workflow's "+
			"permissions); the verdict, the exit code and the job summary are as they are\n")
	case err != nil:
		r.Warningf("perfgate: could not complete the check run: %v; the report is in the job summary", err)
		fmt.Fprintf(stderr, "perfgate: warning: check run: %v\n", err)
	default:
		fmt.Fprintf(stderr, "perfgate: created check run %s (%s)\n", posted.URL,
			text.PluralCommas(posted.Annotations, "annotation"))
	}
}
