package workflowrun

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/fakegithub"
	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// The README's workflows, by the start of their first line.
const (
	gateWorkflow    = "# .github/workflows/perfgate.yml — runs the pull request's code"
	commentWorkflow = "# .github/workflows/perfgate-comment.yml"
	shardWorkflow   = "# .github/workflows/perfgate.yml — four shards"
	oneFileWorkflow = "# .github/workflows/perfgate.yml — one file"
	ownRepo         = fakegithub.Owner + "/" + fakegithub.Repo
)

// pr is one pull request of a scenario.
type pr struct {
	number     int
	base, head string
	headRepo   string // owner/name of the head's repository: ownRepo, or a fork
}

// event is the pull_request event of action (opened, labeled, …) with labels.
func (p pr) event(action string, labels ...string) map[string]any {
	ls := []map[string]string{}
	for _, l := range labels {
		ls = append(ls, map[string]string{"name": l})
	}
	ev := map[string]any{
		"action": action, "number": p.number,
		"repository": map[string]any{"full_name": ownRepo},
		"pull_request": map[string]any{
			"number": p.number, "labels": ls,
			"base": map[string]any{"sha": p.base, "ref": "main", "repo": map[string]any{"full_name": ownRepo}},
			"head": map[string]any{"sha": p.head, "ref": "topic", "repo": map[string]any{"full_name": p.headRepo}},
		},
	}
	if action == "labeled" {
		ev["label"] = map[string]string{"name": labels[len(labels)-1]}
	}
	return ev
}

// completed is the workflow_run event of the gate's run id having finished with ok. GitHub names no
// pull request in it when the head is a fork's.
func (p pr) completed(id int, ok bool) map[string]any {
	conclusion := "failure"
	if ok {
		conclusion = "success"
	}
	pulls := []map[string]any{}
	if p.headRepo == ownRepo {
		pulls = append(pulls, map[string]any{"number": p.number})
	}
	return map[string]any{
		"action":   "completed",
		"workflow": map[string]any{"name": "perfgate"},
		"workflow_run": map[string]any{
			"id": id, "name": "perfgate", "event": "pull_request", "status": "completed", "conclusion": conclusion,
			"head_sha": p.head, "head_branch": "topic", "head_repository": map[string]any{"full_name": p.headRepo},
			"pull_requests": pulls,
		},
	}
}

// mergeGroup is the merge_group event of a merge queue entry from base to head, as GitHub sends it
// (docs.github.com/webhooks/webhook-events-and-payloads#merge_group): the entry of pull request 1,
// on the queue's branch.
func mergeGroup(base, head string) map[string]any {
	return map[string]any{
		"action": "checks_requested",
		"merge_group": map[string]any{
			"head_sha": head, "head_ref": "refs/heads/gh-readonly-queue/main/pr-1-" + base,
			"base_sha": base, "base_ref": "refs/heads/main",
			"head_commit": map[string]any{"id": head, "message": "Merge pull request #1"},
		},
		"repository": map[string]any{"full_name": ownRepo},
	}
}

// gate runs the gate workflow for the pull request's event, then the comment workflow on its
// completion, and returns the gate's outcome.
func (r *runner) gate(gateYAML, commentYAML string, p pr, id int, action string, labels ...string) result {
	r.t.Helper()
	r.gh.SetPull(p.number, p.head)
	r.gh.SetLabels(p.number, labels...)
	g := r.run(gateYAML, "pull_request", p.event(action, labels...), id)
	c := r.run(commentYAML, "workflow_run", p.completed(id, g.ok), id+1000)
	if !c.ok {
		r.t.Fatalf("the comment workflow failed:\n%s\n\nthe gate's run:\n%s", tailLines(c.log, 100), tailLines(g.log, 100))
	}
	return g
}

// comment returns the one sticky comment of pull request n.
func (r *runner) comment(n int) string {
	r.t.Helper()
	cs := r.gh.Comments(n)
	if len(cs) != 1 || cs[0].Login != fakegithub.Bot {
		r.t.Fatalf("pull request #%d has comments %+v, want one by %s", n, cs, fakegithub.Bot)
	}
	return cs[0].Body
}

