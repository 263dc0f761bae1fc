package gitsrc

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Uncommitted returns the slash-separated paths of the work tree that differ from HEAD: staged or
// not, edited, added or deleted, and every untracked file that the ignore rules do not ignore (as
// git status --untracked-files=all lists them), sorted.
//
// Files are compared as git status compares them: a tracked file whose size, modification time and
// inode are those the index recorded, and that was not modified in the same instant the index was
// written (git's "racily clean" files), is unchanged without being read; only the others are
// hashed. Content is compared as it is on disk (no clean filters run).
func (r *Repo) Uncommitted(ctx context.Context) ([]string, error) {
	if r.root == "" {
		return nil, fmt.Errorf("listing uncommitted edits: %w", ErrNoWorktree)
	}
	idx, err := r.st.Index()
	if err != nil {
		return nil, fmt.Errorf("listing uncommitted edits: reading the index: %w", err)
	}
	head, err := r.headFiles()
	if err != nil {
		return nil, fmt.Errorf("listing uncommitted edits: %w", err)
	}
	indexTime := r.indexTime()
	changed := map[string]bool{}
	entries := make(map[string]*index.Entry, len(idx.Entries))
	trackedDirs := map[string]bool{}
	for _, e := range idx.Entries {
		h, ok := head[e.Name]
		if e.Stage != 0 || !ok || h.hash != e.Hash || h.mode != e.Mode {
			// staged, or in a merge conflict (stages 1–3; go-git names stage 1 Merged)
			changed[e.Name] = true
		}
		entries[e.Name] = e
		for d := filepath.ToSlash(filepath.Dir(e.Name)); d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			trackedDirs[d] = true
		}
	}
	for p := range head {
		if entries[p] == nil {
			changed[p] = true // deleted from the index
		}
	}
	tracked := make(map[string]bool, len(entries))
	for p := range entries {
		tracked[p] = true
	}
	seen := make(map[string]bool, len(entries))
	tw := &treeWalk{ctx: ctx, src: r.root, tracked: tracked, trackedDirs: trackedDirs,
		file: func(p string, typ os.FileMode) error {
			e := entries[p]
			if e == nil {
				changed[p] = true // untracked
				return nil
			}
			seen[p] = true
			if changed[p] {
				return nil
			}
			same, err := sameAsIndex(filepath.Join(r.root, filepath.FromSlash(p)), e, indexTime)
			if err != nil {
				return err
			}
			if !same {
				changed[p] = true
			}
			return nil
		}}
	if err := tw.walk(".", r.excludes()); err != nil {
		return nil, fmt.Errorf("listing uncommitted edits: %w", err)
	}
	for p, e := range entries {
		if !seen[p] && e.Mode != filemode.Submodule && !e.SkipWorktree {
			changed[p] = true // deleted from the work tree
		}
	}
	paths := make([]string, 0, len(changed))
	for p := range changed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

// indexTime returns when the index was last written, the zero time when it cannot be told (every
// file is then hashed).
func (r *Repo) indexTime() time.Time {
	if fi, err := r.st.Filesystem().Stat("index"); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}

// sameAsIndex reports whether the file at file holds what the index entry e records. The file's
// stat data decides when it matches e's and e is not racily clean (modified no earlier than the
// index was written, when a later edit in the same instant would keep the stat data); otherwise the
// content is hashed.
func sameAsIndex(file string, e *index.Entry, indexTime time.Time) (bool, error) {
	fi, err := os.Lstat(file)
	if err != nil {
		return false, err
	}
	mode := filemode.Regular
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		mode = filemode.Symlink
	case fi.Mode()&0o111 != 0:
		mode = filemode.Executable
	}
	if mode != e.Mode && !(mode == filemode.Regular && e.Mode == filemode.Deprecated) {
		return false, nil
	}
	if uint32(fi.Size()) != e.Size {
		return false, nil // git records the size modulo 2³²
	}
	ino, hasIno := inode(fi)
	if fi.ModTime().Equal(e.ModifiedAt) && (!hasIno || e.Inode == 0 || ino == e.Inode) &&
		!indexTime.IsZero() && e.ModifiedAt.Before(indexTime) {
		return true, nil
	}
	var sum plumbing.Hash
	if mode == filemode.Symlink {
		target, err := os.Readlink(file)
		if err != nil {
			return false, err
		}
		sum = blobHash([]byte(target))
	} else {
		f, err := os.Open(file)
		if err != nil {
			return false, err
		}
		defer f.Close()
		h := newBlobHasher(fi.Size())
		n, err := io.Copy(h, f)
		if err != nil {
			return false, err
		}
		if n != fi.Size() {
			return false, nil // changed while read
		}
		copy(sum[:], h.Sum(nil))
	}
	return sum == e.Hash, nil
}
