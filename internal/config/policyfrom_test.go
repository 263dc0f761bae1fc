package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// baseCommit stands for base's commit: config reads no repository, the command gives it base's file
// and commit (cmd/perfgate's takePolicy, whose reading of git TestComparePolicyFrom runs).
const baseCommit = "0123456789abcdef0123456789abcdef01234567"

// policyRepo writes headFile into a temporary directory as .perfgate.yml, as a pull request's
// checkout has it, and returns the directory and base's file (nil for "": base has none).
func policyRepo(t *testing.T, baseFile, headFile string) (dir string, base []byte) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(headFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if baseFile != "" {
		base = []byte(baseFile)
	}
	return dir, base
}

// hostile is a pull request's .perfgate.yml that loosens every part of the gate it can.
const hostile = `alpha: 0.2
thresholds:
  '.*': 99
  Encrypt: 5
rounds: 2
differential: false
acknowledge-label: wip
rounds-typo-is-not-here: 1
`

// resolvePolicy resolves cfg the way the commands do: head's file, the settings, then base's file
// base where policy-from says so (BasePolicy, PolicyFromFile).
func resolvePolicy(t *testing.T, dir string, base []byte, from string, settings ...Setting) (Config, error) {
	t.Helper()
	c := Default()
	c.Dir, c.Base, c.PolicyFrom = dir, "HEAD", from
	path := filepath.Join(dir, FileName)
	if err := c.Resolve(path, settings); err != nil {
		t.Fatal(err)
	}
	if fromBase, err := c.BasePolicy(); err != nil || !fromBase {
		return c, err
	}
	return c, c.PolicyFromFile(base, FileName+" at base "+baseCommit[:7], baseCommit, settings)
}

func TestPolicyFromFile(t *testing.T) {
	base := "alpha: 0.01\nthresholds:\n  Encrypt: 5\n  KeySetup: 20\nmax-size-growth: 4096\nkeys: 64\n"
	head := strings.Replace(hostile, "rounds-typo-is-not-here: 1\n", "keys: 64\npin-cpu: 0\n", 1)
	dir, baseFile := policyRepo(t, base, head)

	threshold := Setting{Key: FlagKey("threshold"), Text: "3", Source: "flag"}
	c, err := resolvePolicy(t, dir, baseFile, PolicyFromBase, threshold)
	if err != nil {
		t.Fatal(err)
	}
	// Base's policy, the flag on top; head's non-policy key (cpu) stays.
	if c.Alpha != 0.01 || c.Rounds != 5 || !c.Differential || c.AcknowledgeLabel != "perf-regression-ok" ||
		c.MaxSizeGrowth != 4096 || c.Keys != 64 || c.Threshold != 3 || c.CPU != 0 {
		t.Errorf("config after PolicyFromFile: alpha %v rounds %d differential %v label %q max-size-growth %d keys %d threshold %v cpu %d",
			c.Alpha, c.Rounds, c.Differential, c.AcknowledgeLabel, c.MaxSizeGrowth, c.Keys, c.Threshold, c.CPU)
	}
	if diff := cmp.Diff(map[string]float64{"Encrypt": 5, "KeySetup": 20}, c.Thresholds); diff != "" {
		t.Errorf("thresholds are not base's (-want +got):\n%s", diff)
	}
	want := record.PolicyOrigin{From: record.Base, BaseCommit: baseCommit, Changes: []record.PolicyChange{
		{Key: "rounds", Base: "5", Head: "2"},
		{Key: "alpha", Base: "0.01", Head: "0.2"},
		{Key: "differential", Base: "true", Head: "false"},
		{Key: "thresholds", Item: ".*", Head: "99%"},
		{Key: "thresholds", Item: "KeySetup", Base: "20%"},
		{Key: "max-size-growth", Base: "4096", Head: "0"},
		{Key: "acknowledge-label", Base: "perf-regression-ok", Head: "wip"},
	}}
	if diff := cmp.Diff(want, c.PolicyOrigin); diff != "" {
		t.Errorf("PolicyOrigin (-want +got):\n%s", diff)
	}
	if got := c.Policy(); got.AcknowledgeLabel != "perf-regression-ok" || got.Thresholds[".*"] != 0 {
		t.Errorf("the gate's Policy is not base's: %+v", got)
	}

	// The attack the policy is for: Encrypt/des 30% slower. Head's '.*': 99 would let it pass;
	// base's Encrypt: 5 does not.
	slower := record.Result{Benchmarks: []record.Benchmark{{Name: "Encrypt/des", Unit: record.UnitTime, Class: record.ClassSlower, DeltaPct: 30,
		Paired: &record.Paired{Ratio: 1.3, Lo: 1.25, Hi: 1.35}}}}
	if v := gate.Decide(slower, c.Policy()); v.Status != record.StatusFail {
		t.Errorf("under base's policy: verdict %+v, want fail", v)
	}
	h, err := resolvePolicy(t, dir, baseFile, PolicyFromHead)
	if err != nil {
		t.Fatal(err)
	}
	if v := gate.Decide(slower, h.Policy()); v.Status != record.StatusPass || len(v.Acknowledged) != 1 {
		t.Errorf("under head's policy: verdict %+v, want a pass that acknowledges Encrypt/des", v)
	}
}

func TestPolicyFromHead(t *testing.T) {
	dir, base := policyRepo(t, "alpha: 0.01\n", strings.Replace(hostile, "rounds-typo-is-not-here: 1\n", "", 1))
	for _, from := range []string{"", PolicyFromHead} {
		c, err := resolvePolicy(t, dir, base, from)
		if err != nil {
			t.Fatal(err)
		}
		if c.Alpha != 0.2 || c.Thresholds[".*"] != 99 || c.Rounds != 2 || c.PolicyOrigin.From != record.Head ||
			c.PolicyOrigin.Changes != nil {
			t.Errorf("policy-from %q: alpha %v, thresholds %v, rounds %d, origin %+v; want head's file", from,
				c.Alpha, c.Thresholds, c.Rounds, c.PolicyOrigin)
		}
	}
}

// TestPolicyFromFileWithout: a base without a configuration file means the defaults, and
// everything head's file sets is a change.
func TestPolicyFromFileWithout(t *testing.T) {
	dir, base := policyRepo(t, "", "alpha: 0.2\nthresholds: {'.*': 99}\n")
	c, err := resolvePolicy(t, dir, base, PolicyFromBase)
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if c.Alpha != def.Alpha || len(c.Thresholds) != 0 {
		t.Errorf("alpha %v, thresholds %v: want the defaults", c.Alpha, c.Thresholds)
	}
	want := []record.PolicyChange{{Key: "alpha", Base: "0.05", Head: "0.2"}, {Key: "thresholds", Item: ".*", Head: "99%"}}
	if diff := cmp.Diff(want, c.PolicyOrigin.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

// TestPolicyFromFileBounds: base's file is checked like any other, and its errors say it is base's.
func TestPolicyFromFileBounds(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"alpha: 0.5\n", `.perfgate.yml at base `},
		{"alpha: 0.5\n", `alpha: invalid value "0.5": want a probability from 0.001 to 0.2`},
		{"thresholds: {Encrypt: 250}\n", "want a mapping of benchmark-name regular expressions to percentages above 0 and below 100"},
		{"no-such-key: 1\n", "no-such-key"},
	} {
		dir, base := policyRepo(t, tc.file, "")
		_, err := resolvePolicy(t, dir, base, PolicyFromBase)
		if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != record.ExitUsage {
			t.Errorf("base file %q: error %v (exit %d), want one containing %q (exit 2)", tc.file, err, ExitCode(err), tc.want)
		}
	}
}
