package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/pipeline"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/shard"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

// prInfo is what the benchmark job tells the comment job about the pull request, next to
// result.json.
type prInfo struct {
	Repository string `json:"repository"`
	PR         int    `json:"pr"`
	BaseSHA    string `json:"base_sha"`
	HeadSHA    string `json:"head_sha"`
	Event      string `json:"event"`
}

const prInfoFile = results.FileGitHub

func runAction(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
			fmt.Fprint(stdout, actionUsage)
			return record.ExitPass
		}
		errorf(stderr, "action takes no arguments: it reads its inputs from INPUT_* variables")
		return record.ExitUsage
	}
	if err := sandbox.HideEnvironment(ghaction.TokenVariables); err != nil {
		fmt.Fprintf(stderr, "perfgate: warning: %v\n", err)
	}
	r := ghaction.NewRunner(nil, stdout)
	ev, err := r.Event()
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	if err := refuseEvent(ev.Name); err != nil {
		errorf(stderr, "%v", err)
		hintForkSafe(stderr)
		r.Errorf("%v", err)
		return record.ExitUsage
	}
	cfg, comment, err := actionConfig(r, ev)
	var checkRun bool
	if err == nil {
		checkRun, err = checkRunInput(r, comment)
	}
	if err != nil {
		untrusted(stderr, func() {
			errorf(stderr, "%v", err) // a configuration error quotes the file
			explain(stderr, err)
		})
		r.Errorf("perfgate: %v", err)
		return config.ExitCode(err)
	}
	cfg.Log = stderr
	// The Action installs valgrind itself when the instruction-count lane is on (valgrind.Ensure
	// says why).
	if cfg.Metric != record.MetricTime {
		if err := valgrind.Ensure(ctx, "metric "+cfg.Metric, stderr); err != nil {
			fmt.Fprintf(stderr, "perfgate: warning: %v\n", err)
		}
	}

	res, runErr := actionResult(ctx, r, cfg, stderr)
	if runErr != nil {
		untrusted(stderr, func() {
			errorf(stderr, "%v", runErr)
			explain(stderr, runErr)
		})
	}
	if res == nil {
		r.Errorf("perfgate could not run: %v", runErr)
		if _, ok := errors.AsType[*shard.MergeError](runErr); ok {
			return record.ExitUsage
		}
		return config.ExitCode(runErr)
	}
	md := publish(r, ev, cfg.Out, res, stdout, stderr)
	switch {
	case comment == commentNever:
	case ev.Name == "merge_group":
		fmt.Fprintf(stderr, "perfgate: a merge queue entry has no pull request to comment on: the job summary has "+
			"the report, and the exit code gates the merge\n")
	case ev.PR == 0:
		fmt.Fprintf(stderr, "perfgate: no pull request in this %s event: no comment, the job summary has the report\n",
			ev.Name)
	case ev.Fork && ev.Name == "pull_request":
		fmt.Fprintf(stderr, "perfgate: a fork's pull request has a read-only token: no comment here; "+
			"perfgate comment posts it from a workflow_run job (see .github/workflows/perfgate-comment.yml)\n")
	default:
		postComment(ctx, r, ev.PR, md, filepath.Join(cfg.Out, results.FileReport),
			comment == commentOnAlert && res.Verdict.Status == record.StatusPass, stderr)
	}
	// A fork's job has a read-only token: no check run, as no comment.
	if checkRun && checkRunEvents[ev.Name] && !ev.Fork {
		postCheckRun(ctx, r, res, md, stderr)
	}
	return res.Verdict.ExitCode
}

