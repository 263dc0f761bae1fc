package gitsrc

import (
	"context"
	"fmt"
	"slices"
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
	ctx := context.Background()
	o, err := r.objects(ctx)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	c, err := o.commit(bad.SHA)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", bad.Short(), err)
	}
	var path []*Commit
	for c.commit.SHA != good.SHA {
		path = append(path, c.commit)
		if len(c.parents) == 0 {
			return nil, r.notAncestor(ctx, good, bad)
		}
		p, err := o.commit(c.parents[0])
		if err != nil {
			return nil, r.missing(fmt.Sprintf("walking the first parents of %s back to %s", bad.Short(),
				good.Short()), c.parents[0], err)
		}
		c = p
	}
	path = append(path, good)
	slices.Reverse(path)
	return path, nil
}

// notAncestor says why good is not on bad's first-parent path: not an ancestor at all, or only
// through a merge.
func (r *Repo) notAncestor(ctx context.Context, good, bad *Commit) error {
	e := &NotAncestorError{Good: good, Bad: bad}
	_, err := r.git(ctx, "merge-base", "--is-ancestor", good.SHA, bad.SHA)
	switch exitCode(err) {
	case -1, 0:
		if err != nil {
			return fmt.Errorf("checking whether %s is an ancestor of %s: %w", good.Short(), bad.Short(), err)
		}
		e.Ancestor = true
	case 1:
		// not an ancestor
	default:
		return r.missing(fmt.Sprintf("checking whether %s is an ancestor of %s", good.Short(), bad.Short()),
			good.SHA, errMissing)
	}
	return e
}
