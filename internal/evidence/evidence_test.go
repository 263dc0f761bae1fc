package evidence

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestWrite: the files each option asks for, and no others; report.md as the options render it.
func TestWrite(t *testing.T) {
	res := reportfixture.Pass()
	res.Differential.Status = record.DiffIdentical

	bare := results.Dir(t.TempDir())
	if err := Write(bare, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, string(bare)), []string{results.FileEnv, results.FileResult}; !slices.Equal(got, want) {
		t.Errorf("no options: files %q, want %q", got, want)
	}

	hint := report.Options{ArtifactHint: "the job's perfgate-results artifact"}
	full := results.Dir(t.TempDir())
	if err := Write(full, res, Options{Markdown: true, MarkdownOptions: hint, HTML: true, Checks: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{results.FileDifferential, results.FileEnv, results.FileReportHTML, results.FileReport,
		results.FileResult}
	if got := names(t, string(full)); !slices.Equal(got, want) {
		t.Errorf("every option: files %q, want %q", got, want)
	}
	md, err := os.ReadFile(full.Path(results.FileReport))
	if err != nil || string(md) != mdreport.Markdown(res, hint) {
		t.Errorf("report.md is not the Markdown its options render (%v)", err)
	}
	back, err := full.ReadResult(0)
	if err != nil || back.Verdict.Status != res.Verdict.Status {
		t.Errorf("result.json: %v, %v", back, err)
	}

	// A merge: the shards' bench.txt concatenated, each shard's files under shards/N/.
	var shards []results.Dir
	for _, line := range []string{"BenchmarkA 1 2 ns/op\n", "BenchmarkB 1 3 ns/op\n"} {
		d := results.Dir(t.TempDir())
		if err := os.WriteFile(d.Path(results.FileBench), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := results.Dir(filepath.Join(t.TempDir(), "merged"))
	if err := Write(merged, res, Options{Shards: shards}); err != nil {
		t.Fatal(err)
	}
	bench, err := os.ReadFile(merged.Path(results.FileBench))
	if err != nil || string(bench) != "BenchmarkA 1 2 ns/op\nBenchmarkB 1 3 ns/op\n" {
		t.Errorf("merged bench.txt %q, %v", bench, err)
	}
	if got := strings.Join(names(t, string(merged)), " "); !strings.Contains(got, "shards/2/bench.txt") {
		t.Errorf("merged files %s, want shards/2/bench.txt among them", got)
	}
}