// actionResult is the Action's result: the results directories its merge input names, merged, or
// else the comparison cfg asks for, each in a log group of its own. Either writes the results
// directory with report.md as the Action's comment has it (reportOptions) and report.html.
func actionResult(ctx context.Context, r *ghaction.Runner, cfg config.Config,
	stderr io.Writer) (*record.Result, error) {
	write := evidence.Options{Markdown: true, MarkdownOptions: reportOptions(r), HTML: true}
	if glob := input(r, "merge"); glob != "" {
		r.Group("perfgate: merge " + glob)
		defer r.EndGroup()
		return mergeInAction(r.Workspace, glob, cfg.Out, write)
	}
	r.Group("perfgate: compare " + orDefault(cfg.Base, "merge-base") + " → " + orDefault(cfg.Head, "working tree"))
	defer r.EndGroup()
	// The log (stderr) carries the pull request's build and test output: the runner must not read
	// commands in it.
	resume := stopCommands(stderr)
	defer resume()
	return pipeline.RunWith(ctx, cfg, write)
}

// reportOptions are how the Action renders the Markdown report (report.md, the comment, the job
// summary): the artifact that holds the evidence, and links into the repository.
func reportOptions(r *ghaction.Runner) report.Options {
	return report.Options{ArtifactHint: "the job's perfgate-results artifact", RepoURL: repoURL(r)}
}

// publish puts res where the workflow finds it: the pull request's facts for the comment job in the
// results directory out (whose report.md and report.html actionResult wrote), the job summary, the
// step's outputs and annotations, and the text report on stdout. It returns the Markdown report.
func publish(r *ghaction.Runner, ev *ghaction.Event, out string, res *record.Result, stdout, stderr io.Writer) string {
	info := prInfo{Repository: r.Repository, PR: ev.PR, BaseSHA: res.Base.Commit, HeadSHA: res.Head.Commit, Event: ev.Name}
	dir := results.Dir(out)
	if err := dir.WriteGitHub(info); err != nil {
		errorf(stderr, "%v", err)
	}

	md := mdreport.Markdown(res, reportOptions(r))
	reportPath := dir.Path(results.FileReport)
	r.AddStepSummary(md)
	r.SetOutput("verdict", string(res.Verdict.Status))
	r.SetOutput("report", reportPath)
	r.SetOutput("results-dir", out)
	annotate(r, res)
	// benchmark names, commit subjects and test output come from the pull request
	resume := stopCommands(stdout)
	if err := report.Text(stdout, res, report.Options{}); err != nil {
		errorf(stderr, "%v", err)
	}
	resume()
	return md
}

// mergeInAction is the Action's merge mode: the results directories that glob matches in the
// workspace, merged into out (perfgate merge), written as write says.
func mergeInAction(workspace, glob, out string, write evidence.Options) (*record.Result, error) {
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(workspace, glob)
	}
	dirs, err := filepath.Glob(glob)
	if err != nil {
		return nil, &config.Error{Source: "input", Key: "merge", Value: glob, Want: commandKey("", "merge").Form}
	}
	if len(dirs) == 0 {
		return nil, &shard.MergeError{Problem: "input merge: " + glob +
			" matches no results directory (did the shards upload their artifacts, and did this job download them?)"}
	}
	return shard.MergeWith(dirs, out, write)
}

const actionUsage = `Usage: perfgate action

Runs as a step of a GitHub Actions job (see action.yml): reads the inputs from
INPUT_* variables and the event from GITHUB_EVENT_PATH, compares the pull
request's base and head (a merge queue entry's base_sha and head_sha on
merge_group), writes the job summary and outputs, keeps one sticky comment on
the pull request up to date, creates a check run named perfgate on the
compared head, and exits with the gate's code.
`

// commentMode is the comment input: whether and when the step keeps the sticky comment.
type commentMode string

const (
	commentAlways commentMode = "true"
	commentNever  commentMode = "false"
	// post when the verdict is not PASS; edit an earlier comment always
	commentOnAlert commentMode = "on-alert"
)

// commentInput reads the comment input (default true; any spelling strconv.ParseBool takes, or
// on-alert).
func commentInput(r *ghaction.Runner) (commentMode, error) {
	v := input(r, "comment")
	if v == "" {
		return commentAlways, nil
	}
	if v == string(commentOnAlert) {
		return commentOnAlert, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return commentNever, &config.Error{Source: "input", Key: "comment", Value: v, Want: commandKey("", "comment").Form}
	}
	if b {
		return commentAlways, nil
	}
	return commentNever, nil
}

