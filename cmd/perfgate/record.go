package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/history"
	"github.com/perfgate/perfgate/internal/histstore"
	"github.com/perfgate/perfgate/record"
)

const recordUsage = `Usage: perfgate record [-C REPO] [-ref REF] [-push REMOTE] -from DIR

Stores the results of the commit that a comparison measured (the head side of
the results directory DIR, written by perfgate compare or the Action) in the
repository itself, on the ref refs/perfgate/history: one directory per commit
with result.json, env.json, and bench.txt and sizes.txt cut to that commit's
samples, which stock benchstat reads. Records are keyed by commit, so a
force-push of the branch loses none; two records at once lose nothing. With
-push it publishes the ref to REMOTE (fetch, merge, push; again when another
push got in first). perfgate history reads it.

Examples:
  perfgate compare -pkg ./cipher/des -o results HEAD~1 HEAD
  perfgate record -from results
  perfgate record -from results -push origin

Exit codes: 0 recorded, 2 usage, 3 could not record (results unreadable, git failed).

Flags:
`

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("record", recordUsage)
	from := fs.String("from", "", "results directory whose head commit to record")
	repo := fs.String("C", ".", "the repository")
	ref := fs.String("ref", histstore.DefaultRef, "the ref the history lives on")
	push := fs.String("push", "", "remote to publish the history to after recording, e.g. origin")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *from == "" || fs.NArg() != 0 {
		return usageError(stderr, "record takes one results directory, with -from",
			"perfgate record -from perfgate-results")
	}
	commit, files, err := history.RecordFiles(*from)
	if err != nil {
		errorf(stderr, "%v", err)
		hintf(stderr, "-from names the directory 'perfgate compare -o DIR' wrote, for a committed head")
		return record.ExitCannotRun
	}
	store := &histstore.Store{Dir: *repo, Ref: *ref}
	if err := store.Add(ctx, histstore.Record{Commit: commit, Files: files}); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	names := slices.Sorted(keysOf(files))
	fmt.Fprintf(stdout, "recorded %s (%s) on %s\n", history.Short(commit), strings.Join(names, ", "), *ref)
	if *push != "" {
		if err := store.Push(ctx, *push); err != nil {
			errorf(stderr, "%v", err)
			hintf(stderr, "the record is on the local %s; 'perfgate record -push' again, or git push %s %s",
				*ref, *push, *ref)
			return record.ExitCannotRun
		}
		fmt.Fprintf(stdout, "pushed %s to %s\n", *ref, *push)
	}
	return record.ExitPass
}

func keysOf[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
