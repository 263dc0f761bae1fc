package gitsrc

import (
	"bufio"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ExportWorktree copies the working tree into dir, which must be empty or not exist and must lie
// outside the work tree: every tracked file as it is on disk now (uncommitted edits included; a
// deleted tracked file stays deleted) and every untracked file that .gitignore, .git/info/exclude
// and the user's global excludes file do not ignore. Executable bits and symbolic links are kept.
// It reports whether the copy differs from HEAD's tree (dirty). On error or cancellation it removes
// what it wrote. Nothing in the repository is modified.
func (r *Repo) ExportWorktree(ctx context.Context, dir string) (dirty bool, err error) {
	if r.root == "" {
		return false, fmt.Errorf("exporting working tree: %w", ErrNoWorktree)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	if within(r.root, abs) {
		return false, fmt.Errorf("exporting working tree: export directory %s is inside the work tree %s", abs, r.root)
	}
	created, err := prepareDir(abs)
	if err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	defer func() {
		if err != nil {
			discard(abs, created)
		}
	}()
	root, err := os.OpenRoot(abs)
	if err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	defer root.Close()
	w := &worktreeCopy{ctx: ctx, src: r.root, dst: root, tracked: map[string]bool{}, trackedDirs: map[string]bool{}}
	if err := r.loadIndex(w); err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	if w.head, err = r.headFiles(); err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	w.seen = make(map[string]bool, len(w.head))
	if err := w.walk(".", r.excludes()); err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	for p := range w.head {
		if !w.seen[p] {
			w.dirty = true // a file of HEAD was deleted
			break
		}
	}
	return w.dirty, nil
}

// headEntry is a file of HEAD's tree: its blob name and mode.
type headEntry struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// loadIndex records the tracked paths and their parent directories; a submodule entry is an error.
func (r *Repo) loadIndex(w *worktreeCopy) error {
	idx, err := r.st.Index()
	if err != nil {
		return fmt.Errorf("reading the index: %w", err)
	}
	for _, e := range idx.Entries {
		if e.Mode == filemode.Submodule {
			return &SubmoduleError{Path: e.Name, SHA: e.Hash.String()}
		}
		w.tracked[e.Name] = true
		for d := path.Dir(e.Name); d != "."; d = path.Dir(d) {
			w.trackedDirs[d] = true
		}
	}
	return nil
}

// headFiles maps the paths of HEAD's tree to their entries; empty when HEAD has no commit yet.
func (r *Repo) headFiles() (map[string]headEntry, error) {
	files := map[string]headEntry{}
	ref, err := storer.ResolveReference(r.st, plumbing.HEAD)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return files, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading HEAD: %w", err)
	}
	c, err := object.GetCommit(r.st, ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("reading HEAD: %w", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading HEAD: %w", err)
	}
	tw := object.NewTreeWalker(tree, true, nil)
	defer tw.Close()
	for {
		name, e, err := tw.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading HEAD: %w", err)
		}
		if e.Mode != filemode.Dir {
			files[name] = headEntry{e.Hash, e.Mode}
		}
	}
}

// excludes returns the ignore patterns that apply to the whole work tree, lowest priority first:
// the user's global excludes file (core.excludesFile, else $XDG_CONFIG_HOME/git/ignore) and
// .git/info/exclude.
func (r *Repo) excludes() []gitignore.Pattern {
	root := osfs.New("/")
	ps, _ := gitignore.LoadSystemPatterns(root)
	global, _ := gitignore.LoadGlobalPatterns(root)
	if len(global) == 0 {
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if home, err := os.UserHomeDir(); cfg == "" && err == nil {
			cfg = filepath.Join(home, ".config")
		}
		if cfg != "" {
			global = readPatterns(filepath.Join(cfg, "git", "ignore"), nil)
		}
	}
	ps = append(ps, global...)
	// Through the storage's file system, so that a linked work tree reads the common directory's
	// info/exclude.
	if f, err := r.st.Filesystem().Open("info/exclude"); err == nil {
		ps = append(ps, parsePatterns(f, nil)...)
		f.Close()
	}
	return ps
}

// readPatterns reads an ignore file whose patterns apply below the directory domain; nil when it is
// missing.
func readPatterns(file string, domain []string) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parsePatterns(f, domain)
}

