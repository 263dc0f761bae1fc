package main

// Tests of `perfgate comment`: posting a results artifact, and refusing a tampered one.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/record"
)

// syntheticResult returns a failing result measured at head, with n benchmarks and evil in every
// string field.
func syntheticResult(head string, n int) *record.Result {
	res := &record.Result{
		Schema: record.Schema, Package: "./pkg" + evil,
		Base:     record.Revision{Ref: "main" + evil, Commit: strings.Repeat("a", 40), Subject: evil},
		Head:     record.Revision{Ref: "pr" + evil, Commit: head, Subject: evil},
		Verdict:  record.Verdict{Status: record.StatusFail, ExitCode: 1, Reasons: []string{evil}, Acknowledged: []string{evil}},
		Failures: []record.Failure{{Name: "Crash" + evil, Side: "head", Kind: "panic", Message: evil}},
		Functional: record.Functional{
			Base: record.TestRun{Ran: true, Passed: true},
			Head: record.TestRun{Ran: true, Passed: false, Output: evil},
		},
		Differential: record.Differential{Status: record.DiffMismatch, Reason: evil, Ciphers: []record.Cipher{{
			Name: "New" + evil, KeySizes: []int{8}, Keys: 1, Blocks: 1, Mismatches: 1, DigestBase: evil, DigestHead: evil,
			Examples: []record.Mismatch{{Key: record.Hex(evil), Direction: "encrypt", Method: evil, Input: record.Hex(evil), Base: record.Hex(evil), Head: record.Hex(evil)}},
		}}},
		Sizes: record.Sizes{
			Sections: []record.SectionSize{{Name: ".text" + evil, Base: 100, Head: 200}},
			Symbols:  []record.SymbolSize{{Name: "sym" + evil, Section: ".text" + evil, Base: 1, Head: 2}},
			Error:    evil,
		},
		Env:    record.Env{Go: "go" + evil, GOOS: "linux", GOARCH: "amd64", CPU: evil, Governor: evil, Kernel: evil},
		Method: record.Method{Rounds: 5, Threshold: 2, Alpha: 0.05, Estimator: evil},
		Notes:  []string{evil},
	}
	for i := range n {
		res.Benchmarks = append(res.Benchmarks, record.Benchmark{
			Name: fmt.Sprintf("Bench%05d/%s", i, evil), Unit: "sec/op", Class: record.ClassSlower, Note: evil,
			Base:     record.Summary{Center: 1e-6, Lo: 0.9e-6, Hi: 1.1e-6, N: 10},
			Head:     record.Summary{Center: 2e-6, Lo: 1.9e-6, Hi: 2.1e-6, N: 10},
			DeltaPct: 100, P: 0.001, Paired: &record.Paired{Ratio: 2, Lo: 1.9, Hi: 2.1},
		})
	}
	return res
}

