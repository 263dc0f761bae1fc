package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The bounds of one working-directory copy (see WorkDir). A file larger than MaxCopiedFile, or one
// that would take the copy past MaxCopied, is linked to instead: the child reads it where it is and
// cannot write it.
const (
	MaxCopiedFile = 8 << 20
	MaxCopied     = 32 << 20
)

// WorkDir places, beneath scratch (made by Scratch), a copy of the package directory dir as it is
// in the tree and returns the path the child is to run in, as go test runs a test binary in its
// package directory, with the function to call once the child and everything it started are gone
// (before scratch is removed). A benchmark that writes a file in "." or in testdata then writes to
// its own copy, which the sandbox lets it write, and never to the tree perfgate exported and
// judges.
//
// Every child starts from a copy as the tree has it, unchanged by an earlier child's writes. Copies
// are reused: release keeps a copy for the next child of the same dir when nothing in it changed
// (no entry added, removed or written: every inode's change time is the same), and otherwise leaves
// it to be removed with scratch.
//
// Copied are dir's regular files (and symbolic links to regular files, as their content) and its
// testdata tree, within MaxCopiedFile and MaxCopied. Everything else the child could read in dir is
// there as a symbolic link to the original: other subdirectories, files over the bounds (WorkDir
// lists them in the Guarantee's NotCopied). The directories above dir, up to the root of its module
// (the nearest go.mod), are there too, their other entries linked, so that a test reading
// "../testdata/x" still finds it. Writes through a link reach the original, which Landlock keeps
// read-only, as before.
//
// An empty dir is returned as it is: the child inherits perfgate's working directory.
func (s *Sandbox) WorkDir(scratch, dir string) (wd string, release func(), err error) {
	release = func() {}
	if dir == "" {
		return "", release, nil
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", release, fmt.Errorf("sandbox: %w", err)
	}
	top := filepath.Join(scratch, "wd")
	wd, err = s.placeCopy(top, dir)
	if err != nil {
		os.RemoveAll(top)
		return "", release, err
	}
	if s == nil {
		return wd, release, nil
	}
	snap, err := snapshot(top)
	if err != nil {
		return wd, release, nil // not kept for reuse
	}
	return wd, func() { s.keep(dir, top, snap) }, nil
}

// placeCopy makes top, the copy of dir with its ancestors up to its module root, from a kept copy
// if there is one, and returns the copy of dir in it.
func (s *Sandbox) placeCopy(top, dir string) (string, error) {
	root := moduleRoot(dir)
	rel, err := filepath.Rel(filepath.Dir(root), dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	wd := filepath.Join(top, rel)
	if kept := s.takeKept(dir); kept != "" {
		if err := os.Rename(kept, top); err == nil {
			return wd, nil
		}
		os.RemoveAll(kept)
	}
	// The ancestors from the module root down to dir's parent: each a directory of links but for
	// the next step.
	orig, copy := filepath.Dir(root), top
	for i, step := range splitPath(rel) {
		if i > 0 {
			if err := linkEntries(orig, copy, step); err != nil {
				return "", err
			}
		}
		orig, copy = filepath.Join(orig, step), filepath.Join(copy, step)
		if err := os.MkdirAll(copy, 0o700); err != nil {
			return "", fmt.Errorf("sandbox: making the working directory: %w", err)
		}
	}
	c := &copier{budget: MaxCopied}
	if err := c.dir(dir, copy, true); err != nil {
		return "", err
	}
	if len(c.linked) > 0 && s != nil {
		s.noteNotCopied(c.linked)
	}
	return wd, nil
}

// takeKept returns a kept copy of dir, removed from the pool, or "".
func (s *Sandbox) takeKept(dir string) string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.kept[dir]
	if len(kept) == 0 {
		return ""
	}
	s.kept[dir] = kept[:len(kept)-1]
	return kept[len(kept)-1]
}

