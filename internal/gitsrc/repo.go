package gitsrc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// Repo is a git repository opened read-only.
type Repo struct {
	st   *filesystem.Storage // go-git's storage of the git directory (and its common directory)
	root string              // absolute path of the work tree, "" for a bare repository
	// the opened path relative to root, slash-separated, "." for the root itself
	rel string
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
	st, root, err := openStorage(abs)
	if errors.Is(err, errNoDotGit) {
		return nil, fmt.Errorf("%s: %w", abs, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("opening repository at %s: %w", abs, err)
	}
	r := &Repo{st: st, rel: "."}
	if root != "" {
		r.root = root
		r.rel = relPath(r.root, abs)
	}
	return r, nil
}

// errNoDotGit is openStorage's answer when no repository contains the path.
var errNoDotGit = errors.New("no .git found")

// openStorage opens the storage of the repository containing abs as go-git's
// PlainOpenWithOptions(abs, {DetectDotGit: true, EnableDotGitCommonDir: true}) did, without
// go-git's root package (whose transports perfgate does not use): from abs (or its directory, when
// abs is a file) up, the first directory holding .git is the work tree's root; .git is the git
// directory itself or a file "gitdir: <path>" naming it (a linked work tree, a submodule; relative
// to the work tree's root); a commondir file in the git directory names the directory it shares
// with the main work tree (relative to the git directory). As with go-git's detection, only a
// directory holding .git is found: a bare repository's own directory gives errNoDotGit.
func openStorage(abs string) (st *filesystem.Storage, root string, err error) {
	dir := abs
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	var gitDir string
	for {
		fi, err := os.Stat(filepath.Join(dir, ".git"))
		if err == nil {
			if gitDir, err = dotGitDir(dir, fi); err != nil {
				return nil, "", err
			}
			root = dir
			break
		}
		if !os.IsNotExist(err) {
			return nil, "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, "", errNoDotGit
		}
		dir = parent
	}
	var dot billy.Filesystem = osfs.New(gitDir)
	if _, err := dot.Stat(""); err != nil {
		if os.IsNotExist(err) {
			return nil, "", errNoDotGit
		}
		return nil, "", err
	}
	common, err := commonDirFS(dot)
	if err != nil {
		return nil, "", err
	}
	st = filesystem.NewStorage(dotgit.NewRepositoryFilesystem(dot, common), cache.NewObjectLRUDefault())
	if _, err := st.Reference(plumbing.HEAD); errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, "", errNoDotGit
	}
	if _, err := st.Config(); err != nil {
		return nil, "", err
	}
	return st, root, nil
}

// dotGitDir returns the git directory that dir's .git (described by fi) stands for.
func dotGitDir(dir string, fi os.FileInfo) (string, error) {
	dot := filepath.Join(dir, ".git")
	if fi.IsDir() {
		return dot, nil
	}
	data, err := os.ReadFile(dot)
	if err != nil {
		return "", err
	}
	line, ok := strings.CutPrefix(string(data), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s: .git file has no gitdir: prefix", dot)
	}
	line, _, _ = strings.Cut(line, "\n")
	p := strings.TrimSpace(line)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// commonDirFS returns the common directory named by the git directory's commondir file, nil when
// it has none.
func commonDirFS(dot billy.Filesystem) (billy.Filesystem, error) {
	data, err := os.ReadFile(filepath.Join(dot.Root(), "commondir"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p := strings.TrimSpace(string(data))
	if p == "" {
		return nil, nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dot.Root(), p)
	}
	if _, err := os.Stat(p); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("the common directory %s named by %s is missing",
				p, filepath.Join(dot.Root(), "commondir"))
		}
		return nil, err
	}
	return osfs.New(p), nil
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
	s, err := r.st.Shallow()
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
		ref, err := storer.ResolveReference(r.st, plumbing.ReferenceName(b.ref))
		if err != nil {
			continue
		}
		c, err := r.peel(b.name, ref.Hash())
		if err != nil {
			return nil, "", err
		}
		branch, tip = b.name, c
		if b.name == "origin/HEAD" {
			if sym, err := r.st.Reference(plumbing.ReferenceName(b.ref)); err == nil &&
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
