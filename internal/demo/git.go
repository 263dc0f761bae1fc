package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The fixed identity and clock that make the SHAs reproducible. A commit's
// time is epoch plus one hour per step from the root, so adding a variant
// never changes the SHAs of existing commits.
var (
	author = object.Signature{Name: "Minides Demo", Email: "demo@example.com"}
	epoch  = time.Date(2026, time.January, 5, 9, 0, 0, 0, time.UTC)
)

// Tag names the annotated tag on the root commit.
const (
	tagName    = "v0.1.0"
	tagMessage = "minides v0.1.0: textbook DES\n"
)

// writeRepo creates the repository in dir and returns its commits. It writes with go-git's storage
// of the git directory alone (not go-git's root package, whose transports perfgate does not use).
func writeRepo(dir string, commits []commit) (*Repo, error) {
	st, err := initRepo(dir)
	if err != nil {
		return nil, err
	}
	shas, trees, err := writeCommits(st, commits)
	if err != nil {
		return nil, err
	}
	if err := checkOutMain(st, dir, shas, trees[mainCommit]); err != nil {
		return nil, err
	}
	repo := &Repo{Dir: dir, Commits: map[string]string{}}
	for name, h := range shas {
		repo.Commits[name] = h.String()
	}
	return repo, nil
}

// initRepo creates an empty repository in dir, which must be empty or not exist, with main as its
// default branch: HEAD names refs/heads/main and the configuration says init.defaultBranch main.
func initRepo(dir string) (*filesystem.Storage, error) {
	if err := checkEmptyDir(dir); err != nil {
		return nil, err
	}
	st := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
	if err := st.Init(); err != nil {
		return nil, fmt.Errorf("git init: %w", err)
	}
	head := plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("main"))
	if err := st.SetReference(head); err != nil {
		return nil, fmt.Errorf("git init: %w", err)
	}
	cfg, err := st.Config()
	if err != nil {
		return nil, fmt.Errorf("reading git config: %w", err)
	}
	cfg.Core.IsBare = false
	cfg.Init.DefaultBranch = "main"
	if err := st.SetConfig(cfg); err != nil {
		return nil, fmt.Errorf("writing git config: %w", err)
	}
	return st, nil
}

// writeCommits stores commits, each a parent's tree with its own deletions and files, and points a
// branch named after each at it. It returns the commits' hashes and full file trees (path →
// content) by name.
func writeCommits(st *filesystem.Storage, commits []commit) (map[string]plumbing.Hash, map[string]map[string][]byte, error) {
	trees := map[string]map[string][]byte{} // commit name → full file tree
	shas := map[string]plumbing.Hash{}
	for _, c := range commits {
		files := maps.Clone(trees[c.parent])
		if files == nil {
			files = map[string][]byte{}
		}
		for _, p := range c.deletes {
			if _, ok := files[p]; !ok {
				return nil, nil, fmt.Errorf("commit %s (%s): delete %s: no such file in %s", c.name, c.source, p, c.parent)
			}
			delete(files, p)
		}
		for _, f := range c.files {
			files[f.Name] = f.Data
		}
		trees[c.name] = files

		tree, err := writeTree(st, files)
		if err != nil {
			return nil, nil, fmt.Errorf("commit %s: %w", c.name, err)
		}
		sig := author
		sig.When = epoch.Add(time.Duration(c.depth) * time.Hour)
		obj := &object.Commit{
			Author:    sig,
			Committer: sig,
			Message:   c.message + "\n",
			TreeHash:  tree,
		}
		if c.parent != "" {
			obj.ParentHashes = []plumbing.Hash{shas[c.parent]}
		}
		h, err := storeObject(st, obj)
		if err != nil {
			return nil, nil, fmt.Errorf("commit %s: %w", c.name, err)
		}
		shas[c.name] = h
		ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(c.name), h)
		if err := st.SetReference(ref); err != nil {
			return nil, nil, fmt.Errorf("branch %s: %w", c.name, err)
		}
	}
	return shas, trees, nil
}

