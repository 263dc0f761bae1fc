package ghaction

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/perfgate/perfgate/internal/text"
)

// Runner is the GitHub Actions environment of one step.
type Runner struct {
	Getenv func(string) string
	Action *githubactions.Action

	EventName  string
	EventPath  string
	Repository string // owner/name
	APIURL     string
	Workspace  string
}

// NewRunner reads the runner's environment through getenv (os.Getenv when nil) and writes workflow
// commands to out (os.Stdout when nil; the runner reads commands from stdout).
func NewRunner(getenv func(string) string, out io.Writer) *Runner {
	if getenv == nil {
		getenv = os.Getenv
	}
	opts := []githubactions.Option{githubactions.WithGetenv(getenv)}
	if out != nil {
		opts = append(opts, githubactions.WithWriter(out))
	}
	return &Runner{
		Getenv:     getenv,
		Action:     githubactions.New(opts...),
		EventName:  getenv("GITHUB_EVENT_NAME"),
		EventPath:  getenv("GITHUB_EVENT_PATH"),
		Repository: getenv("GITHUB_REPOSITORY"),
		APIURL:     getenv("GITHUB_API_URL"),
		Workspace:  getenv("GITHUB_WORKSPACE"),
	}
}

// Input returns the step input name. A composite action passes inputs through env: as INPUT_NAME
// with dashes turned into underscores; a JavaScript-style runner sets INPUT_NAME with dashes kept.
// Both are read.
func (r *Runner) Input(name string) string {
	up := strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
	if v := r.Getenv("INPUT_" + strings.ReplaceAll(up, "-", "_")); v != "" {
		return strings.TrimSpace(v)
	}
	return strings.TrimSpace(r.Getenv("INPUT_" + up))
}

// Owner splits GITHUB_REPOSITORY.
func (r *Runner) Owner() (owner, repo string, err error) {
	owner, repo, ok := strings.Cut(r.Repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return "", "", fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", r.Repository)
	}
	return owner, repo, nil
}

// SetOutput sets a step output by appending to the GITHUB_OUTPUT file. Outside a runner
// (GITHUB_OUTPUT unset) it does nothing; a file it cannot write gives a warning annotation.
//
// It writes the file itself rather than through go-githubactions: v1.3.1 ends every value with one
// fixed delimiter, so a value containing "\n_GitHubActionsFileCommandDelimeter_\n" could set
// outputs of its own. Here, as in GitHub's actions/toolkit, each value gets a random delimiter.
func (r *Runner) SetOutput(k, v string) {
	path := r.Getenv("GITHUB_OUTPUT")
	if path == "" {
		return
	}
	cmd, err := fileCommand(k, v)
	if err == nil {
		err = appendFile(path, cmd)
	}
	if err != nil {
		r.Warningf("perfgate: could not set the output %s: %v", k, err)
	}
}

// AddStepSummary appends Markdown to the job summary, when there is one (GITHUB_STEP_SUMMARY set);
// a file it cannot write gives a warning annotation, where go-githubactions would panic.
func (r *Runner) AddStepSummary(md string) {
	path := r.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	if err := appendFile(path, md+githubactions.EOF); err != nil {
		r.Warningf("perfgate: could not write the job summary: %v", err)
	}
}

// fileCommand formats name<<delimiter, value, delimiter: the multi-line form of GITHUB_OUTPUT and
// GITHUB_ENV.
func fileCommand(k, v string) (string, error) {
	if k == "" || strings.ContainsAny(k, "\r\n=") || strings.Contains(k, "<<") {
		return "", fmt.Errorf("invalid output name %q", k)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	delim := "ghadelimiter_" + hex.EncodeToString(b[:])
	if strings.Contains(v, delim) { // 2⁻¹²⁸; actions/toolkit checks too
		return "", fmt.Errorf("the value of %s contains the delimiter", k)
	}
	eol := githubactions.EOF
	return k + "<<" + delim + eol + v + eol + delim + eol, nil
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Errorf emits an ::error annotation. go-githubactions escapes the message (%, CR, LF), so
// untrusted text cannot start a workflow command of its own, and a legacy "##[" command inside it
// is neutralised as text.Inert does.
func (r *Runner) Errorf(format string, args ...any) {
	r.Action.Errorf("%s", text.InertLegacy(fmt.Sprintf(format, args...)))
}

// Warningf emits a ::warning annotation, escaped like Errorf.
func (r *Runner) Warningf(format string, args ...any) {
	r.Action.Warningf("%s", text.InertLegacy(fmt.Sprintf(format, args...)))
}

// Group starts a collapsible log group; EndGroup ends it.
func (r *Runner) Group(title string) { r.Action.Group(title) }

// EndGroup ends the current log group.
func (r *Runner) EndGroup() { r.Action.EndGroup() }

// Event reads the event payload.
func (r *Runner) Event() (*Event, error) {
	if r.EventPath == "" {
		return &Event{Name: r.EventName}, nil
	}
	return ReadEvent(r.EventName, r.EventPath)
}
