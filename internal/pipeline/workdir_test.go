package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testmod"
)

// filesTest is the test file of package files: a test and a benchmark that, like the benchmarks of
// real packages (fastcache's SaveToFile), write a file in the current directory and read it back,
// read testdata/x.txt and the module's ../testdata/shared.txt, and fail when an earlier process's
// file is still there. Each appends the directory it runs in to spy, which a sandboxed child cannot
// write.
func filesTest(spy string) string {
	return `package files

import (
	"os"
	"path/filepath"
	"testing"
)

func note() {
	wd, _ := os.Getwd()
	if f, err := os.OpenFile(` + strconv.Quote(spy) + `, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
		f.WriteString(wd + "\n")
		f.Close()
	}
}

func roundTrip(tb testing.TB, name string) {
	want, err := os.ReadFile(filepath.Join("testdata", "x.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.ReadFile(filepath.Join("..", "testdata", "shared.txt")); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name, want, 0o644); err != nil {
		tb.Fatal(err)
	}
	got, err := os.ReadFile(name)
	if err != nil || string(got) != string(want) {
		tb.Fatalf("read back %q, %v", got, err)
	}
}

func TestRoundTrip(t *testing.T) {
	note()
	roundTrip(t, "test.out")
}

// fresh: the first call of BenchmarkSaveLoad in this process has yet to look (later calls, a
// process's warm-up and timed sub-runs, find the file the first one wrote, as go test -count 2
// would)
var fresh = true

func BenchmarkSaveLoad(b *testing.B) {
	note()
	if _, err := os.Stat("bench.out"); err == nil && fresh {
		b.Fatal("bench.out is left from an earlier process")
	}
	fresh = false
	for b.Loop() {
		roundTrip(b, "bench.out")
		Sum([]byte("abc"))
	}
}
`
}

// TestBenchmarkWritesInPackageDir: benchmarks and tests that write files in their package
// directory, as go test lets them, run in a copy of it: the comparison ends with a verdict, not
// ERROR; with the sandbox, nothing outside the children's scratch directories is written; without
// it, the children ran in copies within the scratch directories, never in the exported trees.
func TestBenchmarkWritesInPackageDir(t *testing.T) {
	tmp := t.TempDir()
	// the comparison's work directory, with the exported trees and the scratch directories
	t.Setenv("TMPDIR", tmp)
	spy := filepath.Join(t.TempDir(), "spy")
	files := func(salt string) map[string]string {
		return map[string]string{
			"go.mod":              testmod.GoMod("example.com/wd", "1.24"),
			"testdata/shared.txt": "shared",
			"files/files.go": "package files\n\n// Sum adds b's bytes.\nfunc Sum(b []byte) (s uint32) {\n\tfor _, c := range b {\n" +
				"\t\ts = s*31 + uint32(c) + " + salt + "\n\t}\n\treturn s\n}\n",
			"files/files_test.go":    filesTest(spy),
			"files/testdata/x.txt":   "the test data",
			"files/testdata/keep.md": "kept",
		}
	}
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", files("1"))
	head := repo.Commit("head", files("2"))
	inScratch := regexp.MustCompile("^" + regexp.QuoteMeta(tmp) + "/perfgate-[^/]+/scratch/child-[^/]+/wd/perfgate-[^/]+/files$")

	for _, mode := range []string{"auto", "off"} {
		t.Run(mode, func(t *testing.T) {
			os.Remove(spy)
			cfg := fastConfig(t, repo.Dir, "./files", base, head)
			cfg.Sandbox = mode
			res, err := runE2E(t, cfg)
			wantCompared(t, res, err, "SaveLoad")
			b, _ := os.ReadFile(spy)
			wds := strings.Fields(string(b))
			guarded := res.Sandbox != nil && res.Sandbox.Guarded
			switch {
			case guarded && len(wds) > 0:
				t.Errorf("sandboxed children wrote outside their scratch directories: %q", wds)
			case !guarded && len(wds) < 4: // tests and benchmarks of both sides
				t.Errorf("unsandboxed children noted %d working directories, want at least 4", len(wds))
			}
			for _, wd := range wds {
				if !inScratch.MatchString(wd) {
					t.Errorf("a child ran in %s, not in a copy of the package directory in its scratch directory", wd)
				}
			}
			for _, f := range []string{"test.out", "bench.out"} {
				if _, err := os.Stat(filepath.Join(repo.Dir, "files", f)); err == nil {
					t.Errorf("%s was written into the repository", f)
				}
			}
		})
	}
}
