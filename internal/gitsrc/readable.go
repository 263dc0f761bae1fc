package gitsrc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// fullCloneHint tells the user how to get a repository go-git can read in full.
const fullCloneHint = `check out with full history and no filter: with actions/checkout set "fetch-depth: 0" ` +
	`and no "filter:", or clone without --filter`

// UnsupportedRepositoryError is a repository perfgate cannot read, found by Open before any work is
// spent: a partial clone (its objects are fetched on demand, which go-git does not do), a SHA-256
// repository or one whose references are stored in a reftable.
type UnsupportedRepositoryError struct {
	Dir string // the repository's git directory
	// what it uses, by its configuration: "a partial clone (remote.origin.promisor=true)"
	Feature string
	Fix     string // what to do instead
}

func (e *UnsupportedRepositoryError) Error() string {
	return fmt.Sprintf("%s is %s, which perfgate's reader of repositories (go-git/v5) cannot read; %s", e.Dir,
		e.Feature, e.Fix)
}

// gitDirs finds the git directory of the repository containing the directory abs, and the common
// directory that a linked work tree shares with the main one; "" when none was found (go-git then
// says why).
func gitDirs(abs string) (gitDir, commonDir string) {
	for d := abs; ; {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Stat(dot); err == nil && fi.IsDir() {
			gitDir = dot
		} else if data, err := os.ReadFile(dot); err == nil {
			// A linked work tree or a submodule: "gitdir: <path>".
			if p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
				if !filepath.IsAbs(p) {
					p = filepath.Join(d, p)
				}
				gitDir = p
			}
		} else if isGitDir(d) {
			gitDir = d // a bare repository, or the git directory itself
		}
		if gitDir != "" {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
	commonDir = gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		p := strings.TrimSpace(string(data))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		commonDir = p
	}
	return gitDir, commonDir
}

// isGitDir reports whether d looks like a git directory: HEAD, objects and refs.
func isGitDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// checkReadable reads the configuration of the repository whose common git directory is dir and
// returns an *UnsupportedRepositoryError for what go-git cannot read. The work tree's own
// configuration (config.worktree) is read as well.
func checkReadable(dir, gitDir string) error {
	cfg := config.New()
	for _, file := range []string{filepath.Join(dir, "config"), filepath.Join(gitDir, "config.worktree")} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		err = config.NewDecoder(f).Decode(cfg)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
	}
	unsupported := func(feature, fix string) error {
		return &UnsupportedRepositoryError{Dir: dir, Feature: feature, Fix: fix}
	}
	ext := cfg.Section("extensions")
	for _, o := range ext.Options {
		if strings.EqualFold(o.Key, "objectFormat") && !strings.EqualFold(o.Value, "sha1") {
			return unsupported("a "+strings.ToUpper(o.Value)+" repository (extensions.objectFormat="+o.Value+")",
				"go-git/v5 reads SHA-1 repositories only: compare in a SHA-1 clone")
		}
		if strings.EqualFold(o.Key, "refStorage") && !strings.EqualFold(o.Value, "files") {
			return unsupported("a repository whose references are in a "+o.Value+" (extensions.refStorage="+
				o.Value+")", `convert it with "git refs migrate --ref-format=files", or clone it anew`)
		}
		if strings.EqualFold(o.Key, "partialClone") {
			return unsupported("a partial clone (extensions.partialClone="+o.Value+")", fullCloneHint)
		}
	}
	var promisors []string
	for _, s := range cfg.Section("remote").Subsections {
		if strings.EqualFold(s.Option("promisor"), "true") {
			promisors = append(promisors, s.Name)
		}
	}
	if len(promisors) > 0 {
		sort.Strings(promisors)
		return unsupported("a partial clone (remote."+promisors[0]+".promisor=true)", fullCloneHint)
	}
	var others []string
	for _, o := range ext.Options {
		switch strings.ToLower(o.Key) {
		case "noop", "noop-v1":
		default:
			others = append(others, "extensions."+o.Key+"="+o.Value)
		}
	}
	if len(others) > 0 {
		return unsupported("a repository using "+strings.Join(others, ", "),
			"go-git/v5 knows none of these extensions: compare in a plain clone")
	}
	return nil
}

// missing turns an error from reading objects into a *ShallowError when the repository is shallow
// and the error is a missing object; any other missing object is named with the fix (a partial
// clone that Open could not tell, or a damaged repository); other errors are wrapped with what.
// hash is the missing object when the caller knows it.
func (r *Repo) missing(what string, hash plumbing.Hash, err error) error {
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !r.Shallow() {
		obj := "an object"
		if !hash.IsZero() {
			obj = "object " + hash.String()
		}
		return fmt.Errorf("%s: %s is not in the repository (a partial clone, or a damaged one): %s: %w", what, obj,
			fullCloneHint, err)
	}
	se := &ShallowError{What: what}
	if !hash.IsZero() {
		se.Missing = hash.String()
	}
	boundary, _ := r.st.Shallow()
	for _, h := range boundary {
		se.Boundary = append(se.Boundary, h.String())
		if se.Missing != "" {
			continue
		}
		// The commits just beyond the boundary are the shallow commits' parents.
		if c, cerr := object.GetCommit(r.st, h); cerr == nil && len(c.ParentHashes) > 0 {
			se.Missing = c.ParentHashes[0].String()
		}
	}
	sort.Strings(se.Boundary)
	return se
}
