package gitsrc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolveAgreesWithGit(t *testing.T) {
	g := newFixture(t)
	c := g.clone() // origin/main, origin/feature, origin/HEAD
	c.git("branch", "feature", "origin/feature")
	c.git("branch", "c0ffee", "origin/c0ffee")
	r, err := Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	revs := []string{
		"HEAD", "main", "feature", "origin/main", "origin/feature", "origin", "refs/heads/main",
		"refs/remotes/origin/feature", "heads/main",
		g.sha["third"], g.sha["third"][:7], g.sha["third"][:4], strings.ToUpper(g.sha["second"][:10]),
		"v1.0", "v1.0-again", "light", "refs/tags/v1.0", "v1.0^{}", "v1.0^{commit}",
		"HEAD~1", "HEAD~", "HEAD^", "HEAD^1", "HEAD^2", "HEAD~2", "HEAD~3", "HEAD^0", "HEAD^^", "HEAD^2~1",
		"main~1^", "origin/main~2", "v1.0~1", "c0ffee",
	}
	for _, rev := range revs {
		// The oracle: git itself.
		want := runGit(t, c.dir, 0, "rev-parse", "--verify", "-q", rev+"^{commit}")
		got, err := r.Resolve(rev)
		if err != nil {
			t.Errorf("Resolve(%q): %v", rev, err)
			continue
		}
		if got.SHA != want {
			t.Errorf("Resolve(%q) = %s, git says %s", rev, got.SHA, want)
		}
	}

	// Spot checks against the fixture's known shape, so that the oracle itself is checked.
	for rev, name := range map[string]string{
		"HEAD^2": "feature work", "HEAD~1": "third", "v1.0": "second", "light": "first", "c0ffee": "first",
	} {
		got, err := r.Resolve(rev)
		if err != nil || got.SHA != g.sha[name] {
			t.Errorf("Resolve(%q) = %v, %v; want commit %q (%s)", rev, got, err, name, g.sha[name])
			continue
		}
		if got.Subject != name {
			t.Errorf("Resolve(%q).Subject = %q, want %q", rev, got.Subject, name)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	g := newFixture(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rev         string
		name        string   // UnknownRevisionError.Name
		suggestions []string // nil: not checked
		msg         string   // substring of the message
	}{
		{rev: "mian", name: "mian", suggestions: []string{"main"}, msg: `no branch, tag or commit named "mian"; did you mean "main"?`},
		{rev: "featur~1", name: "featur", suggestions: []string{"feature"}, msg: `unknown revision "featur~1"`},
		{rev: "v1", name: "v1", suggestions: []string{"v1.0", "v1.0-again"}},
		{rev: "zzzzzz", name: "zzzzzz", suggestions: []string{}},
		{rev: "HEAD~9", msg: `("first") has no parent`},
		{rev: "HEAD^3", msg: "has 2 parent(s), not 3"},
		{rev: "treetag", msg: "is a tree, not a commit"},
		{rev: "abc", name: "abc"},               // too short to be a SHA
		{rev: "0123456789", name: "0123456789"}, // a SHA prefix no object has
		{rev: "HEAD^{tree}", msg: "^{tree} is not supported"},
		{rev: "", msg: "empty revision"},
	}
	for _, tt := range tests {
		_, err := r.Resolve(tt.rev)
		var ue *UnknownRevisionError
		if !errors.As(err, &ue) {
			t.Errorf("Resolve(%q) error = %v, want *UnknownRevisionError", tt.rev, err)
			continue
		}
		if tt.name != "" && ue.Name != tt.name {
			t.Errorf("Resolve(%q): Name = %q, want %q", tt.rev, ue.Name, tt.name)
		}
		if tt.suggestions != nil {
			if diff := cmp.Diff(tt.suggestions, ue.Suggestions, cmpEmpty); diff != "" {
				t.Errorf("Resolve(%q) suggestions (-want +got):\n%s", tt.rev, diff)
			}
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Resolve(%q) = %q, want it to contain %q", tt.rev, err, tt.msg)
		}
	}
}

// cmpEmpty makes nil and empty slices equal.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal(a, b)
})