// checkOutMain points main at the main commit, tags the root commit with an annotated tag and
// checks main out: files holds main's tree (path → content), written into dir, and the index
// records them as git would, so that the checkout is clean to git status.
func checkOutMain(st *filesystem.Storage, dir string, shas map[string]plumbing.Hash, files map[string][]byte) error {
	main := plumbing.NewHashReference(plumbing.NewBranchReferenceName("main"), shas[mainCommit])
	if err := st.SetReference(main); err != nil {
		return fmt.Errorf("branch main: %w", err)
	}
	tagger := author
	tagger.When = epoch
	tag := &object.Tag{
		Name:       tagName,
		Tagger:     tagger,
		Message:    tagMessage,
		TargetType: plumbing.CommitObject,
		Target:     shas[rootCommit],
	}
	th, err := storeObject(st, tag)
	if err != nil {
		return fmt.Errorf("tag %s: %w", tagName, err)
	}
	if err := st.SetReference(plumbing.NewHashReference(plumbing.NewTagReferenceName(tagName), th)); err != nil {
		return fmt.Errorf("tag %s: %w", tagName, err)
	}
	idx := &index.Index{Version: 2}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		e, err := checkOutFile(dir, name, files[name])
		if err != nil {
			return fmt.Errorf("checking out main: %w", err)
		}
		idx.Entries = append(idx.Entries, e)
	}
	if err := st.SetIndex(idx); err != nil {
		return fmt.Errorf("checking out main: writing the index: %w", err)
	}
	return nil
}

// checkOutFile writes one file of the checkout (every file of the demo is a regular, not
// executable, file) and returns its index entry.
func checkOutFile(dir, name string, data []byte) (*index.Entry, error) {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	e := &index.Entry{
		Hash:       plumbing.ComputeHash(plumbing.BlobObject, data),
		Name:       name,
		Mode:       filemode.Regular,
		Size:       uint32(fi.Size()),
		ModifiedAt: fi.ModTime(),
		CreatedAt:  fi.ModTime(),
	}
	fillStat(e, fi)
	return e, nil
}

// checkEmptyDir accepts a directory that does not exist (and creates it)
// or one that is empty.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("directory is not empty (%s, …)", entries[0].Name())
	}
	return nil
}

// writeTree stores the blobs and trees of files (path → content) and
// returns the root tree's hash.
func writeTree(s storer.EncodedObjectStorer, files map[string][]byte) (plumbing.Hash, error) {
	// Group the entries of each directory: direct files, and subdirectories.
	blobs := map[string][]byte{}
	subdirs := map[string]map[string][]byte{}
	for p, data := range files {
		dir, rest, nested := strings.Cut(p, "/")
		if !nested {
			blobs[p] = data
			continue
		}
		if subdirs[dir] == nil {
			subdirs[dir] = map[string][]byte{}
		}
		subdirs[dir][rest] = data
	}
	var tree object.Tree
	for _, name := range slices.Sorted(maps.Keys(blobs)) {
		h, err := storeBlob(s, blobs[name])
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%s: %w", name, err)
		}
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for _, name := range slices.Sorted(maps.Keys(subdirs)) {
		if _, clash := blobs[name]; clash {
			return plumbing.ZeroHash, fmt.Errorf("%s is both a file and a directory", name)
		}
		h, err := writeTree(s, subdirs[name])
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%s/%w", name, err)
		}
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// Git orders entries as if directory names ended in a slash.
	sort.Sort(object.TreeEntrySorter(tree.Entries))
	return storeObject(s, &tree)
}

// storeBlob writes one file's content as a blob.
func storeBlob(s storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := bytes.NewReader(data).WriteTo(w); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// encoder is a tree or commit object.
type encoder interface {
	Encode(plumbing.EncodedObject) error
}

// storeObject encodes o and writes it.
func storeObject(s storer.EncodedObjectStorer, o encoder) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}
