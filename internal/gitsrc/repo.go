package gitsrc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Repo is a git repository opened read-only.
type Repo struct {
	dir       string // where git runs: the work tree's root, or a bare repository's git directory
	commonDir string // the git directory shared by all work trees, absolute
	root      string // absolute path of the work tree, "" for a bare repository
	rel       string // the opened path relative to root, slash-separated, "." for the root itself
}

// Commit is a resolved revision.
type Commit struct {
	SHA     string    // full hexadecimal object name
	Subject string    // first line of the commit message
	Time    time.Time // committer time
}

// Short returns the first 12 hexadecimal digits of the commit's name.
func (c *Commit) Short() string { return c.SHA[:12] }

// Open opens the repository containing path, which may be the work tree's root or any directory
// inside it. A path outside any repository gives an error wrapping ErrNotRepository. The
// repository is read with the git command, which must be installed.
func Open(path string) (*Repo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening repository: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("opening repository: %w", err)
	}
	ctx := context.Background()
	out, err := runIn(ctx, abs, "rev-parse", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir")
	var ge *gitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return nil, fmt.Errorf("opening repository at %s: perfgate reads it with the git command: %w", abs, err)
	case errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository"):
		return nil, fmt.Errorf("%s: %w", abs, ErrNotRepository)
	case err != nil:
		return nil, fmt.Errorf("opening repository at %s: %w", abs, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("opening repository at %s: git rev-parse printed %q", abs, out)
	}
	gitDir, commonDir := lines[1], lines[2]
	if !filepath.IsAbs(commonDir) {
		commonDir = filepath.Join(abs, commonDir)
	}
	r := &Repo{dir: gitDir, commonDir: commonDir, rel: "."}
	if lines[0] == "true" {
		// No work tree: commits can be exported, the working tree cannot.
		return r, nil
	}
	top, err := runIn(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		// Inside the git directory of a repository with a work tree: read it as a bare one.
		return r, nil
	}
	r.root = strings.TrimSuffix(string(top), "\n")
	r.dir = r.root
	r.rel = relPath(r.root, abs)
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
	out, err := r.git(context.Background(), "rev-parse", "--is-shallow-repository")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// shallowCommits returns the commits at a shallow clone's boundary, as the shallow file lists them.
func (r *Repo) shallowCommits() []string {
	data, err := os.ReadFile(filepath.Join(r.commonDir, "shallow"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
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
	ctx := context.Background()
	head, err := r.Resolve("HEAD")
	if err != nil {
		return nil, "", err
	}
	refs, err := r.refs(ctx)
	if err != nil {
		return nil, "", err
	}
	o, err := r.objects(ctx)
	if err != nil {
		return nil, "", err
	}
	defer o.Close()
	var branch string
	var tip *rawCommit
	for _, b := range defaultBranches {
		ref, ok := refs[b.ref]
		if !ok {
			continue
		}
		c, err := r.peel(o, b.name, ref.sha)
		if err != nil {
			return nil, "", err
		}
		branch, tip = b.name, c
		if b.name == "origin/HEAD" && ref.target != "" {
			branch = shortRef(ref.target)
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
	out, err := r.git(ctx, "merge-base", "--all", head.SHA, tip.commit.SHA)
	if err != nil && exitCode(err) != 1 { // 1: no common ancestor
		if r.Shallow() {
			return nil, "", r.missing(what, "", errMissing)
		}
		return nil, "", fmt.Errorf("%s: %w", what, err)
	}
	var bases []*Commit
	for _, sha := range strings.Fields(string(out)) {
		c, err := o.commit(sha)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", what, err)
		}
		bases = append(bases, c.commit)
	}
	if len(bases) == 0 {
		if r.Shallow() {
			return nil, "", r.missing(what, "", errMissing)
		}
		return nil, "", fmt.Errorf("finding %s: they have no common ancestor", what)
	}
	// Several best common ancestors (criss-cross merges): take the newest, then the smallest name,
	// so the answer does not depend on the order git lists them in.
	sort.Slice(bases, func(i, j int) bool {
		if !bases[i].Time.Equal(bases[j].Time) {
			return bases[i].Time.After(bases[j].Time)
		}
		return bases[i].SHA < bases[j].SHA
	})
	return bases[0], branch, nil
}

// missing turns an error from walking history into a *ShallowError when the repository is shallow
// and the error is a missing object (errMissing); other errors are wrapped with what. sha is the
// missing commit when the caller knows it.
func (r *Repo) missing(what, sha string, err error) error {
	if !errors.Is(err, errMissing) || !r.Shallow() {
		return fmt.Errorf("%s: %w", what, err)
	}
	se := &ShallowError{What: what, Missing: sha}
	for _, h := range r.shallowCommits() {
		se.Boundary = append(se.Boundary, h)
		if se.Missing != "" {
			continue
		}
		// The commits just beyond the boundary are the shallow commits' parents.
		if c, cerr := r.readCommit(h); cerr == nil && len(c.parents) > 0 {
			se.Missing = c.parents[0]
		}
	}
	sort.Strings(se.Boundary)
	return se
}

// readCommit reads one commit with its own git process.
func (r *Repo) readCommit(sha string) (*rawCommit, error) {
	data, err := r.git(context.Background(), "cat-file", "commit", sha)
	if err != nil {
		return nil, err
	}
	return parseCommit(sha, data)
}

// Uncommitted returns the paths of the work tree that differ from HEAD or that git does not track
// and does not ignore (git status --porcelain), run in the repository's root.
func (r *Repo) Uncommitted(ctx context.Context) ([]string, error) {
	out, err := runIn(ctx, r.root, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if len(line) > 3 {
			paths = append(paths, line[3:])
		}
	}
	return paths, nil
}