// actionConfig maps the step's inputs and event onto a Config: an input that is set wins over the
// same key in the configuration file, which wins over the default; an empty input is not set. It
// returns the comment input.
func actionConfig(r *ghaction.Runner, ev *ghaction.Event) (config.Config, commentMode, error) {
	cfg := config.Default()
	if r.Workspace != "" {
		cfg.Dir = r.Workspace
	}
	cfgPath := input(r, "config")
	if cfgPath == "" {
		cfgPath = filepath.Join(cfg.Dir, config.FileName)
	} else {
		if !filepath.IsAbs(cfgPath) {
			cfgPath = filepath.Join(cfg.Dir, cfgPath)
		}
		if st, err := os.Stat(cfgPath); err != nil || st.IsDir() {
			return cfg, commentNever, &config.Error{Source: "input", Key: "config", Value: input(r, "config"),
				Want: commandKey("", "config").Form + " in the workspace"}
		}
	}
	settings := inputSettings(r)
	if err := cfg.Resolve(cfgPath, settings); err != nil {
		return cfg, commentNever, err
	}
	comment, err := commentInput(r)
	if err != nil {
		return cfg, comment, err
	}
	if cfg.Out == config.DefaultOutput {
		// Not set by the file. The runner's temp directory, outside the checkout, when there is
		// one: an artifact upload leaves out files under a directory such as .perfgate whose name
		// starts with a dot.
		cfg.Out = "perfgate-results"
		if tmp := r.Getenv("RUNNER_TEMP"); tmp != "" {
			cfg.Out = filepath.Join(tmp, "perfgate-results")
		}
	}
	if !filepath.IsAbs(cfg.Out) {
		cfg.Out = filepath.Join(cfg.Dir, cfg.Out)
	}
	if cfg.Base == "" && ev.BaseSHA != "" {
		cfg.Base = ev.BaseSHA
	}
	if cfg.Head == "" && ev.HeadSHA != "" {
		cfg.Head = ev.HeadSHA
	}
	// A pull request must not loosen its own gate: the policy comes from base's configuration file
	// unless the workflow says otherwise. The workflow's inputs win over base's file, like flags
	// (see README).
	if cfg.PolicyFrom == "" {
		cfg.PolicyFrom = config.PolicyFromBase
	}
	if err := takePolicy(&cfg, cfgPath, settings); err != nil {
		return cfg, commentNever, err
	}
	cfg.Acknowledged = ev.HasLabel(cfg.AcknowledgeLabel)
	if cfg.Sandbox == "" && runtime.GOOS == "linux" {
		// GitHub's Linux runners have Landlock: in the Action, code that could not be confined is
		// an error unless base's configuration or the workflow says sandbox: auto.
		cfg.Sandbox = string(sandbox.ModeRequired)
	}
	return cfg, comment, nil
}

// annotate emits ::error annotations for what failed the gate.
func annotate(r *ghaction.Runner, res *record.Result) {
	for _, reason := range res.Verdict.Reasons {
		switch res.Verdict.Status {
		case record.StatusPass:
		case record.StatusInconclusive:
			r.Warningf("perfgate: inconclusive: %s", reason)
		default:
			r.Errorf("perfgate: %s", reason)
		}
	}
	for _, ack := range res.Verdict.Acknowledged {
		r.Warningf("perfgate: slower, acknowledged: %s", ack)
	}
}

