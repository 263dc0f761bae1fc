package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// A pull request that loosens the gate in its own .perfgate.yml. The attack's pull request is the
// fixture's broken commit (internal/demo: one wrong SP-table entry, so the differential check fails
// whatever the machine's load) with a .perfgate.yml that turns the differential off and makes alpha
// and the thresholds pass anything. The verdicts asserted here never depend on timing: the
// differential and the configuration decide them.

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

// perfgate compare's -policy-from and perfgate comment's second look at the policy, on the attack
// above.

// TestComparePolicyFrom: locally, compare reads the working tree's file unless told -policy-from
// base: with head's, the differential check is off and alpha is 0.2; with base's, the check runs
// and fails the gate.
//
// Before -policy-from existed: -policy-from is an unknown flag (exit 2).
func TestComparePolicyFrom(t *testing.T) {
	testenv.Long(t) // runs two comparisons
	repo := materialize(t)
	if err := os.WriteFile(filepath.Join(repo.Dir, config.FileName), []byte(loosened), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from string
		diff record.DiffStatus
	}{{"head", record.DiffSkipped}, {"base", record.DiffMismatch}} {
		t.Run(tc.from, func(t *testing.T) {
			out := t.TempDir()
			inv := invoke(t, "compare", "-C", repo.Dir, "-pkg", demo.Package, "-rounds", "2", "-benchtime", "20ms",
				"-budget", "0", "-metric", "time", "-bench", "^Encrypt$/^des$", "-constant-time", "off",
				"-policy-from", tc.from, "-o", out,
				"folded", "broken")
			res := resultOf(t, out)
			if res.Differential.Status != tc.diff || res.Policy.From != record.Side(tc.from) {
				t.Errorf("differential %s with policy from %q, want %s from %s", res.Differential.Status, res.Policy.From, tc.diff, tc.from)
			}
			if tc.from == "base" && (inv.code != record.ExitFail || !strings.Contains(inv.stdout, "policy: this pull request changes the gate")) {
				t.Errorf("exit %d, want 1 and the policy change in the text report", inv.code)
			}
			wantAlpha := map[string]float64{"head": 0.2, "base": 0.05}[tc.from]
			if res.Method.Alpha != wantAlpha {
				t.Errorf("alpha %v, want %v", res.Method.Alpha, wantAlpha)
			}
		})
	}
}

// TestCommentRechecksPolicy: perfgate comment decides the artifact again under the default branch's
// configuration (the workflow_run job's checkout; here none, so the defaults): an artifact that
// passed a 30% slowdown under head's thresholds '.*': 99 and alpha 0.2 is posted as a failure, with
// notes that say why.
func TestCommentRechecksPolicy(t *testing.T) {
	gh := newFakeGitHub(t)
	const pr = 43
	head, info := commentEnv(t, gh, pr)
	res := &record.Result{
		Schema: record.Schema, Package: "./minides",
		Base:    record.Revision{Ref: "main", Commit: strings.Repeat("a", 40)},
		Head:    record.Revision{Ref: "pr", Commit: head},
		Verdict: record.Verdict{Status: record.StatusPass, Reasons: []string{}, Acknowledged: []string{"Encrypt/des: +30.0% is within its threshold 99% (.*)"}},
		Benchmarks: []record.Benchmark{{Name: "Encrypt/des", Unit: "sec/op", Class: record.ClassSlower, DeltaPct: 30,
			Paired: &record.Paired{Ratio: 1.3, Lo: 1.25, Hi: 1.35}, Acknowledged: true}},
		Differential: record.Differential{Status: record.DiffIdentical},
		Method:       record.Method{Rounds: 5, Threshold: 2, Alpha: 0.2},
	}
	res.Policy.From = "head"
	inv := invoke(t, "comment", writeArtifact(t, res, info))
	if inv.code != 0 {
		t.Fatalf("exit %d, want 0", inv.code)
	}
	ours := mine(gh.Comments(pr))
	if len(ours) != 1 {
		t.Fatalf("%d perfgate comments, want 1", len(ours))
	}
	body := ours[0].Body
	for _, want := range []string{
		"Encrypt/des is slower (+30.0%)",
		"policy-from head",
		"classified with alpha 0.2 and threshold 2%; the default branch's configuration says alpha 0.05",
		"the benchmark job's verdict was pass (exit 0); under the default branch's gate policy it is fail (exit 1)",
	} {
		if !strings.Contains(body, text.Markdown(want)) {
			t.Errorf("the comment does not say %q:\n%s", want, tail(body, 20))
		}
	}
	if strings.Contains(body, "Acknowledged:") {
		t.Errorf("the comment still acknowledges head's threshold:\n%s", tail(body, 20))
	}
}
