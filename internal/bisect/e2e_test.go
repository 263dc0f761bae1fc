package bisect

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// The fixture history of the end-to-end test: a tiny module whose Sum becomes 3× slower at
// "slowdown", among commits that leave its code alone, one that does not build and its fix, and a
// refactor to the same machine code.
const (
	mixGood = `package mix

// Sum is the FNV-1a hash of b.
func Sum(b []byte) uint32 {
	var h uint32 = 2166136261
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}
`
	mixBroken = `package mix

// Sum is the FNV-1a hash of b.
func Sum(b []byte) uint32 {
	return h
}
`
	mixSlow = `package mix

// Sum is the FNV-1a hash of b, three times over.
func Sum(b []byte) uint32 {
	var h uint32 = 2166136261
	for pass := 0; pass < 3; pass++ {
		for _, c := range b {
			h = (h ^ uint32(c)) * 16777619
		}
	}
	return h
}
`
	mixRefactored = `package mix

// Sum is the FNV-1a hash of data, three times over.
func Sum(data []byte) uint32 {
	var sum uint32 = 2166136261
	for pass := 0; pass < 3; pass++ {
		for _, x := range data {
			sum = (sum ^ uint32(x)) * 16777619
		}
	}
	return sum
}
`
	mixTest = `package mix

import "testing"

func TestSum(t *testing.T) {
	if Sum([]byte("a")) == Sum([]byte("b")) {
		t.Fatal("Sum(a) == Sum(b)")
	}
}

var sink uint32

func BenchmarkSum(b *testing.B) {
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		sink += Sum(buf)
	}
}
`
)

// fixtureRepo writes the history into a new repository and returns its directory and the SHAs by
// subject.
func fixtureRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	env := gittest.Environ(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git("-c", "init.defaultBranch=main", "init", "-q")
	shas := map[string]string{}
	for _, c := range []struct {
		subject string
		files   map[string]string
	}{
		{"good", map[string]string{"go.mod": "module example.com/mix\n\ngo 1.21\n", "mix.go": mixGood,
			"mix_test.go": mixTest}},
		{"doc", map[string]string{"README.md": "# mix\n\nA checksum.\n"}},
		{"broken", map[string]string{"mix.go": mixBroken}},
		{"fix", map[string]string{"mix.go": mixGood}},
		{"slowdown", map[string]string{"mix.go": mixSlow}},
		{"refactor", map[string]string{"mix.go": mixRefactored}},
	} {
		for name, content := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", c.subject)
		shas[c.subject] = git("rev-parse", "HEAD")
	}
	return dir, shas
}

// TestBisectEndToEnd runs the real pipeline at every step of a bisection of the fixture history: it
// must skip the commit that does not build, name the slowdown, and confirm it against its parent.
func TestBisectEndToEnd(t *testing.T) {
	testenv.Long(t) // several whole comparisons
	dir, shas := fixtureRepo(t)
	path, err := FirstParentPath(dir, "main~5", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(path) != 6 || path[0].SHA != shas["good"] || path[5].SHA != shas["refactor"] {
		t.Fatalf("path %v; want good … refactor, 6 commits", path)
	}

	cfg := config.Default()
	cfg.Dir, cfg.Package = dir, "."
	// Wall time only (no valgrind needed), about a second of timing a step.
	cfg.Metric = record.MetricTime
	cfg.Rounds, cfg.BenchTime, cfg.Budget = 5, config.For(5*time.Millisecond), 0
	cfg.Timeout = time.Minute
	out := filepath.Join(t.TempDir(), "bisect")
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := Search(ctx, Config{
		Path: path, Oracle: &PipelineOracle{Config: cfg, Check: CheckTime, Out: out},
		Check: CheckTime, Threshold: cfg.Threshold, Out: out, Log: &log,
	})
	t.Logf("%d comparisons in %s", rep.Comparisons, time.Since(start).Round(time.Millisecond))
	var text bytes.Buffer
	if rep != nil {
		WriteText(&text, rep)
	}
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("progress:\n%s\nreport:\n%s", log.String(), text.String())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusCulprit || rep.Culprit.SHA != shas["slowdown"] {
		t.Fatalf("status %s, culprit %+v; want the slowdown %s", rep.Status, rep.Culprit, shas["slowdown"])
	}
	if !rep.Culprit.Confirmed || rep.Culprit.Parent.SHA != shas["fix"] {
		t.Errorf("culprit not confirmed against its parent, the fix: %+v", rep.Culprit)
	}
	// 3× the work is about +200%; on a loaded machine 5 rounds can give a wide interval, so only
	// its side is checked.
	if c := rep.Culprit.ParentChange; c == nil || c.Class != string(record.ClassSlower) || c.Lo <= 0 {
		t.Errorf("change against the parent %v; want slower, its interval above 0", c)
	}
	skipped, reruns := 0, 0
	for _, s := range rep.Steps {
		if s.Try > 1 {
			reruns++
		}
		if s.Head.SHA == shas["broken"] && s.Outcome != NoBuild {
			t.Errorf("step %d: the broken commit is %s, want %s", s.N, s.Outcome, NoBuild)
		}
		if s.Outcome == NoBuild {
			skipped++
		}
		if _, err := results.Dir(s.Dir).ReadResult(1 << 24); err != nil {
			t.Errorf("step %d: no result in its results directory: %v", s.N, err)
		}
	}
	if bound := 3 + 2 + skipped + reruns; rep.Comparisons > bound {
		t.Errorf("%d comparisons; want at most ⌈log₂ 5⌉ + 2 + %d skipped + %d re-runs = %d", rep.Comparisons, skipped,
			reruns, bound)
	}
	saved, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Culprit == nil || saved.Culprit.SHA != shas["slowdown"] || len(saved.Steps) != rep.Comparisons {
		t.Errorf("bisect.json: culprit %v with %d steps; want the slowdown and %d steps", saved.Culprit,
			len(saved.Steps), rep.Comparisons)
	}
	if first, _, _ := strings.Cut(text.String(), "\n"); !strings.HasPrefix(first, "culprit "+shas["slowdown"]+` "slowdown"`) {
		t.Errorf("first line of the report %q; want the culprit", first)
	}
}
