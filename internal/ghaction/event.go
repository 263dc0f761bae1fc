// Package ghaction is perfgate's side of GitHub Actions: the step's inputs and event payload (a
// pull request, a push, a merge queue entry), the job summary, outputs and annotations (through
// go-githubactions), the sticky pull-request comment and the check run (through Client: go-github
// makes every REST call, and Client.Do retries it under one policy that follows GitHub's documented
// rate-limit rules, within the step's budget).
//
// Data flows one way: NewRunner reads the runner's environment and Runner.Event the event file into
// an Event; the command turns them into a perfgate.Config and runs the comparison;
// Runner.SetOutput, AddStepSummary and Errorf write what came out, Commenter.Upsert keeps the one
// sticky comment on the pull request, and Client.CreateCheckRun puts the check run, with its
// annotations, on the compared head. The package knows nothing about benchmarks: it moves
// strings and numbers that other packages computed and escaped.
package ghaction

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/perfgate/perfgate/internal/gitsrc"
)

// Event is what perfgate needs from the event that triggered the workflow.
type Event struct {
	Name string // "pull_request", "pull_request_target", "push", "merge_group", "workflow_run", …
	PR   int    // the pull request number, 0 when there is none
	// pull_request: base.sha; push: before ("" for a new branch); merge_group: base_sha, the commit
	// the queue entry goes onto (the default branch's, or the entry ahead's head)
	BaseSHA string
	// pull_request: head.sha; push: after ("" for a deleted branch); workflow_run: head_sha;
	// merge_group: head_sha, the queue's merge commit
	HeadSHA string
	// merge_group: head_ref, the queue entry's branch (gh-readonly-queue/main/pr-1-<sha>)
	HeadRef  string
	Labels   []string // pull_request: the labels' names
	Fork     bool     // pull_request: the head repository is not the base repository
	RunID    int64    // workflow_run: the id of the run that triggered this one
	RunEvent string   // workflow_run: the event of the triggering run
}

// zeroSHA is a push's before of a new branch and after of a deleted one.
const zeroSHA = "0000000000000000000000000000000000000000"

// ReadEvent parses the event payload at path for the event called name.
func ReadEvent(name, path string) (*Event, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the event payload: %w", err)
	}
	return ParseEvent(name, data)
}

// ParseEvent parses an event payload. Unknown events give an Event with only Name set.
func ParseEvent(name string, data []byte) (*Event, error) {
	var p struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
			Base   struct {
				SHA  string `json:"sha"`
				Repo struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"base"`
			Head struct {
				SHA  string `json:"sha"`
				Repo *struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"head"`
			Labels []struct {
				Name string `json:"name"`
			} `json:"labels"`
		} `json:"pull_request"`
		Before      string `json:"before"`
		After       string `json:"after"`
		WorkflowRun *struct {
			ID           int64  `json:"id"`
			Event        string `json:"event"`
			HeadSHA      string `json:"head_sha"`
			PullRequests []struct {
				Number int `json:"number"`
			} `json:"pull_requests"`
		} `json:"workflow_run"`
		MergeGroup *struct {
			HeadSHA string `json:"head_sha"`
			HeadRef string `json:"head_ref"`
			BaseSHA string `json:"base_sha"`
		} `json:"merge_group"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("parsing the %s event payload: %w", name, err)
	}
	e := &Event{Name: name}
	switch {
	case p.PullRequest != nil:
		pr := p.PullRequest
		e.PR = pr.Number
		e.BaseSHA, e.HeadSHA = pr.Base.SHA, pr.Head.SHA
		for _, l := range pr.Labels {
			e.Labels = append(e.Labels, l.Name)
		}
		e.Fork = pr.Head.Repo == nil || pr.Head.Repo.FullName != pr.Base.Repo.FullName
	case p.WorkflowRun != nil:
		e.RunID, e.RunEvent, e.HeadSHA = p.WorkflowRun.ID, p.WorkflowRun.Event, p.WorkflowRun.HeadSHA
		if len(p.WorkflowRun.PullRequests) == 1 {
			e.PR = p.WorkflowRun.PullRequests[0].Number
		}
	case p.MergeGroup != nil:
		// A queue entry is compared with the commit it goes onto, which the event names: with two
		// entries queued, the second's base is the first's head, not the default branch.
		mg := p.MergeGroup
		e.BaseSHA, e.HeadSHA, e.HeadRef = mg.BaseSHA, mg.HeadSHA, mg.HeadRef
		if e.BaseSHA == "" || e.HeadSHA == "" {
			return nil, fmt.Errorf("the %s event payload lacks merge_group.base_sha or merge_group.head_sha", name)
		}
	case name == "push":
		e.BaseSHA, e.HeadSHA = p.Before, p.After
		if e.BaseSHA == zeroSHA {
			e.BaseSHA = "" // a new branch: no before
		}
		if e.HeadSHA == zeroSHA {
			e.HeadSHA = "" // a deleted branch: no after
		}
	}
	for _, sha := range []string{e.BaseSHA, e.HeadSHA} {
		if sha != "" && !gitsrc.IsFullSHA(sha) {
			return nil, fmt.Errorf("the %s event payload has a malformed commit id %q", name, sha)
		}
	}
	if e.PR < 0 {
		return nil, fmt.Errorf("the %s event payload has a malformed pull request number %d", name, e.PR)
	}
	return e, nil
}

// HasLabel reports whether the pull request carries label. Case does not matter, as in GitHub,
// which keeps one label per name whatever its case.
func (e *Event) HasLabel(label string) bool {
	for _, l := range e.Labels {
		if label != "" && strings.EqualFold(l, label) {
			return true
		}
	}
	return false
}