// writeArtifact writes result.json and github.json into a new results directory.
func writeArtifact(t *testing.T, res *record.Result, info prInfo) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "perfgate-results")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, filepath.Join(dir, "result.json"), res)
	writeJSONFile(t, filepath.Join(dir, prInfoFile), info)
	// The artifact's report.md is untrusted and ignored: perfgate comment renders its own.
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(mdreport.Marker+"\n<img src=x>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// commentEnv sets up the environment of the workflow_run job and returns the measured head SHA and
// a valid github.json for pull request pr.
func commentEnv(t *testing.T, gh *fakeGitHub, pr int) (string, prInfo) {
	t.Helper()
	head := strings.Repeat("c0ffee", 7)[:40]
	gh.SetPull(pr, head)
	dir := ghEnv(t, gh, t.TempDir())
	t.Setenv("GITHUB_EVENT_NAME", "workflow_run")
	t.Setenv("GITHUB_TOKEN", fakeToken)
	// A fork's pull request: GitHub leaves workflow_run.pull_requests empty, so only the artifact
	// names it.
	writeJSONFile(t, filepath.Join(dir, "event.json"), map[string]any{
		"action":       "completed",
		"workflow_run": map[string]any{"id": 99, "event": "pull_request", "head_sha": head, "pull_requests": []any{}},
	})
	return head, prInfo{Repository: fakeOwner + "/" + fakeRepo, PR: pr, BaseSHA: strings.Repeat("a", 40), HeadSHA: head, Event: "pull_request"}
}

// TestComment posts a results directory from a workflow_run job: a result of thousands of
// benchmarks, every string of it hostile, comes out escaped and under GitHub's limit, also when
// GitHub rejects long bodies (422).
func TestComment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxBody int // the fake's limit on a body
	}{{"limit", maxCommentBody}, {"422", 20000}} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t)
			gh.SetMaxBody(tc.maxBody)
			const pr = 41
			head, info := commentEnv(t, gh, pr)
			dir := writeArtifact(t, syntheticResult(head, 3000), info)
			inv := invoke(t, "comment", dir)
			if inv.code != 0 {
				t.Fatalf("exit %d, want 0", inv.code)
			}
			comments, writes := gh.Comments(pr), gh.Writes()
			ours := mine(comments)
			if len(ours) != 1 || writes != 1 {
				t.Fatalf("%d perfgate comments, %d writes; want 1 and 1", len(ours), writes)
			}
			body := ours[0].Body
			if n := utf8.RuneCountInString(body); n > tc.maxBody {
				t.Errorf("the comment has %d characters, more than %d", n, tc.maxBody)
			}
			if !strings.HasPrefix(body, mdreport.Marker) || !strings.Contains(body, "Bench00000") || !strings.Contains(body, "omitted") {
				t.Errorf("the comment lacks the marker, the first benchmark or the note of what it left out:\n%s", tail(body, 5))
			}
			if strings.TrimSpace(inv.stdout) != fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", fakeOwner, fakeRepo, pr, ours[0].ID) {
				t.Errorf("stdout = %q, want the comment's URL", inv.stdout)
			}
			// An escaped bracket (\]) closes no link text: only a bare "](javascript" would make a
			// link.
			text := strings.ReplaceAll(outsideFences(body), `\]`, "")
			for _, raw := range []string{"<img", "<!-- hide", "](javascript", "@everyone", "\n# heading", "<script"} {
				if strings.Contains(text, raw) {
					i := strings.Index(text, raw)
					t.Errorf("the comment holds %q unescaped: …%s…", raw, text[max(i-80, 0):min(i+80, len(text))])
				}
			}
			if open, closed := strings.Count(text, "<details>"), strings.Count(text, "</details>"); open != closed {
				t.Errorf("the comment opens %d <details> and closes %d", open, closed)
			}
		})
	}
}

// TestCommentRefusesTamperedArtifacts: an artifact that does not describe the triggering run's pull
// request and commit exactly, or that is not made of small regular files, is refused with exit code
// 2 and nothing is posted.
func TestCommentRefusesTamperedArtifacts(t *testing.T) {
	const pr = 41
	other := strings.Repeat("d", 40)
	type artifact struct {
		gh   *fakeGitHub
		res  *record.Result
		info *prInfo
	}
	for _, tc := range []struct {
		name  string
		edit  func(a artifact)               // changes what is written, or what GitHub answers
		files func(t *testing.T, dir string) // changes the written results directory
		want  string                         // in stderr
	}{
		{name: "pr zero", edit: func(a artifact) { a.info.PR = 0 }, want: "out of range"},
		{name: "pr negative", edit: func(a artifact) { a.info.PR = -pr }, want: "out of range"},
		{name: "pr too large", edit: func(a artifact) { a.info.PR = 1<<31 + pr }, want: "out of range"},
		{name: "pull request moved on", edit: func(a artifact) { a.gh.SetPull(pr, other) }, want: "not the measured"},
		{name: "other pull request", edit: func(a artifact) {
			// the artifact aims the comment at a pull request with another head
			a.gh.SetPull(pr+1, other)
			a.info.PR = pr + 1
		}, want: "not the measured"},
		{name: "result head differs", edit: func(a artifact) { a.res.Head.Commit = other }, want: "result.json measured head"},
		{name: "not the triggering run's commit", edit: func(a artifact) {
			a.res.Head.Commit, a.info.HeadSHA = other, other
			a.gh.SetPull(pr, other)
		}, want: "triggering run was for"},
		{name: "malformed head", edit: func(a artifact) { a.res.Head.Commit, a.info.HeadSHA = "HEAD", "HEAD" }, want: "not a commit id"},
		{name: "other repository", edit: func(a artifact) { a.info.Repository = "mallory/minides" }, want: "repository"},
		{name: "workflow commands in repository", edit: func(a artifact) {
			a.info.Repository = "mallory/x ##[add-mask]ghs ##[error]forged\n::warning::injected"
		}, want: `##\[error]forged`},
		{name: "unknown verdict", edit: func(a artifact) { a.res.Verdict.Status = "pass<img src=x>" }, want: "unknown verdict"},
		{name: "hostile unit", edit: func(a artifact) {
			a.res.Benchmarks[len(a.res.Benchmarks)-1].Unit = "@org/team<img/src=https://x/p.png>"
		}, want: "is not a unit"},
		{name: "oversized github.json", edit: func(a artifact) { a.info.Event = strings.Repeat("x", maxInfoBytes) }, want: "bytes, more than"},
		{name: "oversized result.json", files: func(t *testing.T, dir string) {
			// A sparse file past the limit: the size is checked before anything is read.
			if err := os.Truncate(filepath.Join(dir, "result.json"), maxResultBytes+1); err != nil {
				t.Fatal(err)
			}
		}, want: "bytes, more than"},
		{name: "symlinked result.json", files: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "result.json")
			if err := os.Rename(p, p+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(p+".real", p); err != nil {
				t.Fatal(err)
			}
		}, want: "not a regular file"},
		{name: "github.json a directory", files: func(t *testing.T, dir string) {
			p := filepath.Join(dir, prInfoFile)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, want: "not a regular file"},
		{name: "event names another pull request", files: func(t *testing.T, _ string) {
			ev := filepath.Join(filepath.Dir(os.Getenv("GITHUB_OUTPUT")), "event.json")
			var payload struct {
				Action      string         `json:"action"`
				WorkflowRun map[string]any `json:"workflow_run"`
			}
			if err := json.Unmarshal([]byte(readFile(t, ev)), &payload); err != nil {
				t.Fatal(err)
			}
			payload.WorkflowRun["pull_requests"] = []map[string]int{{"number": pr + 1}}
			writeJSONFile(t, ev, payload)
		}, want: "triggering run was for #42"},
		{name: "github.json missing", files: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, prInfoFile)); err != nil {
				t.Fatal(err)
			}
		}, want: prInfoFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t)
			head, info := commentEnv(t, gh, pr)
			res := syntheticResult(head, 3)
			if tc.edit != nil {
				tc.edit(artifact{gh, res, &info})
			}
			dir := writeArtifact(t, res, info)
			if tc.files != nil {
				tc.files(t, dir)
			}
			inv := invoke(t, "comment", dir)
			if inv.code != record.ExitUsage {
				t.Errorf("exit %d, want %d", inv.code, record.ExitUsage)
			}
			if !strings.Contains(inv.stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, inv.stderr)
			}
			checkInert(t, "stderr", inv.stderr)
			checkInert(t, "stdout", inv.stdout, "::error::")
			if comments, writes := gh.Comments(pr), gh.Writes(); len(comments) != 0 || writes != 0 {
				t.Errorf("%d comments, %d writes: the artifact was posted", len(comments), writes)
			}
			if inv.stdout != "" && !strings.HasPrefix(inv.stdout, "::error::") {
				t.Errorf("stdout = %q, want nothing but an ::error annotation", inv.stdout)
			}
		})
	}
}

