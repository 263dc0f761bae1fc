package main

import (
	"fmt"
	"io"
)

// writeTokenEvents are the events whose jobs run in the base repository's context, with a token
// that can write and the repository's secrets, even when a fork's pull request triggered them.
// perfgate action runs the code it measures, so on these events the pull request's code would run
// next to that token: perfgate refuses them.
var writeTokenEvents = map[string]string{
	"pull_request_target": "a pull_request_target job has a write token and secrets while it runs the pull request's code",
	"workflow_run": "a workflow_run job has a write token; it is where 'perfgate comment' posts results, never " +
		"where code is measured",
	"issue_comment": "an issue_comment job has a write token and secrets while it runs the pull request's code",
}

// refuseEvent reports, as an error, that perfgate action must not run on event, with the fork-safe
// setup to use instead; nil when the event is fine.
func refuseEvent(event string) error {
	why, ok := writeTokenEvents[event]
	if !ok {
		return nil
	}
	return fmt.Errorf("perfgate action refuses to run on %s: %s; any code in a job can read that job's token", event, why)
}

// hintForkSafe points at the fork-safe setup: benchmarks on pull_request with a read-only token,
// the comment from a workflow_run job that never runs the pull request's code.
func hintForkSafe(w io.Writer) {
	hintf(w, "run perfgate on pull_request with 'permissions: contents: read' and 'comment: false', upload the "+
		"results directory, and post it from a workflow_run job with 'perfgate comment' "+
		"(see .github/workflows/perfgate.yml and perfgate-comment.yml, and docs/github.md's 'Pull requests from forks')")
}

// untrusted runs f, which writes text from the repository (configuration errors, build output,
// benchmark names) to w, with the runner's workflow commands stopped on that same stream, so that a
// line of that text such as "::add-mask::" or "::error::" is shown and not obeyed. The runner reads
// stdout and stderr separately: the stop token has to travel with the text it protects.
func untrusted(w io.Writer, f func()) {
	resume := stopCommands(w)
	defer resume()
	f()
}
