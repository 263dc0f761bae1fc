package demo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// needGit skips a test when the git CLI, used to verify what go-git wrote, is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// gitOut runs git in dir and returns its trimmed stdout.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, nil, args...)
}

// materialize builds the fixture in a fresh temp dir.
func materialize(t *testing.T) *Repo {
	t.Helper()
	repo, err := Materialize(filepath.Join(t.TempDir(), "minides"))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestNames(t *testing.T) {
	names := Names()
	if len(names) < 2 || names[0] != "base" {
		t.Fatalf("Names() = %v, want base first", names)
	}
	for _, want := range []string{"base", "folded"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, missing %s", names, want)
		}
	}
	// Every parent precedes its children.
	commits, err := history()
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	for _, c := range commits {
		if c.parent != "" && pos[c.parent] >= pos[c.name] {
			t.Errorf("%s (position %d) comes before its parent %s (position %d)", c.name, pos[c.name], c.parent, pos[c.parent])
		}
	}
}

func TestMaterialize(t *testing.T) {
	needGit(t)
	repo := materialize(t)
	dir := repo.Dir

	if len(repo.Commits) != len(Names()) {
		t.Errorf("Commits has %d entries, Names() %d", len(repo.Commits), len(Names()))
	}
	for _, name := range Names() {
		sha := repo.Commits[name]
		if !gitsrc.IsFullSHA(sha) {
			t.Errorf("Commits[%q] = %q, want 40 hex digits", name, sha)
			continue
		}
		if got := gitOut(t, dir, "rev-parse", "refs/heads/"+name); got != sha {
			t.Errorf("branch %s = %s, want %s", name, got, sha)
		}
	}

	if got, want := gitOut(t, dir, "log", "--format=%H", "main"), repo.Commits["folded"]+"\n"+repo.Commits["base"]; got != want {
		t.Errorf("git log main =\n%s\nwant\n%s", got, want)
	}
	if got := gitOut(t, dir, "log", "-1", "--format=%s", "main"); got != "minides: fold the P permutation into the S-boxes" {
		t.Errorf("main subject = %q", got)
	}
	if got := gitOut(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("HEAD = %s, want refs/heads/main", got)
	}
	if got := gitOut(t, dir, "config", "init.defaultBranch"); got != "main" {
		t.Errorf("init.defaultBranch = %q, want main", got)
	}
	if got := gitOut(t, dir, "status", "--porcelain"); got != "" {
		t.Errorf("git status --porcelain = %q, want clean", got)
	}
	if got := gitOut(t, dir, "cat-file", "-t", "v0.1.0"); got != "tag" {
		t.Errorf("v0.1.0 is a %s, want an annotated tag", got)
	}
	if got := gitOut(t, dir, "rev-parse", "v0.1.0^{commit}"); got != repo.Commits["base"] {
		t.Errorf("v0.1.0 points at %s, want base %s", got, repo.Commits["base"])
	}
	if got := gitOut(t, dir, "fsck", "--strict", "--no-dangling"); got != "" {
		t.Errorf("git fsck: %s", got)
	}

	// The work tree holds folded: the SP tables are there, the module file too.
	for _, f := range []string{"go.mod", "minides/cipher.go", "minides/sptables.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("work tree: %v", err)
		}
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(gomod, []byte("module "+Module+"\n")) {
		t.Errorf("go.mod starts %q, want module %s", gomod, Module)
	}
	if ImportPath != Module+"/"+strings.TrimPrefix(Package, "./") {
		t.Errorf("ImportPath %s != Module %s + Package %s", ImportPath, Module, Package)
	}
}

func TestMaterializeDeterministic(t *testing.T) {
	a, b := materialize(t), materialize(t)
	if !mapsEqual(a.Commits, b.Commits) {
		t.Errorf("two runs differ:\n%v\n%v", a.Commits, b.Commits)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestMaterializeNotEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Materialize(dir)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("Materialize(non-empty dir) error = %v, want not empty", err)
	}
	// An existing empty directory is fine.
	if _, err := Materialize(t.TempDir()); err != nil {
		t.Fatalf("Materialize(empty dir): %v", err)
	}
}

