package main

// perfgate compare's -policy-from, on the attack of attack_policy_test.go.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/record"
)

// TestComparePolicyFrom: locally, compare reads the working tree's file unless told -policy-from base: with
// head's, the differential check is off and alpha is 0.2; with base's, the check runs and fails the gate.
//
// Before issue 12 part 2: -policy-from is an unknown flag (exit 2).
func TestComparePolicyFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two comparisons")
	}
	repo := materialize(t)
	if err := os.WriteFile(filepath.Join(repo.Dir, perfgate.ConfigFile), []byte(loosened), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from string
		diff perfgate.DiffStatus
	}{{"head", perfgate.DiffSkipped}, {"base", perfgate.DiffMismatch}} {
		t.Run(tc.from, func(t *testing.T) {
			out := t.TempDir()
			inv := invoke(t, "compare", "-C", repo.Dir, "-pkg", demo.Package, "-rounds", "2", "-benchtime", "20ms",
				"-bench", "^Encrypt/des$", "-policy-from", tc.from, "-o", out, "folded", "broken")
			res := resultOf(t, out)
			if res.Differential.Status != tc.diff || res.Policy.From != record.Side(tc.from) {
				t.Errorf("differential %s with policy from %q, want %s from %s", res.Differential.Status, res.Policy.From, tc.diff, tc.from)
			}
			if tc.from == "base" && (inv.code != perfgate.ExitFail || !strings.Contains(inv.stdout, "policy: this pull request changes the gate")) {
				t.Errorf("exit %d, want 1 and the policy change in the text report", inv.code)
			}
			wantAlpha := map[string]float64{"head": 0.2, "base": 0.05}[tc.from]
			if res.Method.Alpha != wantAlpha {
				t.Errorf("alpha %v, want %v", res.Method.Alpha, wantAlpha)
			}
		})
	}
}