// tailLines returns the last n lines of act's log s, without act's complaints about the workflow's
// directory.
func tailLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if !strings.Contains(l, "unable to get git") && !strings.Contains(l, "not located inside a git repository") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func TestREADMEWorkflows(t *testing.T) {
	// act itself comes from the Go module proxy (buildAct); the actions it runs need node, and the
	// workflows run the instruction-count lane.
	testenv.NeedTool(t, "node", "apt-get install nodejs")
	testenv.NeedTool(t, "valgrind", "apt-get install valgrind")
	testenv.Long(t) // runs the README's workflows under act
	blocks := readmeWorkflows(t)
	gateYAML, commentYAML := workflow(t, blocks, gateWorkflow), workflow(t, blocks, commentWorkflow)
	fix := newFixture(t)

	t.Run("comments", func(t *testing.T) {
		r := newRunner(t, fix)
		p := pr{number: 1, base: fix.base, head: fix.folded, headRepo: ownRepo}
		g := r.gate(gateYAML, commentYAML, p, 11, "opened")
		if !g.ok {
			t.Fatalf("the gate failed on a faster head:\n%s", tailLines(g.log, 80))
		}
		if body := r.comment(1); !strings.Contains(body, "PASS") || !strings.Contains(body, "faster") {
			t.Errorf("the comment does not say PASS and faster:\n%s", body)
		}
		// The second job of the scenario found perfgate's build in the cache that the first saved.
		if !strings.Contains(g.log, "cache perfgate-") {
			t.Errorf("the gate's run did not go through the cache step:\n%s", tailLines(g.log, 80))
		}
	})

	t.Run("label", func(t *testing.T) {
		r := newRunner(t, fix)
		// about twice as slow
		p := pr{number: 2, base: fix.folded, head: fix.slower, headRepo: ownRepo}
		if g := r.gate(gateYAML, commentYAML, p, 21, "opened"); g.ok {
			t.Fatalf("the gate passed a slower head:\n%s", tailLines(g.log, 80))
		}
		if body := r.comment(2); !strings.Contains(body, "FAIL") {
			t.Fatalf("the comment does not say FAIL:\n%s", body)
		}
		if g := r.gate(gateYAML, commentYAML, p, 22, "labeled", "perf-regression-ok"); !g.ok {
			t.Fatalf("adding perf-regression-ok did not pass the gate:\n%s", tailLines(g.log, 80))
		}
		if body := r.comment(2); !strings.Contains(body, "PASS") || !strings.Contains(body, "perf-regression-ok") {
			t.Errorf("after the label the sticky comment does not say PASS by perf-regression-ok:\n%s", body)
		}
	})

	t.Run("fork", func(t *testing.T) {
		r := newRunner(t, fix)
		p := pr{number: 3, base: fix.base, head: fix.folded, headRepo: "someone/" + fakegithub.Repo}
		if g := r.gate(gateYAML, commentYAML, p, 31, "synchronize"); !g.ok {
			t.Fatalf("the gate failed on a fork's faster head:\n%s", tailLines(g.log, 80))
		}
		if body := r.comment(3); !strings.Contains(body, "PASS") {
			t.Errorf("the fork's comment does not say PASS:\n%s", body)
		}
	})

	t.Run("one file", func(t *testing.T) {
		// The smallest workflow: the gate's own step comments, with the job's token.
		r := newRunner(t, fix)
		p := pr{number: 6, base: fix.base, head: fix.folded, headRepo: ownRepo}
		r.gh.SetPull(p.number, p.head)
		g := r.run(workflow(t, blocks, oneFileWorkflow), "pull_request", p.event("opened"), 61)
		if !g.ok {
			var posted []string
			for _, c := range r.gh.Comments(6) {
				posted = append(posted, c.Body)
			}
			t.Fatalf("the one-file gate failed on a faster head:\n%s\n\nits comments:\n%s", tailLines(g.log, 80),
				strings.Join(posted, "\n---\n"))
		}
		if body := r.comment(6); !strings.Contains(body, "PASS") {
			t.Errorf("the one-file workflow's comment does not say PASS:\n%s", body)
		}
		// and its token (checks: write) puts the check run on the pull request's head
		if runs := r.gh.CheckRuns(); len(runs) != 1 || runs[0].HeadSHA != p.head || runs[0].Conclusion != "success" {
			t.Errorf("check runs %+v, want one success on the pull request's head", runs)
		}
	})

	t.Run("merge queue", func(t *testing.T) {
		// The one-file workflow, which holds a token that may comment, on a queue entry that makes
		// encryption about twice as slow: the job fails with perfgate's exit code 1, a failing
		// check run is on the queue's merge commit, and no comment is written (a queue entry has no
		// pull request).
		r := newRunner(t, fix)
		r.gh.SetPull(1, fix.slower)
		g := r.run(workflow(t, blocks, oneFileWorkflow), "merge_group", mergeGroup(fix.folded, fix.slower), 71)
		if g.ok {
			t.Fatalf("the queue's gate passed a slower head:\n%s", tailLines(g.log, 80))
		}
		// act ends a failed step's output with its exit status
		if !strings.Contains(g.log, "] exit status 1\n") || !strings.Contains(g.log, "perfgate: FAIL") {
			t.Errorf("the gate's step did not exit with 1:\n%s", tailLines(g.log, 40))
		}
		if !strings.Contains(g.log, "a merge queue entry has no pull request to comment on") {
			t.Errorf("the log does not say why there is no comment:\n%s", tailLines(g.log, 40))
		}
		if n := r.gh.Writes(); n != 0 || len(r.gh.Comments(1)) != 0 {
			t.Errorf("%d comments written on a queue entry", n)
		}
		runs := r.gh.CheckRuns()
		if len(runs) != 1 || runs[0].HeadSHA != fix.slower || runs[0].Conclusion != "failure" {
			t.Errorf("check runs %+v, want one failure on the queue's head", runs)
		}

		// The fork-safe gate (comment: 'false', so no token) on an entry that makes it faster: the
		// job passes, and nothing is written to GitHub.
		r = newRunner(t, fix)
		g = r.run(gateYAML, "merge_group", mergeGroup(fix.base, fix.folded), 72)
		if !g.ok {
			t.Fatalf("the fork-safe gate failed a faster queue entry:\n%s", tailLines(g.log, 80))
		}
		if n := len(r.gh.Requests()); n != 0 {
			t.Errorf("the fork-safe gate called GitHub: %v", r.gh.Requests())
		}
	})

	t.Run("shards", func(t *testing.T) {
		r := newRunner(t, fix)
		p := pr{number: 4, base: fix.base, head: fix.folded, headRepo: ownRepo}
		g := r.gate(workflow(t, blocks, shardWorkflow), commentYAML, p, 41, "opened")
		if !g.ok {
			t.Fatalf("the sharded gate failed on a faster head:\n%s", tailLines(g.log, 80))
		}
		for _, job := range []string{"shard-1", "shard-4", "merge"} {
			if !strings.Contains(g.log, job) {
				t.Errorf("the sharded run has no job %s", job)
			}
		}
		if body := r.comment(4); !strings.Contains(body, "PASS") {
			t.Errorf("the merged comment does not say PASS:\n%s", body)
		}
	})
}
