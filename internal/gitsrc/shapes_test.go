package gitsrc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// The repositories below are made by the git command in the shapes users have (a CI checkout, a
// clone with a filter, a linked work tree, another user's directory) and read by gitsrc alone.

// TestPartialClone: a clone with --filter=blob:none is refused at Open, before any work, with the
// fix; go-git would otherwise fail later with "object not found" on the first blob it lacks.
func TestPartialClone(t *testing.T) {
	g := newFixture(t)
	g.git("config", "uploadpack.allowfilter", "true")
	c := g.clone("--filter=blob:none", "--no-local", "--no-checkout")
	if got := c.git("config", "remote.origin.promisor"); got != "true" {
		t.Fatalf("git made no partial clone: remote.origin.promisor = %q", got)
	}
	_, err := Open(c.dir)
	var ue *UnsupportedRepositoryError
	if !errors.As(err, &ue) {
		t.Fatalf("Open(partial clone) = %v, want *UnsupportedRepositoryError", err)
	}
	for _, s := range []string{"partial clone", "remote.origin.promisor=true", `"fetch-depth: 0"`, `no "filter:"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

// TestUnreadableFormats: a SHA-256 repository and a reftable one are named at Open, and so is an
// extension go-git does not know.
func TestUnreadableFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string // the core and extensions sections of .git/config
		want   []string
	}{
		{"sha256", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n",
			[]string{"SHA256 repository", "extensions.objectFormat=sha256", "SHA-1"}},
		{"reftable", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n",
			[]string{"reftable", "extensions.refStorage=reftable", "git refs migrate"}},
		{"other", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n",
			[]string{"extensions.worktreeConfig=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGitRepo(t)
			g.commit("first", map[string]string{"a.go": "package a\n"})
			if err := os.WriteFile(filepath.Join(g.dir, ".git", "config"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(filepath.Join(g.dir))
			var ue *UnsupportedRepositoryError
			if !errors.As(err, &ue) {
				t.Fatalf("Open = %v, want *UnsupportedRepositoryError", err)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
	// A repository git itself made with SHA-256 objects, where this git can.
	dir := filepath.Join(t.TempDir(), "sha256")
	cmd := exec.Command("git", "init", "-q", "--object-format=sha256", dir)
	cmd.Env = gittest.Environ(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("git cannot make a SHA-256 repository here: %v: %s", err, out)
		return
	}
	var ue *UnsupportedRepositoryError
	if _, err := Open(dir); !errors.As(err, &ue) || !strings.Contains(err.Error(), "SHA256") {
		t.Errorf("Open(git init --object-format=sha256) = %v, want *UnsupportedRepositoryError naming SHA256", err)
	}
}

// TestPackedRefs: after git pack-refs --all and git gc every ref lives in packed-refs and every
// object in a pack; revisions resolve as before and a commit exports.
func TestPackedRefs(t *testing.T) {
	g := newFixture(t)
	g.git("pack-refs", "--all")
	g.git("gc", "-q")
	if _, err := os.Stat(filepath.Join(g.dir, ".git", "refs", "tags", "v1.0")); err == nil {
		t.Fatal("v1.0 is still a loose ref after git pack-refs --all")
	}
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{"main": g.sha["merge"], "v1.0": g.sha["second"],
		"v1.0-again": g.sha["second"], "feature~1": g.sha["second"], "light": g.sha["first"]} {
		if c, err := r.Resolve(rev); err != nil || c.SHA != want {
			t.Errorf("Resolve(%s) = %v, %v; want %s", rev, c, err, want)
		}
	}
	head, _ := r.Resolve("HEAD")
	if err := r.Export(t.Context(), head, filepath.Join(t.TempDir(), "out")); err != nil {
		t.Errorf("Export from packs: %v", err)
	}
	if paths, err := r.Uncommitted(t.Context()); err != nil || len(paths) != 0 {
		t.Errorf("Uncommitted after gc = %q, %v; want nothing", paths, err)
	}
}

// TestRealSubmodule: a submodule added by git submodule add (with its .gitmodules and its checkout)
// is a *SubmoduleError for both exports; the revisions still resolve.
func TestRealSubmodule(t *testing.T) {
	// git submodule is a shell script of git's, which runs sed and basename
	for _, tool := range []string{"sh", "sed", "basename"} {
		testenv.NeedTool(t, tool, "git submodule add runs it")
	}
	lib := newGitRepo(t)
	lib.commit("lib", map[string]string{"lib.go": "package lib\n"})
	g := newGitRepo(t)
	g.commit("first", map[string]string{"go.mod": "module example.com/m\n"})
	g.git("submodule", "add", "-q", "file://"+lib.dir, "third_party/lib")
	g.commit("add lib", nil)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve("HEAD~0")
	if err != nil || head.SHA != g.sha["add lib"] {
		t.Fatalf("Resolve(HEAD~0) = %v, %v", head, err)
	}
	var se *SubmoduleError
	if err := r.Export(t.Context(), head, filepath.Join(t.TempDir(), "out")); !errors.As(err, &se) ||
		se.Path != "third_party/lib" || se.SHA != lib.sha["lib"] {
		t.Errorf("Export = %v, want *SubmoduleError for third_party/lib at %s", err, lib.sha["lib"])
	}
	if _, err := r.ExportWorktree(t.Context(), filepath.Join(t.TempDir(), "wt")); !errors.As(err, &se) {
		t.Errorf("ExportWorktree = %v, want *SubmoduleError", err)
	}
}

// TestLinkedWorktreeUncommitted: in a linked work tree the index is the work tree's own; an edit
// there is seen, the main work tree's state is not.
func TestLinkedWorktreeUncommitted(t *testing.T) {
	g := newFixture(t)
	wt := filepath.Join(t.TempDir(), "wt")
	g.git("worktree", "add", "-q", wt, "feature")
	os.WriteFile(filepath.Join(g.dir, "a.go"), []byte("package fx // main work tree\n"), 0o644)
	r, err := Open(filepath.Join(wt, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Rel() != "sub" {
		t.Errorf("Rel() = %q, want sub", r.Rel())
	}
	if paths, err := r.Uncommitted(t.Context()); err != nil || len(paths) != 0 {
		t.Errorf("clean linked work tree: Uncommitted = %q, %v", paths, err)
	}
	os.WriteFile(filepath.Join(wt, "f.go"), []byte("package fx // edited\n"), 0o644)
	if paths, err := r.Uncommitted(t.Context()); err != nil || !slices.Equal(paths, []string{"f.go"}) {
		t.Errorf("Uncommitted = %q, %v; want f.go", paths, err)
	}
}

// TestAnotherUsersCheckout: a repository owned by another user (a container job's workspace on
// GitHub Actions) opens, resolves and exports; the git command refuses it ("dubious ownership").
func TestAnotherUsersCheckout(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot give the repository to another user (uid 65534)")
	}
	g := newFixture(t)
	err := filepath.Walk(g.dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Skipf("cannot chown the repository to uid 65534: %v", err)
	}
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir, cmd.Env = g.dir, gittest.Environ(t)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Logf("this git reads another user's repository (%s): the check below still holds", strings.TrimSpace(string(out)))
	} else {
		t.Logf("git: %s", strings.TrimSpace(string(out)))
	}
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve("HEAD")
	if err != nil || head.SHA != g.sha["merge"] {
		t.Fatalf("Resolve(HEAD) = %v, %v", head, err)
	}
	if base, _, err := r.DefaultBase(); err != nil || base.SHA != g.sha["merge"] {
		t.Errorf("DefaultBase = %v, %v", base, err)
	}
	if err := r.Export(t.Context(), head, filepath.Join(t.TempDir(), "out")); err != nil {
		t.Errorf("Export: %v", err)
	}
	if dirty, err := r.ExportWorktree(t.Context(), filepath.Join(t.TempDir(), "wt")); err != nil || dirty {
		t.Errorf("ExportWorktree = %v, %v; want clean", dirty, err)
	}
	if paths, err := r.Uncommitted(t.Context()); err != nil || len(paths) != 0 {
		t.Errorf("Uncommitted = %q, %v; want nothing", paths, err)
	}
}
