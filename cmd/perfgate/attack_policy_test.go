package main

// A pull request that loosens the gate in its own .perfgate.yml. The attack's pull request is the
// fixture's broken commit (internal/demo: one wrong SP-table entry, so the differential check fails
// whatever the machine's load) with a .perfgate.yml that turns the differential off and makes alpha
// and the thresholds pass anything. The verdicts asserted here never depend on timing: the
// differential and the configuration decide them.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/data/config"
	"github.com/perfgate/perfgate/internal/data/mdreport"
	"github.com/perfgate/perfgate/internal/data/report"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// loosened is what the attacking pull request adds: no differential check, and a significance level
// and a threshold that pass any slowdown.
const loosened = "differential: false\nalpha: 0.2\nthresholds:\n  '.*': 99\n"

// TestActionBasePolicy: in the Action the gate policy is base's (here: base has no .perfgate.yml,
// so the defaults), so the differential check still runs and fails the broken pull request, head's
// alpha is not used, and the comment names every change it attempted.
//
// Before the policy came from base (main at b42a647) the gate passed: the workspace's
// .perfgate.yml, which the pull request controls, turned the differential check off. This file uses
// only main's API, so that copying it into a checkout of main shows the attack: go test
// ./cmd/perfgate -run TestActionBasePolicy fails there.
func TestActionBasePolicy(t *testing.T) {
	testenv.Long(t) // runs a comparison
	repo := materialize(t)
	gh := newFakeGitHub(t)
	const pr = 12
	base, head := repo.Commits["folded"], repo.Commits["broken"]
	gh.SetPull(pr, head)
	// The workspace is the pull request's checkout: its .perfgate.yml is head's.
	if err := os.WriteFile(filepath.Join(repo.Dir, config.FileName), []byte(loosened), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, pr, base, head)
	setFixtureInputs(t)
	t.Setenv("INPUT_BENCH", "^Encrypt$/^des$")

	inv := invoke(t, "action")
	res, md := checkRun(t, inv, dir, repo.Dir, pr, head)
	if res.Verdict.Status != record.StatusFail || res.Differential.Status != record.DiffMismatch ||
		!strings.Contains(strings.Join(res.Verdict.Reasons, "\n"), "differential check") {
		t.Errorf("verdict %s %q, differential %s: want the differential check to fail the gate",
			res.Verdict.Status, res.Verdict.Reasons, res.Differential.Status)
	}
	if res.Method.Alpha != 0.05 || len(res.Verdict.Acknowledged) != 0 {
		t.Errorf("alpha %v, acknowledged %q: head's values were used", res.Method.Alpha, res.Verdict.Acknowledged)
	}
	ours := mine(gh.Comments(pr))
	if len(ours) != 1 || ours[0].Body != md {
		t.Fatalf("%d perfgate comments; want one holding report.md", len(ours))
	}
	for _, want := range []string{
		"this pull request changes the gate: alpha 0.05 → 0.2; differential true → false; thresholds .\\* (not set) → 99%.",
		"the change applies after merge",
	} {
		if !strings.Contains(ours[0].Body, want) {
			t.Errorf("the comment does not say %q:\n%s", want, tail(ours[0].Body, 30))
		}
	}

	// perfgate comment re-renders result.json: the attempted change is still named.
	if again := mdreport.Markdown(res, report.Options{}); !strings.Contains(again, "this pull request changes the gate") {
		t.Errorf("a re-rendered result.json lost the policy change")
	}
}