func TestNearRefs(t *testing.T) {
	names := []string{"main", "master", "origin/main", "feature/login", "v0.1.0", "v0.1.1", "release-2026"}
	tests := []struct {
		name string
		want []string
	}{
		{"mian", []string{"main", "origin/main"}}, // one transposition, also in the remote branch
		{"mastre", []string{"master"}},            // one transposition
		// one insertion, and via the remote's branch part
		{"mai", []string{"main", "origin/main"}},
		{"feature", []string{"feature/login"}},    // prefix
		{"v0.1.2", []string{"v0.1.0", "v0.1.1"}},  // distance 1 each, then by name
		{"Main", []string{"main", "origin/main"}}, // case
		{"completely-different", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, nearRefs(tt.name, names), cmpEmpty); diff != "" {
			t.Errorf("nearRefs(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestOpen(t *testing.T) {
	g := newFixture(t)
	r, err := Open(filepath.Join(g.dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(g.dir)
	gotRoot, _ := filepath.EvalSymlinks(r.Root())
	if gotRoot != root || r.Rel() != "sub" {
		t.Errorf("Open(repo/sub): Root, Rel = %q, %q; want %q, %q", gotRoot, r.Rel(), root, "sub")
	}
	if r.Shallow() {
		t.Error("Shallow() = true for a full repository")
	}

	_, err = Open(t.TempDir())
	if !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(empty dir) error = %v, want ErrNotRepository", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil || errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(missing dir) error = %v, want a not-exist error", err)
	}
}

func TestEmptyRepository(t *testing.T) {
	g := newGitRepo(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve("HEAD")
	var ue *UnknownRevisionError
	if !errors.As(err, &ue) {
		t.Errorf("Resolve(HEAD) in an empty repository: %v, want *UnknownRevisionError", err)
	}
	// The working tree of a repository without commits exports, and is dirty as soon as it has a
	// file.
	if err := os.WriteFile(filepath.Join(g.dir, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirty, err := r.ExportWorktree(t.Context(), filepath.Join(t.TempDir(), "out"))
	if err != nil || !dirty {
		t.Errorf("ExportWorktree = %v, %v; want dirty", dirty, err)
	}
}

func TestDefaultBase(t *testing.T) {
	g := newFixture(t)
	c := g.clone()
	// A topic branch forked from main~1 (third), with one commit of its own.
	c.git("checkout", "-q", "-b", "topic", "origin/main~1")
	c.tick += 10
	c.commit("topic work", map[string]string{"t.go": "package fx\n"})
	r, err := Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	base, branch, err := r.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	want := runGit(t, c.dir, 0, "merge-base", "HEAD", "origin/main")
	if base.SHA != want || base.SHA != g.sha["third"] || branch != "origin/main" {
		t.Errorf("DefaultBase() = %s (%s), %q; want %s (third), origin/main", base.Short(), base.Subject, branch, want)
	}

	// Without a remote: main is the default branch; on main the merge-base is HEAD itself.
	r, err = Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	base, branch, err = r.DefaultBase()
	if err != nil || base.SHA != g.sha["merge"] || branch != "main" {
		t.Errorf("DefaultBase() on main = %v, %q, %v; want merge, main", base, branch, err)
	}

	// No default branch at all.
	g.git("branch", "-m", "main", "trunk")
	if _, _, err := r.DefaultBase(); !errors.Is(err, ErrNoDefaultBranch) {
		t.Errorf("DefaultBase() without main = %v, want ErrNoDefaultBranch", err)
	}
}

func TestIsFullSHA(t *testing.T) {
	for s, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef01234567":  true,
		"0123456789ABCDEF0123456789abcdef01234567":  false, // git and GitHub write lowercase
		"0123456789abcdef0123456789abcdef0123456":   false, // 39 digits
		"0123456789abcdef0123456789abcdef012345678": false, // 41 digits
		"0123456789abcdef0123456789abcdef0123456g":  false,
		"": false,
	} {
		if got := IsFullSHA(s); got != want {
			t.Errorf("IsFullSHA(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestHookEnvironment: perfgate run from a git hook inherits GIT_DIR and GIT_INDEX_FILE naming the
// hook's repository; gitsrc still reads the repository it opened.
func TestHookEnvironment(t *testing.T) {
	g := newFixture(t)
	other := newGitRepo(t)
	other.commit("other", map[string]string{"o.go": "package o\n"})
	t.Setenv("GIT_DIR", filepath.Join(other.dir, ".git"))
	t.Setenv("GIT_WORK_TREE", other.dir)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other.dir, ".git", "index"))
	t.Setenv("GITHUB_TOKEN", "ghs_secret")
	r, err := Open(filepath.Join(g.dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if head, err := r.Resolve("HEAD"); err != nil || head.SHA != g.sha["merge"] {
		t.Errorf("Resolve(HEAD) = %v, %v; want the opened repository's merge %s", head, err, g.sha["merge"])
	}
	dirty, err := r.ExportWorktree(t.Context(), filepath.Join(t.TempDir(), "out"))
	if err != nil || dirty {
		t.Errorf("ExportWorktree = %v, %v; want the opened repository's clean work tree", dirty, err)
	}
}
