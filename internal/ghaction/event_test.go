package ghaction

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The payloads below are trimmed from the webhook examples in GitHub's documentation
// (docs.github.com/webhooks/webhook-events-and-payloads): only the fields perfgate reads, plus a
// few it must ignore.
const (
	baseSHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
	headSHA = "c5b97d5ae6c19d5c5df71a34c7fbeeda2479ccbc"
)

func pullRequestPayload(headRepo string) string {
	head := `null`
	if headRepo != "" {
		head = `{"full_name": "` + headRepo + `"}`
	}
	return `{
  "action": "synchronize",
  "number": 1347,
  "pull_request": {
    "url": "https://api.github.com/repos/octocat/Hello-World/pulls/1347",
    "number": 1347,
    "state": "open",
    "labels": [{"id": 208045946, "name": "bug"}, {"id": 208045947, "name": "perf-ack"}],
    "head": {"label": "octocat:new-topic", "ref": "new-topic", "sha": "` + headSHA + `", "repo": ` + head + `},
    "base": {"label": "octocat:master", "ref": "master", "sha": "` + baseSHA + `", "repo": {"full_name": "octocat/Hello-World"}}
  },
  "repository": {"full_name": "octocat/Hello-World"}
}`
}

func TestParseEvent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		event   string
		payload string
		want    Event
	}{
		{"pull request", "pull_request", pullRequestPayload("octocat/Hello-World"),
			Event{Name: "pull_request", PR: 1347, BaseSHA: baseSHA, HeadSHA: headSHA, Labels: []string{"bug", "perf-ack"}}},
		{"fork", "pull_request", pullRequestPayload("mallory/Hello-World"),
			Event{Name: "pull_request", PR: 1347, BaseSHA: baseSHA, HeadSHA: headSHA, Labels: []string{"bug", "perf-ack"}, Fork: true}},
		// GitHub sends "repo": null once the fork is gone
		{"deleted fork", "pull_request", pullRequestPayload(""),
			Event{Name: "pull_request", PR: 1347, BaseSHA: baseSHA, HeadSHA: headSHA, Labels: []string{"bug", "perf-ack"}, Fork: true}},
		{"pull_request_target", "pull_request_target", pullRequestPayload("mallory/Hello-World"),
			Event{Name: "pull_request_target", PR: 1347, BaseSHA: baseSHA, HeadSHA: headSHA, Labels: []string{"bug", "perf-ack"}, Fork: true}},
		{"no labels", "pull_request",
			`{"pull_request": {"number": 7, "head": {"sha": "` + headSHA + `", "repo": {"full_name": "o/r"}}, "base": {"sha": "` + baseSHA + `", "repo": {"full_name": "o/r"}}}}`,
			Event{Name: "pull_request", PR: 7, BaseSHA: baseSHA, HeadSHA: headSHA}},
		{"push", "push",
			`{"ref": "refs/heads/main", "before": "` + baseSHA + `", "after": "` + headSHA + `", "created": false, "deleted": false, "commits": []}`,
			Event{Name: "push", BaseSHA: baseSHA, HeadSHA: headSHA}},
		{"push of a new branch", "push",
			`{"ref": "refs/heads/topic", "before": "0000000000000000000000000000000000000000", "after": "` + headSHA + `", "created": true}`,
			Event{Name: "push", HeadSHA: headSHA}},
		{"push deleting a branch", "push",
			`{"ref": "refs/heads/topic", "before": "` + baseSHA + `", "after": "0000000000000000000000000000000000000000", "deleted": true}`,
			Event{Name: "push", BaseSHA: baseSHA}},
		{"workflow_run", "workflow_run", `{
  "action": "completed",
  "workflow_run": {
    "id": 30433642, "name": "perfgate", "event": "pull_request", "status": "completed", "conclusion": "success",
    "head_branch": "new-topic", "head_sha": "` + headSHA + `",
    "pull_requests": [{"url": "https://api.github.com/repos/octocat/Hello-World/pulls/1347", "id": 934669, "number": 1347,
      "head": {"ref": "new-topic", "sha": "` + headSHA + `"}, "base": {"ref": "master", "sha": "` + baseSHA + `"}}]
  }
}`, Event{Name: "workflow_run", PR: 1347, HeadSHA: headSHA, RunID: 30433642, RunEvent: "pull_request"}},
		// GitHub leaves pull_requests empty for a fork's run
		{"workflow_run from a fork", "workflow_run",
			`{"workflow_run": {"id": 30433643, "event": "pull_request", "head_sha": "` + headSHA + `", "pull_requests": []}}`,
			Event{Name: "workflow_run", HeadSHA: headSHA, RunID: 30433643, RunEvent: "pull_request"}},
		{"workflow_run of two pull requests", "workflow_run",
			`{"workflow_run": {"id": 9, "event": "push", "head_sha": "` + headSHA + `", "pull_requests": [{"number": 1}, {"number": 2}]}}`,
			Event{Name: "workflow_run", HeadSHA: headSHA, RunID: 9, RunEvent: "push"}},
		// a queue entry behind another: its base is the entry ahead's head, not the default branch
		{"merge_group", "merge_group", `{
  "action": "checks_requested",
  "merge_group": {
    "head_sha": "` + headSHA + `",
    "head_ref": "refs/heads/gh-readonly-queue/main/pr-1347-` + baseSHA + `",
    "base_sha": "` + baseSHA + `",
    "base_ref": "refs/heads/main",
    "head_commit": {"id": "` + headSHA + `", "message": "Merge pull request #1347"}
  },
  "repository": {"full_name": "octocat/Hello-World"}
}`, Event{Name: "merge_group", BaseSHA: baseSHA, HeadSHA: headSHA,
			HeadRef: "refs/heads/gh-readonly-queue/main/pr-1347-" + baseSHA}},
		{"workflow_dispatch", "workflow_dispatch", `{"inputs": {}, "ref": "refs/heads/main"}`, Event{Name: "workflow_dispatch"}},
		{"empty object", "schedule", `{}`, Event{Name: "schedule"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseEvent(tc.event, []byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("ParseEvent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEventErrors(t *testing.T) {
	for _, tc := range []struct {
		event, payload string
		want           []string // substrings of the error
	}{
		{"pull_request", `{"pull_request": {"number": 1, "head": {"sha": "abc123"}, "base": {"sha": "` + baseSHA + `"}}}`,
			[]string{"pull_request", "malformed commit id", "abc123"}},
		{"pull_request", `{"pull_request": {"number": 1, "head": {"sha": "` + headSHA + `"}, "base": {"sha": "` + strings.ToUpper(baseSHA) + `"}}}`,
			[]string{"malformed commit id"}},
		{"pull_request", `{"pull_request": {"number": 1, "head": {"sha": "` + headSHA[:39] + `;"}, "base": {"sha": "` + baseSHA + `"}}}`,
			[]string{"malformed commit id"}},
		{"push", `{"before": "HEAD~1", "after": "` + headSHA + `"}`, []string{"push", "malformed commit id", "HEAD~1"}},
		{"push", `{"before": "` + baseSHA + `", "after": "--upload-pack=evil"}`, []string{"malformed commit id"}},
		{"workflow_run", `{"workflow_run": {"id": 1, "head_sha": "main"}}`, []string{"workflow_run", "malformed commit id"}},
		{"merge_group", `{"merge_group": {"head_sha": "` + headSHA + `"}}`, []string{"merge_group", "lacks merge_group.base_sha"}},
		{"merge_group", `{"merge_group": {"head_sha": "` + headSHA + `", "base_sha": "main"}}`, []string{"malformed commit id"}},
		{"pull_request", `{"pull_request": {"number": -5}}`, []string{"malformed pull request number"}},
		{"pull_request", `{"pull_request": {"number": 1,`, []string{"parsing the pull_request event payload"}},
		{"push", `not json`, []string{"parsing the push event payload"}},
		{"pull_request", `{"pull_request": {"number": "1"}}`, []string{"parsing the pull_request event payload"}},
		{"pull_request", ``, []string{"parsing the pull_request event payload"}},
	} {
		ev, err := ParseEvent(tc.event, []byte(tc.payload))
		if err == nil {
			t.Errorf("ParseEvent(%s, %s) = %+v, want an error", tc.event, tc.payload, ev)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseEvent(%s, %s): error %q lacks %q", tc.event, tc.payload, err, w)
			}
		}
	}
}

func TestReadEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, []byte(pullRequestPayload("octocat/Hello-World")), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := ReadEvent("pull_request", path)
	if err != nil || ev.PR != 1347 || ev.HeadSHA != headSHA {
		t.Errorf("ReadEvent = %+v, %v; want pull request 1347 at %s", ev, err, headSHA)
	}
	if _, err := ReadEvent("pull_request", filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "reading the event payload") {
		t.Errorf("ReadEvent of a missing file: %v", err)
	}
}

func TestHasLabel(t *testing.T) {
	ev := &Event{Labels: []string{"bug", "perf-ack"}}
	for label, want := range map[string]bool{"perf-ack": true, "bug": true, "Perf-Ack": true, "perf": false, "": false} {
		if got := ev.HasLabel(label); got != want {
			t.Errorf("HasLabel(%q) = %v, want %v", label, got, want)
		}
	}
	if (&Event{}).HasLabel("perf-ack") {
		t.Errorf("an event without labels has one")
	}
}
