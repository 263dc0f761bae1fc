package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/gobuild"
)

// unchangedPackages returns the packages of pkgs (relative paths) whose own files, and the files of
// every package of the module they or their tests depend on, are the same in base and head
// (changed: true). The dependencies come from go list -deps -test on each side; go.mod, go.sum and
// go.work count for every package, since they decide the versions of everything outside the module.
// A package whose dependencies cannot be listed on a side counts as changed.
func (p *pipeline) unchangedPackages(ctx context.Context, pkgs []string) ([]string, error) {
	var same []string
	for _, pkg := range pkgs {
		var digests [2]string
		for i, s := range []*side{&p.base, &p.head} {
			deps, err := gobuild.ModuleDeps(ctx, p.listConfig(s), pkg)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				digests[i] = "unlisted " + string(s.name)
				continue
			}
			d, err := treeDigest(s.tree.Dir, deps)
			if err != nil {
				return nil, err
			}
			digests[i] = d
		}
		if digests[0] == digests[1] {
			same = append(same, pkg)
		}
	}
	return same, nil
}

// treeDigest hashes, under root, the files of each directory of dirs (their regular files, go.mod
// and go.sum among them for a module's root, not their subdirectories but testdata/ whole) and
// go.work at root, with their names: two trees with equal digests hold the same source for those
// packages.
func treeDigest(root string, dirs []string) (string, error) {
	h := sha256.New()
	add := func(rel string) error {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		h.Write([]byte(rel + "\x00" + hex.EncodeToString(sum[:]) + "\n"))
		return nil
	}
	for _, f := range []string{"go.work", "go.work.sum"} {
		if err := add(f); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	dirs = slices.Clone(dirs)
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	for _, dir := range dirs {
		h.Write([]byte("dir " + dir + "\n"))
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			rel := strings.TrimPrefix(dir+"/"+e.Name(), "./")
			switch {
			case e.Type().IsRegular():
				if err := add(rel); err != nil {
					return "", err
				}
			case e.IsDir() && e.Name() == "testdata":
				err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(rel)), func(path string, d fs.DirEntry,
					err error) error {
					if err != nil || !d.Type().IsRegular() {
						return err
					}
					r, err := filepath.Rel(root, path)
					if err != nil {
						return err
					}
					return add(filepath.ToSlash(r))
				})
				if err != nil {
					return "", err
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
