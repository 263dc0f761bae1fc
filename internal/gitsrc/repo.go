package gitsrc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Repo is a git repository opened read-only.
type Repo struct {
	repo *git.Repository
	root string // absolute path of the work tree, "" for a bare repository
	rel  string // the opened path relative to root, slash-separated, "." for the root itself
}

// Commit is a resolved revision.
type Commit struct {
	SHA     string    // full hexadecimal object name
	Subject string    // first line of the commit message
	Time    time.Time // committer time
	hash    plumbing.Hash
	obj     *object.Commit
}

// Short returns the first 12 hexadecimal digits of the commit's name.
func (c *Commit) Short() string { return c.SHA[:12] }

func newCommit(o *object.Commit) *Commit {
	subject, _, _ := strings.Cut(strings.TrimLeft(o.Message, "\n"), "\n")
	return &Commit{
		SHA:     o.Hash.String(),
		Subject: strings.TrimSpace(subject),
		Time:    o.Committer.When,
		hash:    o.Hash,
		obj:     o,
	}
}

// Open opens the repository containing path, which may be the work tree's root or any directory
// inside it, or the git directory of a bare repository. A path outside any repository gives an
// error wrapping ErrNotRepository; a repository go-git cannot read (a partial clone, SHA-256
// objects, reftable references) an *UnsupportedRepositoryError, before any work is spent.
func Open(path string) (*Repo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening repository: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("opening repository: %w", err)
	}
	if gitDir, commonDir := gitDirs(abs); gitDir != "" {
		if err := checkReadable(commonDir, gitDir); err != nil {
			return nil, fmt.Errorf("opening repository: %w", err)
		}
	}
	gr, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s: %w", abs, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("opening repository at %s: %w", abs, err)
	}
	r := &Repo{repo: gr, rel: "."}
	wt, err := gr.Worktree()
	switch {
	case errors.Is(err, git.ErrIsBareRepository):
		// No work tree: commits can be exported, the working tree cannot.
	case err != nil:
		return nil, fmt.Errorf("opening work tree at %s: %w", abs, err)
	default:
		r.root = wt.Filesystem.Root()
		r.rel = relPath(r.root, abs)
	}
	return r, nil
}

// relPath returns target relative to root, slash-separated, resolving symbolic links on both so
// that /tmp and /private/tmp agree; "." when target is root or not inside it.
func relPath(root, target string) string {
	if rr, err := filepath.EvalSymlinks(root); err == nil {
		root = rr
	}
	if tt, err := filepath.EvalSymlinks(target); err == nil {
		target = tt
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "."
	}
	return filepath.ToSlash(rel)
}

// Root returns the absolute path of the work tree, or "" for a bare repository.
func (r *Repo) Root() string { return r.root }

// Rel returns the directory Open was given, relative to Root and slash-separated ("." for the
// root). The same relative directory inside an exported tree is where the user's module is looked
// for (see FindModule).
func (r *Repo) Rel() string { return r.rel }

// Shallow reports whether the repository is a shallow clone.
func (r *Repo) Shallow() bool {
	s, err := r.repo.Storer.Shallow()
	return err == nil && len(s) > 0
}

// Head resolves HEAD.
func (r *Repo) Head() (*Commit, error) { return r.Resolve("HEAD") }

// defaultBranches are tried in order by DefaultBase, as ref name and the name shown to the user.
var defaultBranches = []struct{ ref, name string }{
	{"refs/remotes/origin/HEAD", "origin/HEAD"},
	{"refs/remotes/origin/main", "origin/main"},
	{"refs/remotes/origin/master", "origin/master"},
	{"refs/heads/main", "main"},
	{"refs/heads/master", "master"},
}

// DefaultBase returns the merge-base of HEAD and the repository's default branch, and the branch it
// used: the target of origin/HEAD, else origin/main, origin/master, main, master. When HEAD is on
// the default branch itself the merge-base is HEAD.
func (r *Repo) DefaultBase() (*Commit, string, error) {
	head, err := r.Resolve("HEAD")
	if err != nil {
		return nil, "", err
	}
	var branch string
	var tip *object.Commit
	for _, b := range defaultBranches {
		ref, err := storer.ResolveReference(r.repo.Storer, plumbing.ReferenceName(b.ref))
		if err != nil {
			continue
		}
		c, err := r.peel(b.name, ref.Hash())
		if err != nil {
			return nil, "", err
		}
		branch, tip = b.name, c
		if b.name == "origin/HEAD" {
			if sym, err := r.repo.Storer.Reference(plumbing.ReferenceName(b.ref)); err == nil &&
				sym.Type() == plumbing.SymbolicReference {
				branch = sym.Target().Short()
			}
		}
		break
	}
	if tip == nil {
		err := fmt.Errorf("%w: none of origin/HEAD, origin/main, origin/master, main, master exists; "+
			"name the base revision", ErrNoDefaultBranch)
		if r.Shallow() {
			err = fmt.Errorf("%w (this is a shallow clone: %s)", err, unshallowHint)
		}
		return nil, "", err
	}
	what := "merge-base of HEAD and " + branch
	bases, err := head.obj.MergeBase(tip)
	if err != nil {
		return nil, "", r.missing(what, plumbing.ZeroHash, err)
	}
	if len(bases) == 0 {
		err := fmt.Errorf("finding %s: they have no common ancestor", what)
		if r.Shallow() {
			return nil, "", r.missing(what, plumbing.ZeroHash, plumbing.ErrObjectNotFound)
		}
		return nil, "", err
	}
	// Several best common ancestors (criss-cross merges): take the newest, then the smallest name,
	// so the answer does not depend on map or walk order.
	sort.Slice(bases, func(i, j int) bool {
		if !bases[i].Committer.When.Equal(bases[j].Committer.When) {
			return bases[i].Committer.When.After(bases[j].Committer.When)
		}
		return bases[i].Hash.String() < bases[j].Hash.String()
	})
	return newCommit(bases[0]), branch, nil
}
