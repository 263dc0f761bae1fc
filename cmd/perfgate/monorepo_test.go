package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestActionMonorepo: the Action's package input is a directory relative to the workspace (the
// repository root), in any module of the repository: here crypto/xtea of a module whose go.mod is
// in crypto/, with nothing at the root but a README. The step runs with comment: false, so GitHub
// is never called.
func TestActionMonorepo(t *testing.T) {
	testenv.Long(t) // runs a whole comparison
	mix := func(salt string) string {
		return "package xtea\n\n// Mix scrambles x.\nfunc Mix(x uint32) uint32 { return (x ^ " + salt + ") * 2654435761 }\n"
	}
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", map[string]string{
		"README.md":           "monorepo\n",
		"crypto/go.mod":       testmod.GoMod("example.com/crypto", "1.17"),
		"crypto/xtea/xtea.go": mix("1"),
		"crypto/xtea/xtea_test.go": "package xtea\n\nimport \"testing\"\n\nvar sink uint32\n\n" +
			"func BenchmarkMix(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Mix(uint32(i))\n\t}\n}\n",
	})
	head := repo.Commit("head", map[string]string{"crypto/xtea/xtea.go": mix("2")})

	gh := newFakeGitHub(t)
	dir := ghEnv(t, gh, repo.Dir)
	writeEvent(t, dir, 3, base, head)
	for k, v := range map[string]string{"INPUT_PACKAGE": "./crypto/xtea", "INPUT_ROUNDS": "2", "INPUT_BENCHTIME": "1ms", "INPUT_COMMENT": "false"} {
		t.Setenv(k, v)
	}
	inv := invoke(t, "action")
	res := resultOf(t, filepath.Join(repo.Dir, "perfgate-results"))
	// Slower or not is a timing, which no test decides on: only "could not run" and usage errors
	// fail here.
	if inv.code != res.Verdict.ExitCode || inv.code == record.ExitUsage || inv.code == record.ExitCannotRun {
		t.Fatalf("exit %d, verdict %s %v; want a comparison that ran", inv.code, res.Verdict.Status, res.Verdict.Reasons)
	}
	if res.Package != "./crypto/xtea" || res.ImportPath != "example.com/crypto/xtea" || res.Base.Commit != base || res.Head.Commit != head {
		t.Errorf("package %q (%s), base %s, head %s; want ./crypto/xtea (example.com/crypto/xtea), %s, %s",
			res.Package, res.ImportPath, res.Base.Commit, res.Head.Commit, base, head)
	}
	if len(res.Benchmarks) == 0 || res.Benchmarks[0].Name != "Mix" {
		t.Errorf("benchmarks %+v, want Mix", res.Benchmarks)
	}
	if !strings.Contains(inv.stderr, "package ./xtea in the module at crypto/") {
		t.Errorf("stderr does not say which module the package is in")
	}
	if len(gh.Requests()) != 0 {
		t.Errorf("GitHub was called: %v", gh.Requests())
	}
}
