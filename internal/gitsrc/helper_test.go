package gitsrc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
)

// TestMain isolates git and this package from the user's configuration: no global or system config,
// no global excludes file, a fixed identity.
func TestMain(m *testing.M) { gittest.Main(m) }

// gitRepo is a repository made with the git command line in a test's temporary directory.
type gitRepo struct {
	t    *testing.T
	dir  string
	tick int // commit dates advance one minute per commit, so that date order is commit order
	sha  map[string]string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	g := &gitRepo{t: t, dir: filepath.Join(t.TempDir(), "repo"), sha: map[string]string{}}
	if err := os.MkdirAll(g.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g.git("-c", "init.defaultBranch=main", "init", "-q")
	return g
}

// git runs git in the repository and returns its trimmed standard output.
func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	return runGit(g.t, g.dir, g.tick, args...)
}

func runGit(t *testing.T, dir string, tick int, args ...string) string {
	t.Helper()
	env := gittest.Date(tick)
	argv := append([]string{"git", "-c", "protocol.file.allow=always"}, args...)
	out, _, err := proc.Run(proc.Command(context.Background(), dir, env, argv...))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// write writes files (path → content; content "@x" + rest makes an executable file, "->target" a
// symlink).
func (g *gitRepo) write(files map[string]string) {
	g.t.Helper()
	for name, content := range files {
		p := filepath.Join(g.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			g.t.Fatal(err)
		}
		os.Remove(p)
		var err error
		switch {
		case strings.HasPrefix(content, "->"):
			err = os.Symlink(content[2:], p)
		case strings.HasPrefix(content, "@x"):
			err = os.WriteFile(p, []byte(content[2:]), 0o755)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			g.t.Fatal(err)
		}
	}
}

// commit writes files, stages everything and commits with subject name, remembering the SHA under
// name.
func (g *gitRepo) commit(name string, files map[string]string) string {
	g.t.Helper()
	g.write(files)
	g.git("add", "-A")
	g.tick++
	g.git("commit", "-q", "--allow-empty", "-m", name)
	g.sha[name] = g.git("rev-parse", "HEAD")
	return g.sha[name]
}

// newFixture builds this history on main (merge of feature on top):
//
//	first ─ second (tag v1.0, annotated) ─ third ─ merge
//	         └─ feature work (branch feature) ─────┘
//
// plus lightweight tag "light" → first, a nested annotated tag "v1.0-again" → v1.0, branch "c0ffee"
// → first (a ref that looks like an abbreviated SHA), and tag "treetag" → second's tree.
func newFixture(t *testing.T) *gitRepo {
	g := newGitRepo(t)
	g.commit("first", map[string]string{
		"go.mod":         "module example.com/fx\n\ngo 1.21\n",
		"a.go":           "package fx\n\nconst A = 1\n",
		"sub/b.go":       "package sub\n",
		"run.sh":         "@x#!/bin/sh\necho hi\n",
		"link":           "->a.go",
		".gitignore":     "*.log\nbuild/\n",
		"sub/.gitignore": "*.tmp\n",
	})
	g.write(map[string]string{"keep.log": "tracked although ignored\n"})
	g.git("add", "-f", "keep.log")
	g.tick++
	g.git("commit", "-q", "--amend", "--no-edit")
	g.sha["first"] = g.git("rev-parse", "HEAD")
	g.git("tag", "light")
	g.git("branch", "c0ffee")
	g.commit("second", map[string]string{"a.go": "package fx\n\nconst A = 2\n"})
	g.git("tag", "-a", "-m", "release 1.0", "v1.0")
	g.git("tag", "-a", "-m", "again", "v1.0-again", "v1.0")
	g.git("tag", "treetag", "HEAD^{tree}")
	g.git("checkout", "-q", "-b", "feature")
	g.commit("feature work", map[string]string{"f.go": "package fx\n"})
	g.git("checkout", "-q", "main")
	g.commit("third", map[string]string{"c.go": "package fx\n"})
	g.tick++
	g.git("merge", "-q", "--no-ff", "-m", "merge", "feature")
	g.sha["merge"] = g.git("rev-parse", "HEAD")
	return g
}

// clone clones g with extra arguments (e.g. "--depth", "1") into a new directory and returns it.
func (g *gitRepo) clone(args ...string) *gitRepo {
	g.t.Helper()
	c := &gitRepo{t: g.t, dir: filepath.Join(g.t.TempDir(), "clone"), tick: g.tick, sha: g.sha}
	argv := append([]string{"clone", "-q"}, args...)
	argv = append(argv, "file://"+g.dir, c.dir)
	runGit(g.t, filepath.Dir(c.dir), g.tick, argv...)
	return c
}

// listTree lists the files under dir as "path mode" lines (mode: "x" executable, "l -> target"
// symlink, "f"), sorted, with content for regular files.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" l -> "+target)
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			kind := "f"
			if fi.Mode()&0o111 != 0 {
				kind = "x"
			}
			out = append(out, fmt.Sprintf("%s %s %q", rel, kind, b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
