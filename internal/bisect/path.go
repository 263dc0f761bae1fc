package bisect

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/internal/gitsrc"
)

// ErrSameCommit is wrapped by FirstParentPath's error when GOOD and BAD name one commit.
var ErrSameCommit = errors.New("nothing to search")

// FirstParentPath resolves good and bad in the repository that holds dir and returns the
// first-parent path from good to bad, good first. Its errors are gitsrc's typed ones:
// *gitsrc.UnknownRevisionError, *gitsrc.NotAncestorError, *gitsrc.ShallowError (the fix: fetch the
// whole history, fetch-depth: 0).
func FirstParentPath(dir, good, bad string) ([]Commit, error) {
	repo, err := gitsrc.Open(dir)
	if err != nil {
		return nil, err
	}
	g, err := repo.Resolve(good)
	if err != nil {
		return nil, err
	}
	b, err := repo.Resolve(bad)
	if err != nil {
		return nil, err
	}
	if g.SHA == b.SHA {
		return nil, fmt.Errorf("GOOD %s and BAD %s are the same commit %s: %w", good, bad, g.Short(), ErrSameCommit)
	}
	cs, err := repo.FirstParentPath(g, b)
	if err != nil {
		return nil, err
	}
	path := make([]Commit, len(cs))
	for i, c := range cs {
		path[i] = Commit{SHA: c.SHA, Subject: c.Subject}
	}
	return path, nil
}
