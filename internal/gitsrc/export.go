package gitsrc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Tree is a source tree exported into a temporary directory. Close removes it.
type Tree struct {
	Dir    string  // the tree's root: a fresh temporary directory
	Commit *Commit // the exported commit; nil for the working tree
	// working tree only: its files differ from HEAD's (modified, added, deleted or untracked)
	Dirty bool
}

// Rev names the tree in messages: the commit's short name, or "the working tree".
func (t *Tree) Rev() string {
	if t.Commit == nil {
		return "the working tree"
	}
	return t.Commit.Short()
}

// Module returns the directory of the go.mod governing the slash-separated directory rel of the
// tree (see FindModule): in a monorepo each package finds its own module, and base and head may
// differ.
func (t *Tree) Module(rel string) (string, error) { return FindModule(t.Dir, rel, t.Rev()) }

// Close removes the tree's directory and everything in it.
func (t *Tree) Close() error {
	if t == nil || t.Dir == "" {
		return nil
	}
	return os.RemoveAll(t.Dir)
}

// ExportTemp exports commit c into a new temporary directory under tmp ("" means os.TempDir()). On
// any error, cancellation included, nothing is left behind; on success the caller closes the Tree.
func (r *Repo) ExportTemp(ctx context.Context, c *Commit, tmp string) (*Tree, error) {
	dir, err := os.MkdirTemp(tmp, "perfgate-"+c.SHA[:12]+"-")
	if err != nil {
		return nil, fmt.Errorf("exporting %s: %w", c.Short(), err)
	}
	t := &Tree{Dir: dir, Commit: c}
	if err := r.Export(ctx, c, dir); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// ExportWorktreeTemp is ExportTemp for the working tree, uncommitted changes included (see
// ExportWorktree).
func (r *Repo) ExportWorktreeTemp(ctx context.Context, tmp string) (*Tree, error) {
	dir, err := os.MkdirTemp(tmp, "perfgate-worktree-")
	if err != nil {
		return nil, fmt.Errorf("exporting working tree: %w", err)
	}
	t := &Tree{Dir: dir}
	if t.Dirty, err = r.ExportWorktree(ctx, dir); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// FindModule returns the directory of the go.mod governing rel (slash-separated, relative to tree):
// rel itself or its nearest parent within tree holding a go.mod, as the go command finds it. A
// nested module's go.mod therefore wins over the repository's. rev names the tree in the
// *NoModuleError.
func FindModule(tree, rel, rev string) (string, error) {
	if !local(rel) {
		return "", fmt.Errorf("%s is outside the repository", rel)
	}
	for d := path.Clean(rel); ; d = path.Dir(d) {
		dir := filepath.Join(tree, filepath.FromSlash(d))
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		if d == "." || d == "/" {
			return "", &NoModuleError{Tree: tree, Rel: rel, Rev: rev}
		}
	}
}

// Export writes the tree of commit c into dir, which must be empty or not exist: regular files,
// executable bits, symbolic links. Every write goes through an os.Root at dir, so that nothing
// lands outside it whatever the tree holds. A submodule entry is a *SubmoduleError; a tree with two
// entries of one name, or one that puts an entry beneath a symbolic link or a file, is an
// *UnsafeTreeError (git fsck refuses such trees, git fetch does not check). On error or
// cancellation Export removes what it wrote (and dir, if it created it). The repository's work
// tree, index and objects are not touched.
func (r *Repo) Export(ctx context.Context, c *Commit, dir string) (err error) {
	created, err := prepareDir(dir)
	if err != nil {
		return fmt.Errorf("exporting %s: %w", c.Short(), err)
	}
	defer func() {
		if err != nil {
			discard(dir, created)
		}
	}()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("exporting %s: %w", c.Short(), err)
	}
	defer root.Close()
	obj := c.obj
	if obj == nil { // a Commit the caller made from a SHA
		if obj, err = object.GetCommit(r.st, plumbing.NewHash(c.SHA)); err != nil {
			return fmt.Errorf("exporting %s: %w", c.Short(), err)
		}
	}
	tree, err := obj.Tree()
	if err != nil {
		return r.missing(fmt.Sprintf("exporting %s", c.Short()), obj.TreeHash, err)
	}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	seen := map[string]filemode.FileMode{} // every path written so far, and what it is
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("exporting %s: %w", c.Short(), err)
		}
		name, entry, err := w.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return r.missing(fmt.Sprintf("exporting %s", c.Short()), entry.Hash, err)
		}
		if err := checkEntry(seen, name, entry.Mode); err != nil {
			return fmt.Errorf("exporting %s: %w", c.Short(), err)
		}
		if err := r.writeEntry(root, name, entry); err != nil {
			return fmt.Errorf("exporting %s: %w", c.Short(), err)
		}
	}
}