// postComment keeps the sticky comment; with editOnly (a PASS under comment: on-alert) it edits an
// earlier comment but creates none. GitHub's failures are warnings: they never change the verdict,
// and the body stays in the job summary and in report, the results directory's report.md.
func postComment(ctx context.Context, r *ghaction.Runner, pr int, body, report string, editOnly bool,
	stderr io.Writer) {
	token := input(r, "github-token")
	if token == "" {
		r.Warningf("perfgate: no github-token input: the report is in the job summary only")
		return
	}
	client, owner, repo, err := repoClient(r, token, stderr)
	if err != nil {
		r.Warningf("perfgate: %v", err)
		return
	}
	c := newCommenter(r, client, owner, repo, stderr)
	c.EditOnly = editOnly
	posted, err := c.Upsert(ctx, pr, body)
	if err != nil {
		r.Warningf("perfgate: could not update the pull-request comment: %v; the report is in the job summary and in %s",
			err, report)
		fmt.Fprintf(stderr, "perfgate: warning: %v; the report is in the job summary and in %s\n", err, report)
		return
	}
	if posted == nil {
		fmt.Fprintf(stderr, "perfgate: comment: on-alert and the gate passed with no earlier comment: no comment\n")
		return
	}
	verb := "updated"
	if posted.Created {
		verb = "created"
	}
	fmt.Fprintf(stderr, "perfgate: %s comment %s\n", verb, posted.URL)
	r.SetOutput("comment-url", posted.URL)
}

// input returns the step input name, which must be declared in the key table or commandKeys
// (action.yml declares them all, which a test checks).
func input(r *ghaction.Runner, name string) string {
	if config.InputKey(name) == nil {
		// panics for an undeclared input: a programmer error, caught by the tests
		commandKey("", name)
	}
	return r.Input(name)
}

// stopCommands makes the runner treat what follows on its output as text, not workflow commands,
// until the returned function is called. Untrusted text (a test's output, a benchmark's name) could
// otherwise hold a line such as "::error::" or "::add-mask::" that the runner would obey.
func stopCommands(w io.Writer) (resume func()) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	token := "perfgate-" + hex.EncodeToString(b[:])
	fmt.Fprintf(w, "::stop-commands::%s\n", token)
	return func() { fmt.Fprintf(w, "::%s::\n", token) }
}

// retrySleep, when set, replaces the wait between tries of a GitHub call: the tests make retries
// instant.
var retrySleep func(ctx context.Context, d time.Duration) error

// newClient returns the GitHub client of one step, authenticated with token, which tells of its
// waits on log.
func newClient(r *ghaction.Runner, token string, log io.Writer) (*ghaction.Client, error) {
	client, err := ghaction.NewClient(r.APIURL, token)
	if err != nil {
		return nil, err
	}
	client.Log, client.Sleep = log, retrySleep
	return client, nil
}

// repoClient returns the step's GitHub client (newClient) and the repository it acts on.
func repoClient(r *ghaction.Runner, token string, log io.Writer) (client *ghaction.Client, owner, repo string,
	err error) {
	if owner, repo, err = r.Owner(); err != nil {
		return nil, "", "", err
	}
	client, err = newClient(r, token, log)
	return client, owner, repo, err
}

// newCommenter returns the Commenter of perfgate's sticky comment. PERFGATE_COMMENT_AUTHOR names
// the login whose comment is perfgate's when the token is not the workflow's (a personal token can
// also read /user).
func newCommenter(r *ghaction.Runner, client *ghaction.Client, owner, repo string, log io.Writer) *ghaction.Commenter {
	return &ghaction.Commenter{
		Client: client, Owner: owner, Repo: repo, Marker: mdreport.Marker,
		Author: r.Getenv("PERFGATE_COMMENT_AUTHOR"), Shorten: mdreport.Truncate, Log: log,
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// repoURL is the repository's web address for links to its source, "https://github.com/OWNER/NAME",
// from GITHUB_SERVER_URL and GITHUB_REPOSITORY; "" when either is missing or not of that form.
func repoURL(r *ghaction.Runner) string {
	server := strings.TrimSuffix(r.Getenv("GITHUB_SERVER_URL"), "/")
	if server == "" {
		server = "https://github.com"
	}
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return ""
	}
	owner, name, ok := strings.Cut(r.Repository, "/")
	if !ok || !repoName.MatchString(owner) || !repoName.MatchString(name) {
		return ""
	}
	return server + "/" + owner + "/" + name
}

// repoName is an owner or repository name as GitHub allows them.
var repoName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)
