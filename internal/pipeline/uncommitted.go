package pipeline

import (
	"context"
	"time"

	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/text"
)

// uncommittedNote says that the work tree's uncommitted edits are left out when head, given
// explicitly as rev, is the commit the work tree is on and the work tree has edits: "perfgate
// compare main HEAD" compares commits, and a user who edited since may think otherwise. "" when
// nothing is left out, or when git cannot tell (the note is advice; the comparison does not depend
// on it).
func uncommittedNote(ctx context.Context, repo *gitsrc.Repo, rev string, head *gitsrc.Commit) string {
	current, err := repo.Head()
	if err != nil || current.SHA != head.SHA {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	paths, err := repo.Uncommitted(ctx)
	if err != nil || len(paths) == 0 {
		return ""
	}
	files := text.Plural(len(paths), "file")
	return "head is " + rev + " as committed: the uncommitted edits to " + files + " in the work tree are not " +
		"included (leave out HEAD to compare the working tree)"
}