// checkEntry refuses a path that was written before (a tree with two entries of one name) or whose
// parent is not a directory of the tree (an entry beneath a symbolic link, which would write where
// the link points), and records it in seen.
func checkEntry(seen map[string]filemode.FileMode, name string, mode filemode.FileMode) error {
	if _, dup := seen[name]; dup {
		return &UnsafeTreeError{Path: name, Why: "the tree has two entries of this name"}
	}
	if dir := path.Dir(name); dir != "." {
		if m, ok := seen[dir]; !ok || m != filemode.Dir {
			what := "a " + kindOf(m)
			if !ok {
				what = "not a directory of the tree"
			}
			return &UnsafeTreeError{Path: name, Why: "its parent " + dir + " is " + what}
		}
	}
	seen[name] = mode
	return nil
}

func kindOf(m filemode.FileMode) string {
	switch m {
	case filemode.Symlink:
		return "symbolic link"
	case filemode.Submodule:
		return "submodule"
	}
	return "file"
}

// writeEntry writes one tree entry at the slash-separated path name in root.
func (r *Repo) writeEntry(root *os.Root, name string, e object.TreeEntry) error {
	if !safePath(name) {
		return fmt.Errorf("refusing to write tree entry %q", name)
	}
	dst := filepath.FromSlash(name)
	switch e.Mode {
	case filemode.Dir:
		return root.Mkdir(dst, 0o755)
	case filemode.Submodule:
		return &SubmoduleError{Path: name, SHA: e.Hash.String()}
	}
	blob, err := object.GetBlob(r.st, e.Hash)
	if err != nil {
		return r.missing(name, e.Hash, err)
	}
	rd, err := blob.Reader()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rd.Close()
	switch e.Mode {
	case filemode.Symlink:
		target, err := io.ReadAll(rd)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return root.Symlink(string(target), dst)
	case filemode.Executable:
		return writeFile(root, dst, rd, 0o755)
	case filemode.Regular, filemode.Deprecated:
		return writeFile(root, dst, rd, 0o644)
	default:
		return fmt.Errorf("%s: unsupported file mode %v", name, e.Mode)
	}
}

// writeFile creates dst in root, which must not exist (a symbolic link there is never followed),
// from src.
func writeFile(root *os.Root, dst string, src io.Reader, perm os.FileMode) error {
	f, err := root.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, src)
	// The umask may have cleared bits of perm; the exported tree must keep the executable bit.
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// local reports whether the slash-separated relative path rel stays inside the directory it is
// relative to.
func local(rel string) bool {
	c := path.Clean(rel)
	return !path.IsAbs(c) && c != ".." && !strings.HasPrefix(c, "../")
}

// safePath reports whether a slash-separated tree path stays inside the directory it is written to.
func safePath(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") || strings.ContainsRune(part, '\\') {
			return false
		}
	}
	return true
}

// prepareDir makes sure dir exists and is empty, and reports whether it created it.
func prepareDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		return true, nil
	case err != nil:
		return false, err
	case len(entries) > 0:
		return false, fmt.Errorf("export directory %s is not empty", dir)
	}
	return false, nil
}

// discard removes what an export wrote to dir: dir itself when the export created it, else its
// contents.
func discard(dir string, created bool) {
	if created {
		os.RemoveAll(dir)
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
