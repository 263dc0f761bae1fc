package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

const commentUsage = `Usage: perfgate comment DIR

Posts the results directory DIR (written by 'perfgate action' in another job) as
the sticky pull-request comment. Meant for a workflow_run job with
'pull-requests: write' that downloaded the benchmark job's artifact: the
artifact came from untrusted code, so every field is validated, the pull
request's head must be the commit that was measured, and the comment is
re-rendered from result.json (report.md in the artifact is ignored).

Example (in .github/workflows/perfgate-comment.yml):
  perfgate comment perfgate-results
`

// Limits on what an artifact may hold.
const (
	maxResultBytes = 16 << 20
	maxInfoBytes   = 64 << 10
	maxPR          = 1 << 30
)

func runComment(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("comment", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commentUsage) }
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		errorf(stderr, "comment takes one results directory")
		return record.ExitUsage
	}
	dir := fs.Arg(0)
	r := ghaction.NewRunner(nil, stdout)
	res, info, err := readArtifact(dir)
	if err != nil {
		// it may quote the artifact, which head wrote
		untrusted(stderr, func() { errorf(stderr, "%v", err) })
		r.Errorf("perfgate: the results artifact is not usable: %v", err)
		return record.ExitUsage
	}
	ev, err := r.Event()
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	if err := sameRun(ev, info, r.Repository); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	mode, err := commentInput(r)
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	if mode == commentNever {
		fmt.Fprintf(stderr, "perfgate: comment: false: no comment\n")
		return record.ExitPass
	}
	owner, repo, client, err := commentClient(r, stderr)
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	// The pull request's head on GitHub must be the measured commit, so an artifact cannot aim the
	// comment at another pull request.
	pr, err := client.PullRequest(ctx, owner, repo, info.PR)
	if err != nil {
		r.Warningf("perfgate: could not %v", err)
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	if got := pr.Head.SHA; got != info.HeadSHA {
		errorf(stderr, "pull request #%d's head is %s, not the measured %s: not commenting", info.PR, got, info.HeadSHA)
		return record.ExitUsage
	}
	var labels []string
	for _, l := range pr.Labels {
		labels = append(labels, l.Name)
	}
	if err := recheckPolicy(r, res, labels); err != nil {
		untrusted(stderr, func() {
			fmt.Fprint(stderr, text.Inert(fmt.Sprintf("perfgate: warning: the gate policy was not checked again: %v\n",
				err)))
		})
	}
	md := mdreport.Markdown(res, report.Options{ArtifactHint: "the benchmark job's perfgate-results artifact",
		RepoURL: repoURL(r)})
	r.AddStepSummary(md)
	c := newCommenter(r, client, owner, repo, stderr)
	c.EditOnly = mode == commentOnAlert && res.Verdict.Status == record.StatusPass
	posted, err := c.Upsert(ctx, info.PR, md)
	if err != nil {
		r.Warningf("perfgate: could not update the pull-request comment: %v; the report is in the job summary", err)
		errorf(stderr, "%v; the report is in the job summary", err)
		return record.ExitCannotRun
	}
	if posted == nil {
		fmt.Fprintf(stderr, "perfgate: comment: on-alert and the gate passed with no earlier comment: no comment\n")
		return record.ExitPass
	}
	r.SetOutput("comment-url", posted.URL)
	fmt.Fprintf(stdout, "%s\n", posted.URL)
	return record.ExitPass
}

// sameRun checks the artifact's facts against the triggering run's, which come from GitHub, not
// from the artifact: the artifact must describe the run's head commit, and when GitHub names the
// pull request and the repository they must be the same ones.
func sameRun(ev *ghaction.Event, info *prInfo, repository string) error {
	if ev.HeadSHA != "" && ev.HeadSHA != info.HeadSHA {
		return fmt.Errorf("the artifact measured %s but the triggering run was for %s", info.HeadSHA, ev.HeadSHA)
	}
	if ev.PR != 0 && ev.PR != info.PR {
		return fmt.Errorf("the artifact names pull request #%d but the triggering run was for #%d", info.PR, ev.PR)
	}
	if repository != "" && info.Repository != "" && info.Repository != repository {
		return fmt.Errorf("the artifact names repository %q, this is %q", info.Repository, repository)
	}
	return nil
}

// commentClient is the repository the comment goes to and a GitHub client for it, with the
// github-token input or else GITHUB_TOKEN.
func commentClient(r *ghaction.Runner, log io.Writer) (owner, repo string, client *ghaction.Client, err error) {
	owner, repo, err = r.Owner()
	if err != nil {
		return "", "", nil, err
	}
	token := r.Input("github-token")
	if token == "" {
		token = r.Getenv("GITHUB_TOKEN")
	}
	client, err = newClient(r, token, log)
	if err != nil {
		return "", "", nil, err
	}
	return owner, repo, client, nil
}

// readArtifact reads and validates result.json and github.json from an untrusted results directory.
func readArtifact(dir string) (*record.Result, *prInfo, error) {
	rd := results.Dir(dir)
	res, err := rd.ReadResult(maxResultBytes)
	if err != nil {
		return nil, nil, err
	}
	var info prInfo
	if err := rd.ReadGitHub(&info, maxInfoBytes); err != nil {
		return nil, nil, err
	}
	if info.PR <= 0 || info.PR > maxPR {
		return nil, nil, fmt.Errorf("%s: pull request number %d is out of range", prInfoFile, info.PR)
	}
	if !gitsrc.IsFullSHA(info.HeadSHA) {
		return nil, nil, fmt.Errorf("%s: head_sha %q is not a commit id", prInfoFile, info.HeadSHA)
	}
	if sh := res.Shard; sh != nil {
		return nil, nil, fmt.Errorf("result.json is shard %d of %d, a partial result: comment from the directory perfgate "+
			"merge writes", sh.Index, sh.Count)
	}
	if res.Head.Commit != info.HeadSHA {
		return nil, nil, fmt.Errorf("result.json measured head %q, %s says %q", res.Head.Commit, prInfoFile, info.HeadSHA)
	}
	for _, b := range res.Benchmarks {
		if !benchtxt.ValidUnit(b.Unit) {
			return nil, nil, fmt.Errorf("result.json: benchmark unit %q is not a unit (letters, digits and %% / . - _, "+
				"at most %d bytes)", b.Unit, benchtxt.MaxUnitLen)
		}
	}
	switch res.Verdict.Status {
	case record.StatusPass, record.StatusFail, record.StatusError, record.StatusInconclusive:
	default:
		return nil, nil, fmt.Errorf("result.json: unknown verdict status %q", res.Verdict.Status)
	}
	return res, &info, nil
}

// recheckPolicy decides the artifact's result again under the gate policy of the configuration file
// in the workspace, which in the workflow_run job is the default branch's checkout
// (config.Config.Recheck).
func recheckPolicy(r *ghaction.Runner, res *record.Result, labels []string) error {
	cfg := config.Default()
	if err := cfg.Resolve(filepath.Join(r.Workspace, config.FileName), nil); err != nil {
		return err
	}
	cfg.Recheck(res, labels)
	return nil
}
