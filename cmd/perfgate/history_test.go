package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/record"
)

// historyGit runs git in dir with a configuration of the test's own.
func historyGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, _, err := proc.Run(proc.Command(context.Background(), dir, gittest.TestEnv(t), append([]string{"git"}, args...)...))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// resultsFor writes a results directory for commit as perfgate compare would (head side: commit),
// with the benchmark Encrypt at enc seconds per op and KeySetup flat.
func resultsFor(t *testing.T, dir, commit, subject string, enc float64, started int) {
	t.Helper()
	d := results.Dir(dir)
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	res := &record.Result{Schema: record.Schema, Package: "./cipher/des",
		Base: record.Revision{Commit: strings.Repeat("0", 40)}, Head: record.Revision{Commit: commit, Subject: subject},
		Started: time.Unix(int64(started), 0),
		Benchmarks: []record.Benchmark{
			{Name: "Encrypt/des", Unit: "sec/op", Head: record.Summary{Center: enc, Lo: enc * 0.99, Hi: enc * 1.01, N: 10}},
			{Name: "KeySetup", Unit: "sec/op", Head: record.Summary{Center: 80e-9, N: 10}},
		}}
	if err := d.WriteResult(res); err != nil {
		t.Fatal(err)
	}
	bench := fmt.Sprintf("pkg: example.com/des\nperfgate-commit: %s\nperfgate-side: head\nperfgate-round: 0\n"+
		"perfgate-slot: 1\nBenchmarkEncrypt/des 1000 %g ns/op\n", commit, enc*1e9)
	if err := os.WriteFile(d.Path(results.FileBench), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(t.Context(), args, &o, &e)
	return code, o.String(), e.String()
}

// TestRecordHistory: sixteen commits of main recorded in a clone and pushed; the tenth made Encrypt
// 10% slower. perfgate history in another clone fetches the ref, names the change, its range and
// the bisect command, and writes the page and the Bencher reports; -new reports it only when the
// newest commit revealed it.
func TestRecordHistory(t *testing.T) {
	root := t.TempDir()
	seed := filepath.Join(root, "seed")
	historyGit(t, root, "-c", "init.defaultBranch=main", "init", "-q", seed)
	rng := rand.New(rand.NewPCG(5, 6))
	var shas []string
	for i := range 16 {
		historyGit(t, seed, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("change %d", i))
		shas = append(shas, historyGit(t, seed, "rev-parse", "HEAD"))
	}
	origin := filepath.Join(root, "origin.git")
	historyGit(t, root, "clone", "-q", "--bare", seed, origin)
	a := filepath.Join(root, "a")
	historyGit(t, root, "clone", "-q", origin, a)
	for i, sha := range shas {
		enc := 150e-9 * (1 + 0.01*rng.NormFloat64())
		if i >= 10 {
			enc *= 1.10
		}
		dir := filepath.Join(root, "results", fmt.Sprint(i))
		resultsFor(t, dir, sha, fmt.Sprintf("change %d", i), enc, i)
		args := []string{"record", "-C", a, "-from", dir}
		if i == len(shas)-1 {
			args = append(args, "-push", "origin")
		}
		code, out, errOut := runCmd(t, args...)
		if code != 0 || !strings.Contains(out, "recorded "+sha[:12]+" (bench.txt, result.json)") {
			t.Fatalf("record %d: exit %d\n%s%s", i, code, out, errOut)
		}
	}
	// The record is plain benchfmt on the ref.
	if got := historyGit(t, origin, "show", "refs/perfgate/history:"+shas[3]+"/bench.txt"); !strings.Contains(got,
		"perfgate-commit: "+shas[3]) || !strings.Contains(got, "BenchmarkEncrypt/des") {
		t.Errorf("bench.txt on the ref:\n%s", got)
	}

	b := filepath.Join(root, "b")
	historyGit(t, root, "clone", "-q", origin, b)
	out := filepath.Join(root, "out")
	md := filepath.Join(root, "summary.md")
	code, stdout, stderr := runCmd(t, "history", "-C", b, "-fetch", "origin", "-branch", "origin/main", "-o", out,
		"-markdown", md)
	if code != 0 {
		t.Fatalf("history: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("perfgate history:\n%s", stdout)
	cmd := "perfgate bisect -pkg ./cipher/des -bench '^Encrypt$/^des$' " + shas[8] + " " + shas[11]
	for _, want := range []string{"16 recorded commits on the branch", "./cipher/des Encrypt/des (sec/op)",
		shas[10][:12], "+10.", cmd} {
		if !strings.Contains(stdout, want) {
			t.Errorf("history lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "KeySetup") {
		t.Errorf("a flat benchmark has a change point:\n%s", stdout)
	}
	for _, f := range []string{"history.html", filepath.Join("bencher", shas[0]+".json"),
		filepath.Join("bencher", shas[15]+".json")} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if data, err := os.ReadFile(md); err != nil || !strings.Contains(string(data), cmd) {
		t.Errorf("markdown summary: %v\n%s", err, data)
	}

	// -new: the change became significant with some commit after the tenth; exactly one newest
	// commit reveals it.
	revealed := 0
	for n := 12; n <= 16; n++ {
		code, stdout, stderr := runCmd(t, "history", "-C", b, "-branch", shas[n-1], "-new")
		if code != 0 {
			t.Fatalf("history -new: exit %d\n%s", code, stderr)
		}
		if strings.Contains(stdout, cmd[:strings.LastIndex(cmd, " -bench")]) {
			revealed++
		}
	}
	if revealed != 1 {
		t.Errorf("-new reported the change for %d newest commits, want 1", revealed)
	}

	// Usage errors.
	if code, _, stderr := runCmd(t, "record", "-C", a); code != record.ExitUsage || !strings.Contains(stderr, "-from") {
		t.Errorf("record without -from: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "history", "-alpha", "0.9"); code != record.ExitUsage {
		t.Errorf("history -alpha 0.9: exit %d\n%s", code, stderr)
	}
}

// TestHistoryFromFolder: -from reads a folder of results directories; outside a repository they are
// ordered by the time their runs started.
func TestHistoryFromFolder(t *testing.T) {
	root := t.TempDir()
	for i := range 16 {
		enc := 100e-9
		if i >= 8 {
			enc = 130e-9
		}
		enc *= 1 + 0.001*float64(i%3)
		resultsFor(t, filepath.Join(root, "runs", fmt.Sprintf("r%02d", 15-i)), fmt.Sprintf("abc%037x", i), "", enc, i)
	}
	code, stdout, stderr := runCmd(t, "history", "-C", root, "-from", filepath.Join(root, "runs"))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "ordering them by the time") || !strings.Contains(stdout, fmt.Sprintf("abc%037x", 8)[:12]) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	// In a repository whose branch has none of these commits: ordered by time too, not all
	// orphaned.
	repo := filepath.Join(root, "repo")
	historyGit(t, root, "-c", "init.defaultBranch=main", "init", "-q", repo)
	historyGit(t, repo, "commit", "-q", "--allow-empty", "-m", "unrelated")
	code, stdout, stderr = runCmd(t, "history", "-C", repo, "-from", filepath.Join(root, "runs"))
	if code != 0 || !strings.Contains(stderr, "none of the results") || !strings.Contains(stdout, "16 recorded commits") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
