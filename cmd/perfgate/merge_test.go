package main

// Tests of `perfgate merge`: shards of one comparison become one results directory that perfgate
// comment posts.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
)

// shardResult is shard i of 2 of a comparison of ./a and ./b measured at head: shard 1 ran ./a's
// checks and its benchmark, shard 2 ./b's. ./b's benchmark is slower.
func shardResult(head string, i int) *record.Result {
	pkg, class, ratio := "./a", record.ClassUnchanged, 1.001
	if i == 2 {
		pkg, class, ratio = "./b", record.ClassSlower, 1.5
	}
	return &record.Result{
		Schema: record.Schema, Package: "./...", Packages: []string{"./a", "./b"},
		Shard: &record.Shard{Index: i, Count: 2, Units: []string{pkg, pkg + " BenchmarkX"}, Plan: "p", Config: "c",
			Perfgate: "v1", Policy: `{"Differential":true}`},
		Base:       record.Revision{Ref: "main", Commit: strings.Repeat("a", 40)},
		Head:       record.Revision{Ref: "pr", Commit: head},
		Functional: record.Functional{Base: record.TestRun{Ran: true, Passed: true}, Head: record.TestRun{Ran: true, Passed: true}},
		Differential: record.Differential{Status: record.DiffIdentical, Ciphers: []record.Cipher{
			{Name: "NewCipher", Package: pkg, KeySizes: []int{8}, Keys: 1, Blocks: 1}}},
		Sizes:  record.Sizes{Sections: []record.SectionSize{{Name: ".text", Package: pkg, Base: 100, Head: 120}}},
		Method: record.Method{Rounds: 5, Threshold: 2, Alpha: 0.05},
		Benchmarks: []record.Benchmark{{
			Name: "X", Package: pkg, Unit: "sec/op", Class: class, Tested: true, PHolm: 0.0001,
			Base:   record.Summary{Center: 1e-6, N: 10},
			Head:   record.Summary{Center: ratio * 1e-6, N: 10},
			Paired: &record.Paired{Ratio: ratio, Lo: ratio - 0.01, Hi: ratio + 0.01, P: 0.0001, Rounds: 5},
		}},
	}
}

// TestMergeThenComment: two shards merge into one failing verdict naming the package of the slower
// benchmark; perfgate comment posts the merged directory and refuses a shard's own. A shard of
// another head is refused with exit code 2 and no results directory.
func TestMergeThenComment(t *testing.T) {
	gh := newFakeGitHub(t)
	const pr = 16
	head, info := commentEnv(t, gh, pr)
	dirs := []string{writeArtifact(t, shardResult(head, 1), info), writeArtifact(t, shardResult(head, 2), info)}
	out := filepath.Join(t.TempDir(), "merged")

	inv := invoke(t, "merge", "-o", out, "-format", "markdown", dirs[0], dirs[1])
	if inv.code != record.ExitFail {
		t.Fatalf("merge: exit %d, want %d (./b's X is slower)", inv.code, record.ExitFail)
	}
	if !strings.Contains(inv.stdout, "X (./b) is slower") || !strings.Contains(inv.stdout, "2 packages: ./a, ./b") {
		t.Errorf("merged report does not name the slower benchmark with its package:\n%s", inv.stdout)
	}
	res, err := results.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Shard != nil || len(res.Benchmarks) != 2 || len(res.Differential.Ciphers) != 2 || len(res.Sizes.Sections) != 2 {
		t.Errorf("merged result: shard %v, %d benchmarks, %d ciphers, %d size rows; want none, 2, 2, 2",
			res.Shard, len(res.Benchmarks), len(res.Differential.Ciphers), len(res.Sizes.Sections))
	}
	if _, err := os.Stat(filepath.Join(out, "shards", "2", "result.json")); err != nil {
		t.Errorf("the merged directory does not keep shard 2's files: %v", err)
	}

	writeJSONFile(t, filepath.Join(out, prInfoFile), info)
	if inv := invoke(t, "comment", out); inv.code != 0 {
		t.Fatalf("comment on the merged directory: exit %d", inv.code)
	}
	ours := mine(gh.Comments(pr))
	if len(ours) != 1 || !strings.Contains(ours[0].Body, "X (./b)") {
		t.Fatalf("comments %v: want one naming X (./b)", ours)
	}
	if inv := invoke(t, "comment", dirs[1]); inv.code != record.ExitUsage || !strings.Contains(inv.stderr, "partial result") {
		t.Errorf("comment on a shard: exit %d, want %d and a word on partial results", inv.code, record.ExitUsage)
	}

	other := shardResult(strings.Repeat("d", 40), 2)
	refusedOut := filepath.Join(t.TempDir(), "refused")
	inv = invoke(t, "merge", "-o", refusedOut, dirs[0], writeArtifact(t, other, info))
	if inv.code != record.ExitUsage || !strings.Contains(inv.stderr, "head commit") {
		t.Errorf("merge of another head's shard: exit %d, want %d naming the head commit", inv.code, record.ExitUsage)
	}
	if _, err := os.Stat(refusedOut); err == nil {
		t.Error("a refused merge wrote a results directory")
	}
}