// keep moves the copy top of dir out of its child's scratch directory into the pool when it is as
// snap saw it.
func (s *Sandbox) keep(dir, top, snap string) {
	if now, err := snapshot(top); err != nil || now != snap {
		return // written to: removed with the scratch directory
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	kept := filepath.Join(s.cfg.Scratch, "wd-"+strconv.Itoa(s.seq))
	if os.Rename(top, kept) != nil {
		return
	}
	if s.kept == nil {
		s.kept = map[string][]string{}
	}
	s.kept[dir] = append(s.kept[dir], kept)
}

// moduleRoot returns the nearest directory at or above dir that holds a go.mod, or dir when there
// is none.
func moduleRoot(dir string) string {
	for d := dir; ; {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// splitPath splits a relative, clean path into its elements.
func splitPath(rel string) []string {
	var steps []string
	for rel != "." && rel != "" {
		d, f := filepath.Split(rel)
		steps = append(steps, f)
		rel = filepath.Clean(d)
	}
	slices.Reverse(steps)
	return steps
}

// linkEntries links every entry of orig but skip into copy.
func linkEntries(orig, copy, skip string) error {
	entries, err := os.ReadDir(orig)
	if err != nil {
		return nil // an unreadable ancestor: the child could not read it either
	}
	for _, e := range entries {
		if e.Name() == skip {
			continue
		}
		if err := os.Symlink(filepath.Join(orig, e.Name()), filepath.Join(copy, e.Name())); err != nil {
			return fmt.Errorf("sandbox: making the working directory: %w", err)
		}
	}
	return nil
}

// copier copies one package directory within a budget of bytes.
type copier struct {
	budget int64
	// paths relative to the package directory of the files linked for their size, with the size
	linked []string
	rel    string // the directory being copied, relative to the package directory
}

// dir copies the entries of orig into copy, which exists. In the package directory itself (top)
// subdirectories other than testdata are linked; beneath testdata everything is copied.
func (c *copier) dir(orig, copy string, top bool) error {
	entries, err := os.ReadDir(orig)
	if err != nil {
		return fmt.Errorf("sandbox: copying the package directory: %w", err)
	}
	for _, e := range entries {
		from, to := filepath.Join(orig, e.Name()), filepath.Join(copy, e.Name())
		rel := filepath.Join(c.rel, e.Name())
		fi, err := os.Stat(from) // through a link: the child would read what it points to
		switch {
		case err != nil:
			continue // a dangling link: nothing to read
		case fi.IsDir() && (!top || e.Name() == "testdata") && e.Type()&fs.ModeSymlink == 0:
			if err := os.Mkdir(to, 0o700); err != nil {
				return fmt.Errorf("sandbox: copying the package directory: %w", err)
			}
			saved := c.rel
			c.rel = rel
			err := c.dir(from, to, false)
			c.rel = saved
			if err != nil {
				return err
			}
			continue
		case fi.Mode().IsRegular() && fi.Size() <= MaxCopiedFile && fi.Size() <= c.budget:
			n, err := copyFile(from, to, fi.Mode().Perm())
			c.budget -= n
			if err == nil {
				continue
			}
			if !errors.Is(err, errNotRegular) && !errors.Is(err, fs.ErrPermission) {
				return fmt.Errorf("sandbox: copying the package directory: %w", err)
			}
			// unreadable, or no longer a regular file: linked, as the child would see it
			os.Remove(to)
		case fi.Mode().IsRegular():
			c.linked = append(c.linked, rel+" ("+sizeText(fi.Size())+")")
		case !fi.IsDir():
			continue // a device, socket or pipe: not the package's content
		}
		if err := os.Symlink(from, to); err != nil {
			return fmt.Errorf("sandbox: copying the package directory: %w", err)
		}
	}
	return nil
}

// sizeText is a file size in MiB, or KiB below one MiB.
func sizeText(n int64) string {
	if n < 1<<20 {
		return strconv.FormatInt((n+1<<10-1)>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n>>20, 10) + " MiB"
}

// errNotRegular is copyFile's error when what it opened is not a regular file (it changed since the
// Stat).
var errNotRegular = errors.New("not a regular file")

// copyFile copies the regular file from to the new file to, with mode perm made writable by its
// owner, and returns the bytes copied; at most MaxCopiedFile are, whatever the file grew to since
// its size was read.
func copyFile(from, to string, perm fs.FileMode) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0, errNotRegular
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, MaxCopiedFile))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// noteNotCopied remembers the files (relative to their package directory) that children read in
// place, for the Guarantee.
func (s *Sandbox) noteNotCopied(rels []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rels {
		if !slices.Contains(s.notCopied, r) {
			s.notCopied = append(s.notCopied, r)
		}
	}
}
