package gitsrc

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNoFile is ReadFile's error for a path that commit's tree does not hold as a regular file.
var ErrNoFile = errors.New("no such file in the commit")

// ReadFile returns the content of the regular file at the slash-separated path name in commit c's
// tree, reading at most limit bytes (more is an error). A path the tree lacks, or holds as a
// directory, link or submodule, is an error wrapping ErrNoFile. The work tree and the index are not
// read.
func (r *Repo) ReadFile(c *Commit, name string, limit int64) ([]byte, error) {
	obj := c.obj
	var err error
	if obj == nil {
		if obj, err = object.GetCommit(r.st, plumbing.NewHash(c.SHA)); err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", name, c.Short(), err)
		}
	}
	tree, err := obj.Tree()
	if err != nil {
		return nil, r.missing(fmt.Sprintf("reading %s at %s", name, c.Short()), obj.TreeHash, err)
	}
	entry, err := tree.FindEntry(name)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) ||
		err == nil && (!entry.Mode.IsFile() || entry.Mode == filemode.Symlink) {
		return nil, fmt.Errorf("reading %s at %s: %w", name, c.Short(), ErrNoFile)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", name, c.Short(), err)
	}
	blob, err := object.GetBlob(r.st, entry.Hash)
	if err != nil {
		return nil, r.missing(fmt.Sprintf("reading %s at %s", name, c.Short()), entry.Hash, err)
	}
	if blob.Size > limit {
		return nil, fmt.Errorf("reading %s at %s: %d bytes, more than the %d allowed", name, c.Short(), blob.Size, limit)
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", name, c.Short(), err)
	}
	defer rd.Close()
	return io.ReadAll(io.LimitReader(rd, limit))
}
