package pipeline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/record"
)

// export resolves both revisions and writes their trees into the work directory.
func (p *pipeline) export(ctx context.Context) (err error) {
	// Until both trees are out, the Result names the revisions as they were asked for.
	asked := [2]record.Revision{p.base.rev, p.head.rev}
	defer func() {
		if err != nil {
			p.base.rev, p.head.rev = asked[0], asked[1]
		}
	}()
	repo, err := gitsrc.Open(p.cfg.Dir)
	if err != nil {
		return err
	}
	p.rel = repo.Rel()
	var baseCommit *gitsrc.Commit
	if p.cfg.Base == "" {
		c, branch, err := repo.DefaultBase()
		if err != nil {
			return err
		}
		baseCommit = c
		p.base.rev = record.Revision{Ref: "merge-base(HEAD, " + branch + ")"}
	} else {
		c, err := repo.Resolve(p.cfg.Base)
		if err != nil {
			return err
		}
		baseCommit = c
		p.base.rev = record.Revision{Ref: p.cfg.Base}
	}
	p.base.rev.Commit, p.base.rev.Subject = baseCommit.SHA, baseCommit.Subject
	p.base.name, p.head.name = record.Base, record.Head

	var headCommit *gitsrc.Commit
	if p.cfg.Head == "" {
		if headCommit, err = repo.Head(); err != nil {
			return err
		}
		p.head.rev = record.Revision{Ref: "working tree"}
	} else {
		if headCommit, err = repo.Resolve(p.cfg.Head); err != nil {
			return err
		}
		p.head.rev = record.Revision{Ref: p.cfg.Head}
		if note := uncommittedNote(ctx, repo, p.cfg.Head, headCommit); note != "" {
			p.logf("%s", note)
			p.revNotes = append(p.revNotes, note)
		}
	}
	p.head.rev.Commit, p.head.rev.Subject = headCommit.SHA, headCommit.Subject

	p.logf("exporting base %s (%s)", p.base.rev.Ref, baseCommit.Short())
	bt, err := repo.ExportTemp(ctx, baseCommit, p.work)
	if err != nil {
		return fmt.Errorf("exporting base: %w", err)
	}
	var ht *gitsrc.Tree
	if p.cfg.Head == "" {
		p.logf("copying the working tree as head")
		ht, err = repo.ExportWorktreeTemp(ctx, p.work)
	} else {
		p.logf("exporting head %s (%s)", p.cfg.Head, headCommit.Short())
		ht, err = repo.ExportTemp(ctx, headCommit, p.work)
	}
	if err != nil {
		return fmt.Errorf("exporting head: %w", err)
	}
	p.head.rev.Dirty = ht.Dirty
	p.base.tree, p.head.tree = bt, ht
	for _, s := range []*side{&p.base, &p.head} {
		s.bin = filepath.Join(p.work, string(s.name)+".test")
	}
	return nil
}
