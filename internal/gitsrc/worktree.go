package gitsrc

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
	w := &worktreeCopy{ctx: ctx, src: r.root, dst: root}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	tracked, err := r.trackedFiles(ctx)
	if err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	untracked, err := r.untrackedFiles(ctx)
	if err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	if w.head, err = r.headFiles(ctx); err != nil {
		return false, fmt.Errorf("exporting working tree: %w", err)
	}
	w.seen = make(map[string]bool, len(w.head))
	files := append(tracked, untracked...)
	sort.Strings(files)
	for i, p := range files {
		if i > 0 && files[i-1] == p {
			continue
		}
		if err := w.copy(p); err != nil {
			return false, fmt.Errorf("exporting working tree: %w", err)
		}
	}
	for p := range w.head {
		if !w.seen[p] {
			w.dirty = true // a file of HEAD was deleted
			break
		}
	}
	return w.dirty, nil
}

// trackedFiles lists the paths in the index; a submodule entry is an error.
func (r *Repo) trackedFiles(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "ls-files", "-z", "--stage", "--full-name")
	if err != nil {
		return nil, fmt.Errorf("reading the index: %w", err)
	}
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> SP <object> SP <stage> TAB <path>"
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("reading the index: git ls-files printed %q", rec)
		}
		if f[0] == "160000" {
			return nil, &SubmoduleError{Path: p, SHA: f[1]}
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// untrackedFiles lists the files that are neither tracked nor ignored by .gitignore,
// .git/info/exclude or the user's global excludes file, as git status shows them; not those of an
// untracked nested repository, which git lists as its directory alone.
func (r *Repo) untrackedFiles(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, "ls-files", "-z", "--others", "--exclude-standard", "--full-name")
	if err != nil {
		return nil, fmt.Errorf("listing untracked files: %w", err)
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && !strings.HasSuffix(p, "/") {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// headEntry is a file of HEAD's tree: its blob name and mode.
type headEntry struct {
	sha  string
	mode fileMode
}

// headFiles maps the paths of HEAD's tree to their entries; empty when HEAD has no commit yet.
func (r *Repo) headFiles(ctx context.Context) (map[string]headEntry, error) {
	files := map[string]headEntry{}
	if _, err := r.git(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}"); exitCode(err) == 1 {
		return files, nil // an unborn branch
	}
	out, err := r.git(ctx, "ls-tree", "-r", "-z", "--full-tree", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("reading HEAD: %w", err)
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		e, ok := parseTreeEntry(string(rec))
		if !ok {
			return nil, fmt.Errorf("reading HEAD: git ls-tree printed %q", rec)
		}
		files[e.path] = headEntry{e.sha, e.mode}
	}
	return files, nil
}

// worktreeCopy is the state of one ExportWorktree copy.
type worktreeCopy struct {
	ctx   context.Context
	src   string
	dst   *os.Root             // the copy's root: every write goes through it
	head  map[string]headEntry // HEAD's files
	seen  map[string]bool      // HEAD's files found on disk
	dirty bool
}

// copy copies one file or symbolic link (slash-separated path p) if it is on disk, hashing it as
// a git blob to compare it with HEAD. A tracked file deleted from disk, or replaced by a directory,
// is not copied; sockets, pipes and devices are not source files.
func (w *worktreeCopy) copy(p string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	src := filepath.Join(w.src, filepath.FromSlash(p))
	fi, err := os.Lstat(src)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	typ := fi.Mode().Type()
	if !typ.IsRegular() && typ&os.ModeSymlink == 0 {
		return nil
	}
	dst := filepath.FromSlash(p)
	if dir := path.Dir(p); dir != "." {
		if err := w.dst.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return err
		}
	}
	if typ&os.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := w.dst.Symlink(target, dst); err != nil {
			return err
		}
		w.note(p, blobHash([]byte(target)), modeSymlink)
		return nil
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return err
	}
	perm, mode := os.FileMode(0o644), modeRegular
	if fi.Mode()&0o111 != 0 {
		perm, mode = 0o755, modeExecutable
	}
	h := newBlobHasher(fi.Size())
	if err := writeFile(w.dst, dst, io.TeeReader(f, h), perm); err != nil {
		return err
	}
	w.note(p, hex.EncodeToString(h.Sum(nil)), mode)
	return nil
}

// note compares a copied file with HEAD's version of it.
func (w *worktreeCopy) note(p, sum string, mode fileMode) {
	h, ok := w.head[p]
	if !ok || h.sha != sum || h.mode != mode {
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

func blobHash(b []byte) string {
	h := newBlobHasher(int64(len(b)))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
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
