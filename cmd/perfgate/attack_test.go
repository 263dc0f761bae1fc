package main

// Tests that play a hostile pull request against `perfgate action`: events that would run its code
// next to a write token, and text of its own that tries to become workflow commands.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/data/config"
	"github.com/perfgate/perfgate/internal/leaf/text"
	"github.com/perfgate/perfgate/record"
)

// TestActionRefusesWriteTokenEvents: on pull_request_target (and the other events whose token can
// write), perfgate action exits 2 before it reads anything from the repository, says why and points
// at the fork-safe setup.
//
// Before the event check: GITHUB_EVENT_NAME=pull_request_target perfgate action measured the pull
// request's code with the base repository's write token in the job.
func TestActionRefusesWriteTokenEvents(t *testing.T) {
	for _, event := range []string{"pull_request_target", "workflow_run", "issue_comment"} {
		t.Run(event, func(t *testing.T) {
			gh := newFakeGitHub(t)
			ws := t.TempDir()
			dir := ghEnv(t, gh, ws)
			t.Setenv("GITHUB_EVENT_NAME", event)
			writeEvent(t, dir, 3, strings.Repeat("a", 40), strings.Repeat("b", 40))
			setFixtureInputs(t)
			inv := invoke(t, "action")
			if inv.code != record.ExitUsage {
				t.Errorf("exit %d, want %d", inv.code, record.ExitUsage)
			}
			for _, want := range []string{"refuses to run on " + event, "workflow_run job with 'perfgate comment'"} {
				if !strings.Contains(inv.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, inv.stderr)
				}
			}
			if !strings.Contains(inv.stdout, "::error::") {
				t.Errorf("no ::error annotation:\n%s", inv.stdout)
			}
			if _, err := os.Stat(filepath.Join(ws, "perfgate-results")); err == nil {
				t.Errorf("a results directory was written: the comparison ran")
			}
		})
	}
}

// TestActionConfigErrorIsInert: a configuration file from the pull request whose quoted key holds a
// newline and a workflow command. The error that quotes it must reach the log inside a
// stop-commands region of the same stream.
//
// Before the event check the error was printed on stderr with no stop-commands at all, and the
// runner obeyed "::warning::injected".
func TestActionConfigErrorIsInert(t *testing.T) {
	gh := newFakeGitHub(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, config.FileName), []byte(`"x\n::add-mask::ghs\n::warning::injected": 1`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := ghEnv(t, gh, ws)
	writeEvent(t, dir, 3, strings.Repeat("a", 40), strings.Repeat("b", 40))
	setFixtureInputs(t)
	inv := invoke(t, "action")
	if inv.code != record.ExitUsage {
		t.Errorf("exit %d, want %d", inv.code, record.ExitUsage)
	}
	if !strings.Contains(inv.stderr, "::warning::injected") {
		t.Fatalf("the error does not quote the key; stderr:\n%s", inv.stderr)
	}
	checkInert(t, "stderr", inv.stderr)
}

// checkInert fails when a line of out that the runner would read as a workflow command, in either
// form ("::x::" at the start of a line, "##[x]" anywhere in it), lies outside a stop-commands
// region of out itself. perfgate's own annotations (allowed, as names them) are the exception.
func checkInert(t *testing.T, name, out string, allowed ...string) {
	t.Helper()
	stop := ""
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimLeft(l, " \t")
		switch {
		case stop != "" && l == "::"+stop+"::":
			stop = ""
		case stop != "":
		case strings.HasPrefix(l, "::stop-commands::"):
			stop = strings.TrimPrefix(l, "::stop-commands::")
		case slices.ContainsFunc(allowed, func(p string) bool { return strings.HasPrefix(l, p) }) &&
			!strings.Contains(l, "##["):
		case text.IsCommand(l):
			t.Errorf("%s: the runner would obey %q", name, l)
		}
	}
	if stop != "" {
		t.Errorf("%s: stop-commands %s is never resumed", name, stop)
	}
}