// TestEveryCommitChangesTree guards against empty commits: each commit's
// tree differs from its parent's.
func TestEveryCommitChangesTree(t *testing.T) {
	needGit(t)
	repo := materialize(t)
	commits, err := history()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commits {
		if c.parent == "" {
			continue
		}
		tree := gitOut(t, repo.Dir, "rev-parse", c.name+"^{tree}")
		parent := gitOut(t, repo.Dir, "rev-parse", c.name+"^^{tree}")
		if tree == parent {
			t.Errorf("commit %s has the same tree as its parent %s", c.name, c.parent)
		}
		if got := gitOut(t, repo.Dir, "rev-parse", c.name+"^"); got != repo.Commits[c.parent] {
			t.Errorf("parent of %s = %s, want %s (%s)", c.name, got, c.parent, repo.Commits[c.parent])
		}
	}
}

// checkout makes a linked work tree of commit name under a temp dir.
func checkout(t *testing.T, repo *Repo, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	gitOut(t, repo.Dir, "worktree", "add", "--detach", dir, repo.Commits[name])
	return dir
}

// goCmd runs the go command in dir with a clean, offline module setup and
// returns its combined output.
func goCmd(t *testing.T, dir string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off")
	return cmd.CombinedOutput()
}

// TestGitsrcReads checks that gitsrc, which perfgate uses to read repositories, resolves the
// fixture's refs the way the git CLI does, and that the work tree is checked out clean.
func TestGitsrcReads(t *testing.T) {
	needGit(t)
	repo := materialize(t)
	r, err := gitsrc.Open(repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{
		"main":            repo.Commits["folded"],
		"HEAD":            repo.Commits["folded"],
		"v0.1.0":          repo.Commits["base"],
		"refs/heads/tail": repo.Commits["tail"],
		"broken~1":        repo.Commits["folded"],
	} {
		c, err := r.Resolve(rev)
		if err != nil {
			t.Errorf("Resolve(%s): %v", rev, err)
			continue
		}
		if c.SHA != want {
			t.Errorf("Resolve(%s) = %s, want %s", rev, c.SHA, want)
		}
		if git := gitOut(t, repo.Dir, "rev-parse", rev+"^{commit}"); git != want {
			t.Errorf("git rev-parse %s = %s, want %s", rev, git, want)
		}
	}
	// The checkout and its index are written by demo itself, not by a go-git work tree: before git
	// status refreshes the index, each entry's stat data must match its file (where demo records
	// the change time exactly) and its name and hash the tree of main.
	if runtime.GOOS == "linux" {
		if d := gitOut(t, repo.Dir, "diff-files", "--name-only"); d != "" {
			t.Errorf("git diff-files: the index does not match the written files:\n%s", d)
		}
	}
	if d := gitOut(t, repo.Dir, "diff-index", "--cached", "--name-only", "HEAD"); d != "" {
		t.Errorf("git diff-index --cached HEAD: the index is not main's tree:\n%s", d)
	}
	if st := gitOut(t, repo.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status not clean:\n%s", st)
	}
}

// BenchmarkMaterialize measures writing the whole history.
func BenchmarkMaterialize(b *testing.B) {
	for b.Loop() {
		if _, err := Materialize(filepath.Join(b.TempDir(), "r")); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMaterializeWithoutGit writes the history with no git on PATH, as `perfgate demo` does from an
// unpacked source tree on a machine without git, and reads it back with gitsrc. The SHAs are the
// ones cmd/perfgate's scripts (testdata/script/results.txt) expect of base and folded.
func TestMaterializeWithoutGit(t *testing.T) {
	t.Setenv("PATH", testenv.PathWithout(t, "git"))
	if p, err := exec.LookPath("git"); err == nil {
		t.Fatalf("git is still on PATH at %s", p)
	}
	repo := materialize(t)
	want := map[string]string{
		"base":   "eef72a1c3b71d67890c64e93d03c796c430f1766",
		"folded": "73228df0ec7833377f111ce845c0d06447fc2896",
	}
	for name, sha := range want {
		if repo.Commits[name] != sha {
			t.Errorf("Commits[%q] = %s, want %s", name, repo.Commits[name], sha)
		}
	}
	r, err := gitsrc.Open(repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for rev, sha := range map[string]string{"main": want["folded"], "v0.1.0": want["base"], "HEAD~1": want["base"]} {
		if c, err := r.Resolve(rev); err != nil || c.SHA != sha {
			t.Errorf("Resolve(%s) = %v, %v; want %s", rev, c, err, sha)
		}
	}
	if paths, err := r.Uncommitted(t.Context()); err != nil || len(paths) != 0 {
		t.Errorf("Uncommitted = %q, %v; want a clean checkout", paths, err)
	}
}
