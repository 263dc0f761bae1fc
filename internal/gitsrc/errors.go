package gitsrc

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/suggest"
)

// ErrNotRepository is wrapped by Open's error when the path is not inside a git work tree.
var ErrNotRepository = errors.New("not a git repository (or any parent up to the root)")

// ErrNoDefaultBranch is wrapped by DefaultBase's error when no default branch could be found.
var ErrNoDefaultBranch = errors.New("no default branch to compare against")

// ErrNoWorktree is returned by ExportWorktree in a bare repository.
var ErrNoWorktree = errors.New("repository has no work tree")

// unshallowHint tells the user how to get the history a shallow clone lacks.
const unshallowHint = `fetch the full history: with actions/checkout set "fetch-depth: 0", ` +
	`or run "git fetch --unshallow"`

// UnknownRevisionError is a revision that does not name a commit.
type UnknownRevisionError struct {
	Rev  string // the revision as given, e.g. "mian~1"
	Name string // the part that did not resolve, e.g. "mian"
	// why, when it is not simply an unknown name ("commit 1a2b… has no parent")
	Reason      string
	Suggestions []string // existing branch, remote branch and tag names close to Name, best first
	// the repository is a shallow clone, so the commit may exist but not have been fetched
	Shallow bool
}

func (e *UnknownRevisionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown revision %q: ", e.Rev)
	if e.Reason != "" {
		b.WriteString(e.Reason)
		return b.String()
	}
	fmt.Fprintf(&b, "no branch, tag or commit named %q", e.Name)
	if len(e.Suggestions) > 0 {
		q := make([]string, len(e.Suggestions))
		for i, s := range e.Suggestions {
			q[i] = fmt.Sprintf("%q", s)
		}
		fmt.Fprintf(&b, "; did you mean %s?", strings.Join(q, " or "))
	}
	if e.Shallow {
		b.WriteString(" (this is a shallow clone; " + unshallowHint + ")")
	}
	return b.String()
}

// ShallowError is a commit that a request needs but that lies beyond the boundary of a shallow
// clone: go-git reports it as "object not found".
type ShallowError struct {
	// what was being computed: `resolving "HEAD~1"`, "merge-base of HEAD and origin/main"
	What     string
	Missing  string   // the SHA of a commit that is not present, "" when unknown
	Boundary []string // the shallow commits (the oldest present), sorted
}

func (e *ShallowError) Error() string {
	missing := "a commit that is not present"
	if e.Missing != "" {
		missing = "commit " + e.Missing + ", which is not present"
	}
	return fmt.Sprintf("%s: needs %s: the repository is a shallow clone; %s", e.What, missing, unshallowHint)
}

// SubmoduleError is a submodule (gitlink) entry in a tree being exported: its contents live in
// another repository, which perfgate does not fetch.
type SubmoduleError struct {
	Path string // slash-separated path of the entry in the tree
	SHA  string // the submodule commit it records
}

func (e *SubmoduleError) Error() string {
	return fmt.Sprintf("submodule %s (at %.12s) is not supported: perfgate exports a single repository's files", e.Path,
		e.SHA)
}

// UnsafeTreeError is a tree Export refuses: one that git itself would never write (git fsck reports
// it), made to write through a symbolic link or to replace one file by another.
type UnsafeTreeError struct {
	Path string // slash-separated path of the entry in the tree
	Why  string
}

func (e *UnsafeTreeError) Error() string {
	return fmt.Sprintf("refusing tree entry %s: %s (a crafted tree; git fsck reports it)", e.Path, e.Why)
}

// NoModuleError is a directory of an exported tree that no go.mod governs: none in it or in any
// parent up to the tree's root.
type NoModuleError struct {
	Tree string // the exported tree's root
	Rel  string // the directory looked in first, relative to Tree, slash-separated
	Rev  string // the revision exported (a short commit name), or "the working tree"
}

func (e *NoModuleError) Error() string {
	where := e.Rel
	if where == "." || where == "" {
		where = "the repository root"
	}
	return fmt.Sprintf("%s is in no Go module in %s: no go.mod in %s or any parent up to the repository root", where,
		e.Rev, where)
}

// nearRefs returns up to 4 of names close to name: a small edit distance (see suggest.Distance; at
// most a third of the length, at least 1 and at most 3), a prefix in either direction, or the same
// name in another case. Best first.
func nearRefs(name string, names []string) []string {
	if name == "" {
		return nil
	}
	maxDist := len(name) / 3
	maxDist = max(1, min(maxDist, 3))
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	seen := map[string]bool{}
	lower := strings.ToLower(name)
	for _, n := range names {
		if seen[n] || n == name {
			continue
		}
		seen[n] = true
		ln := strings.ToLower(n)
		d := suggest.Distance(lower, ln)
		rank := d
		// "origin/main" for "mai": compare with the part after the remote name too, ranked after
		// "main".
		if _, branch, ok := strings.Cut(ln, "/"); ok {
			db := suggest.Distance(lower, branch)
			d, rank = min(d, db), min(rank, db+1)
		}
		prefix := len(lower) >= 2 && (strings.HasPrefix(ln, lower) || strings.HasPrefix(lower, ln) && len(ln) >= 2)
		switch {
		case d <= maxDist:
			d = rank
		case prefix:
			d = maxDist + 1
		default:
			continue
		}
		cs = append(cs, cand{n, d})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 4; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