// parsePatterns parses ignore patterns that apply below the directory domain.
func parsePatterns(f io.Reader, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// worktreeCopy is the state of one ExportWorktree walk.
type worktreeCopy struct {
	ctx         context.Context
	src         string
	dst         *os.Root             // the copy's root: every write goes through it
	tracked     map[string]bool      // paths in the index
	trackedDirs map[string]bool      // directories holding tracked paths
	head        map[string]headEntry // HEAD's files
	seen        map[string]bool      // HEAD's files found on disk
	dirty       bool
}

// walk copies the work tree below the directory rel with the ignore patterns inherited from its
// parents.
func (w *worktreeCopy) walk(rel string, patterns []gitignore.Pattern) error {
	tw := &treeWalk{ctx: w.ctx, src: w.src, tracked: w.tracked, trackedDirs: w.trackedDirs,
		dir:  func(p string) error { return w.dst.Mkdir(filepath.FromSlash(p), 0o755) },
		file: w.copy}
	return tw.walk(rel, patterns)
}

// treeWalk visits the files of a work tree that git would show: every tracked file, and every
// untracked one that the ignore rules do not ignore (git status --untracked-files=all).
type treeWalk struct {
	ctx         context.Context
	src         string
	tracked     map[string]bool                       // paths in the index
	trackedDirs map[string]bool                       // directories holding tracked paths
	dir         func(p string) error                  // called before a directory is entered
	file        func(p string, typ os.FileMode) error // a regular file or a symbolic link
}

// walk visits the directory rel (slash-separated) with the ignore patterns inherited from its
// parents.
func (w *treeWalk) walk(rel string, patterns []gitignore.Pattern) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	srcDir := filepath.Join(w.src, filepath.FromSlash(rel))
	var domain []string
	if rel != "." {
		domain = strings.Split(rel, "/")
	}
	if own := readPatterns(filepath.Join(srcDir, ".gitignore"), domain); len(own) > 0 {
		patterns = append(patterns[:len(patterns):len(patterns)], own...)
	}
	m := gitignore.NewMatcher(patterns)
	entries, err := os.ReadDir(srcDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if e.Name() == ".git" {
			continue
		}
		p := path.Join(rel, e.Name())
		parts := append(domain[:len(domain):len(domain)], e.Name())
		typ := e.Type()
		switch {
		case typ.IsDir():
			if w.trackedDirs[p] {
				// Holds tracked files: always entered, ignored or not.
			} else if m.Match(parts, true) || isRepo(filepath.Join(w.src, filepath.FromSlash(p))) {
				// ignored, or an untracked nested repository, which git does not show either
				continue
			}
			if w.dir != nil {
				if err := w.dir(p); err != nil {
					return err
				}
			}
			if err := w.walk(p, patterns); err != nil {
				return err
			}
		case typ.IsRegular() || typ&os.ModeSymlink != 0:
			if !w.tracked[p] && m.Match(parts, false) {
				continue
			}
			if err := w.file(p, typ); err != nil {
				return err
			}
		}
		// Sockets, pipes and devices are not source files.
	}
	return nil
}

// isRepo reports whether dir is the root of another git work tree.
func isRepo(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// copy copies one file or symbolic link, hashing it as a git blob to compare it with HEAD.
func (w *worktreeCopy) copy(p string, typ os.FileMode) error {
	src := filepath.Join(w.src, filepath.FromSlash(p))
	dst := filepath.FromSlash(p)
	var sum plumbing.Hash
	var mode filemode.FileMode
	if typ&os.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := w.dst.Symlink(target, dst); err != nil {
			return err
		}
		sum, mode = blobHash([]byte(target)), filemode.Symlink
	} else {
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		perm, mode := os.FileMode(0o644), filemode.Regular
		if fi.Mode()&0o111 != 0 {
			perm, mode = 0o755, filemode.Executable
		}
		h := newBlobHasher(fi.Size())
		if err := writeFile(w.dst, dst, io.TeeReader(f, h), perm); err != nil {
			return err
		}
		copy(sum[:], h.Sum(nil))
		w.note(p, sum, mode)
		return nil
	}
	w.note(p, sum, mode)
	return nil
}

// note compares a copied file with HEAD's version of it.
func (w *worktreeCopy) note(p string, sum plumbing.Hash, mode filemode.FileMode) {
	h, ok := w.head[p]
	if !ok || h.hash != sum || h.mode != mode {
		w.dirty = true
	}
	if ok {
		w.seen[p] = true
	}
}

// newBlobHasher returns a SHA-1 primed with the header of a git blob of size bytes: writing the
// content to it yields the blob's object name.
func newBlobHasher(size int64) hash.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

func blobHash(b []byte) plumbing.Hash {
	h := newBlobHasher(int64(len(b)))
	h.Write(b)
	var sum plumbing.Hash
	copy(sum[:], h.Sum(nil))
	return sum
}

// within reports whether path is root or lies inside it.
func within(root, target string) bool {
	if rr, err := filepath.EvalSymlinks(root); err == nil {
		root = rr
	}
	// target may not exist yet: resolve its nearest existing parent.
	for d, rest := target, ""; ; {
		if dd, err := filepath.EvalSymlinks(d); err == nil {
			target = filepath.Join(dd, rest)
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
