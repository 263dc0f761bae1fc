package gitsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNoFile is ReadFile's error for a path that commit's tree does not hold as a regular file.
var ErrNoFile = errors.New("no such file in the commit")

// ReadFile returns the content of the regular file at the slash-separated path name in commit c's
// tree, reading at most limit bytes (more is an error). A path the tree lacks, or holds as a
// directory, link or submodule, is an error wrapping ErrNoFile. The work tree and the index are not
// read.
func (r *Repo) ReadFile(c *Commit, name string, limit int64) ([]byte, error) {
	ctx := context.Background()
	what := fmt.Sprintf("reading %s at %s", name, c.Short())
	out, err := r.git(ctx, "ls-tree", "-z", "-l", "--full-tree", c.SHA, "--", name)
	if err != nil {
		return nil, r.missing(what, "", err)
	}
	var entry *treeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if e, ok := parseTreeEntry(string(rec)); ok && e.path == name {
			entry = &e
			break
		}
	}
	if entry == nil || !entry.mode.isFile() {
		return nil, fmt.Errorf("%s: %w", what, ErrNoFile)
	}
	if entry.size > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d allowed", what, entry.size, limit)
	}
	data, err := r.git(ctx, "cat-file", "blob", entry.sha)
	if err != nil {
		return nil, r.missing(what, entry.sha, err)
	}
	return data, nil
}

// treeEntry is one line of git ls-tree -z (with -l: the blob's size).
type treeEntry struct {
	mode fileMode
	sha  string
	size int64 // -1 when not listed
	path string
}

// parseTreeEntry parses "<mode> SP <type> SP <object> [SP <size>] TAB <path>".
func parseTreeEntry(rec string) (treeEntry, bool) {
	meta, path, ok := strings.Cut(rec, "\t")
	if !ok {
		return treeEntry{}, false
	}
	f := strings.Fields(meta)
	if len(f) < 3 {
		return treeEntry{}, false
	}
	m, err := strconv.ParseUint(f[0], 8, 32)
	if err != nil {
		return treeEntry{}, false
	}
	e := treeEntry{mode: fileMode(m), sha: f[2], size: -1, path: path}
	if len(f) == 4 {
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			e.size = n
		}
	}
	return e, true
}

// fileMode is a tree entry's mode, as git writes it.
type fileMode uint32

const (
	modeDir        fileMode = 0o040000
	modeRegular    fileMode = 0o100644
	modeDeprecated fileMode = 0o100664 // group-writable regular file, from old repositories
	modeExecutable fileMode = 0o100755
	modeSymlink    fileMode = 0o120000
	modeSubmodule  fileMode = 0o160000
)

// isFile reports whether m is a regular file, executable or not.
func (m fileMode) isFile() bool {
	return m == modeRegular || m == modeDeprecated || m == modeExecutable
}
