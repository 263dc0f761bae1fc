package main

// perfgate compare's -policy-from and perfgate comment's second look at the policy, on the attack
// of attack_policy_test.go.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/data/config"
	"github.com/perfgate/perfgate/internal/leaf/demo"
	"github.com/perfgate/perfgate/internal/leaf/text"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

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
