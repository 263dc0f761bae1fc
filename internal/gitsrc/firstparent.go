package gitsrc

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// NotAncestorError is a pair of commits where the first is not on the second's first-parent path: a
// bisection from Good to Bad has no line of commits to search.
type NotAncestorError struct {
	Good, Bad *Commit
	// Ancestor is true when Good is an ancestor of Bad, but only through a merged branch: not on
	// the path that follows each commit's first parent.
	Ancestor bool
}

func (e *NotAncestorError) Error() string {
	if e.Ancestor {
		return fmt.Sprintf("%s is an ancestor of %s only through a merged branch, not on its first-parent path; "+
			"name a commit of the branch %s is on, such as the merge that brought %s in", e.Good.Short(),
			e.Bad.Short(), e.Bad.Short(), e.Good.Short())
	}
	return fmt.Sprintf("%s is not an ancestor of %s: the good revision must come before the bad one in its history",
		e.Good.Short(), e.Bad.Short())
}

// FirstParentPath returns the commits from good to bad that bad's first-parent chain passes
// through, good first and bad last, as git log --first-parent good..bad lists them (in reverse)
// plus good itself. It fails with a *NotAncestorError when good is not on that chain and with a
// *ShallowError when the chain leaves a shallow clone before reaching good.
func (r *Repo) FirstParentPath(good, bad *Commit) ([]*Commit, error) {
	var path []*Commit
	c := bad.obj
	for c.Hash != good.hash {
		path = append(path, newCommit(c))
		if len(c.ParentHashes) == 0 {
			return nil, r.notAncestor(good, bad)
		}
		p, err := object.GetCommit(r.st, c.ParentHashes[0])
		if err != nil {
			return nil, r.missing(fmt.Sprintf("walking the first parents of %s back to %s", bad.Short(),
				good.Short()), c.ParentHashes[0], err)
		}
		c = p
	}
	path = append(path, good)
	slices.Reverse(path)
	return path, nil
}

// notAncestor says why good is not on bad's first-parent path: not an ancestor at all, or only
// through a merge.
func (r *Repo) notAncestor(good, bad *Commit) error {
	e := &NotAncestorError{Good: good, Bad: bad}
	ok, err := good.obj.IsAncestor(bad.obj)
	if err != nil && !errors.Is(err, object.ErrParentNotFound) {
		return r.missing(fmt.Sprintf("checking whether %s is an ancestor of %s", good.Short(), bad.Short()),
			good.hash, err)
	}
	e.Ancestor = ok
	return e
}