// TestCommentOnAlert: with comment: on-alert, a PASS with no earlier comment posts nothing; a FAIL
// posts; a PASS after it edits that comment to PASS rather than leaving the alert standing.
func TestCommentOnAlert(t *testing.T) {
	gh := newFakeGitHub(t)
	const pr = 43
	head, info := commentEnv(t, gh, pr)
	t.Setenv("INPUT_COMMENT", "on-alert")
	pass := syntheticResult(head, 1)
	pass.Verdict = record.Verdict{Status: record.StatusPass}
	b := &pass.Benchmarks[0]
	b.Class, b.DeltaPct, b.Head, b.Paired = record.ClassFaster, -50, record.Summary{Center: 0.5e-6, Lo: 0.4e-6, Hi: 0.6e-6,
		N: 10}, &record.Paired{Ratio: 0.5, Lo: 0.45, Hi: 0.55}
	pass.Differential, pass.Functional.Head.Passed, pass.Failures, pass.Sizes = record.Differential{}, true, nil,
		record.Sizes{}
	fail := syntheticResult(head, 1)

	step := func(res *record.Result, wantComments, wantWrites int, want string) {
		t.Helper()
		inv := invoke(t, "comment", writeArtifact(t, res, info))
		if inv.code != 0 {
			t.Fatalf("exit %d, want 0", inv.code)
		}
		ours := mine(gh.Comments(pr))
		if len(ours) != wantComments || gh.Writes() != wantWrites {
			t.Fatalf("%d perfgate comments, %d writes; want %d and %d", len(ours), gh.Writes(), wantComments, wantWrites)
		}
		if want != "" && !strings.Contains(ours[0].Body, want) {
			t.Errorf("the comment does not say %q", want)
		}
	}
	step(pass, 0, 0, "")
	step(fail, 1, 1, "**perfgate: FAIL**")
	step(pass, 1, 2, "**perfgate: PASS**")

	t.Setenv("INPUT_COMMENT", "sometimes")
	if inv := invoke(t, "comment", writeArtifact(t, pass, info)); inv.code != 2 ||
		!strings.Contains(inv.stderr, "want true, false or on-alert") {
		t.Errorf("comment: sometimes: exit %d, %q; want 2 and the accepted values", inv.code, inv.stderr)
	}
}
