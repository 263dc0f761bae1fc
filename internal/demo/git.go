package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
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

// writeRepo creates the repository in dir and returns its commits.
func writeRepo(dir string, commits []commit) (*Repo, error) {
	r, err := initRepo(dir)
	if err != nil {
		return nil, err
	}
	shas, err := writeCommits(r, commits)
	if err != nil {
		return nil, err
	}
	if err := checkOutMain(r, shas); err != nil {
		return nil, err
	}
	repo := &Repo{Dir: dir, Commits: map[string]string{}}
	for name, h := range shas {
		repo.Commits[name] = h.String()
	}
	return repo, nil
}

// initRepo creates an empty repository in dir, which must be empty or not exist, with main as its
// default branch.
func initRepo(dir string) (*git.Repository, error) {
	if err := checkEmptyDir(dir); err != nil {
		return nil, err
	}
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return nil, fmt.Errorf("git init: %w", err)
	}
	cfg, err := r.Config()
	if err != nil {
		return nil, fmt.Errorf("reading git config: %w", err)
	}
	cfg.Init.DefaultBranch = "main"
	if err := r.Storer.SetConfig(cfg); err != nil {
		return nil, fmt.Errorf("writing git config: %w", err)
	}
	return r, nil
}

// writeCommits stores commits, each a parent's tree with its own deletions and files, and points a
// branch named after each at it. It returns the commits' hashes by name.
func writeCommits(r *git.Repository, commits []commit) (map[string]plumbing.Hash, error) {
	trees := map[string]map[string][]byte{} // commit name → full file tree
	shas := map[string]plumbing.Hash{}
	for _, c := range commits {
		files := maps.Clone(trees[c.parent])
		if files == nil {
			files = map[string][]byte{}
		}
		for _, p := range c.deletes {
			if _, ok := files[p]; !ok {
				return nil, fmt.Errorf("commit %s (%s): delete %s: no such file in %s", c.name, c.source, p, c.parent)
			}
			delete(files, p)
		}
		for _, f := range c.files {
			files[f.Name] = f.Data
		}
		trees[c.name] = files

		tree, err := writeTree(r.Storer, files)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.name, err)
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
		h, err := storeObject(r.Storer, obj)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.name, err)
		}
		shas[c.name] = h
		ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(c.name), h)
		if err := r.Storer.SetReference(ref); err != nil {
			return nil, fmt.Errorf("branch %s: %w", c.name, err)
		}
	}
	return shas, nil
}

// checkOutMain points main at the main commit, tags the root commit and checks main out.
func checkOutMain(r *git.Repository, shas map[string]plumbing.Hash) error {
	main := plumbing.NewHashReference(plumbing.NewBranchReferenceName("main"), shas[mainCommit])
	if err := r.Storer.SetReference(main); err != nil {
		return fmt.Errorf("branch main: %w", err)
	}
	tagger := author
	tagger.When = epoch
	if _, err := r.CreateTag(tagName, shas[rootCommit], &git.CreateTagOptions{Tagger: &tagger,
		Message: tagMessage}); err != nil {
		return fmt.Errorf("tag %s: %w", tagName, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return fmt.Errorf("work tree: %w", err)
	}
	if err := wt.Reset(&git.ResetOptions{Commit: shas[mainCommit], Mode: git.HardReset}); err != nil {
		return fmt.Errorf("checking out main: %w", err)
	}
	return nil
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
