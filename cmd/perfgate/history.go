package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/changepoint"
	"github.com/perfgate/perfgate/internal/history"
	"github.com/perfgate/perfgate/internal/histstore"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

const historyUsage = `Usage: perfgate history [flags]

Reads the results perfgate record kept on refs/perfgate/history (or, with
-from, the results directories in a folder), orders them along the
first-parent path of the branch (-branch, default HEAD), and finds the change
points of every benchmark's series: E-divisive means with a permutation test
(false alarms on a series without a change: alpha, 0.5% by default). For each
change point it prints the commits before and after, the change, its p-value,
and the perfgate bisect command that finds the commit. Records of commits no
longer on the branch (a force-push rewrote it) are listed apart.

With -o it also writes DIR/history.html (one self-contained page, a chart per
series) and DIR/bencher/SHA.json (Bencher Metric Format, one report per commit:
bencher run --adapter json --file DIR/bencher/SHA.json --hash SHA).

Examples:
  perfgate history
  perfgate history -fetch origin -branch origin/main -o history
  perfgate history -new -markdown "$GITHUB_STEP_SUMMARY"   # only what the newest commit revealed
  perfgate history -from results-of-each-commit/

Exit codes: 0 read (change points or not), 2 usage, 3 could not read the history.

Flags:
`

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("history", historyUsage)
	repo := fs.String("C", ".", "the repository")
	ref := fs.String("ref", histstore.DefaultRef, "the ref the history lives on")
	branch := fs.String("branch", "HEAD", "the branch whose first-parent path orders the records")
	fetch := fs.String("fetch", "", "remote to fetch the history from first, e.g. origin")
	from := fs.String("from", "", "folder of results directories to read instead of the ref")
	out := fs.String("o", "", "directory to write history.html and bencher/SHA.json into")
	onlyNew := fs.Bool("new", false, "report only the change points that the newest recorded commit revealed")
	markdown := fs.String("markdown", "", "append the change points as Markdown to this file (with -new: only when there are)")
	alpha := fs.Float64("alpha", changepoint.DefaultAlpha, "significance of each change point: the false-alarm rate of a flat series")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "history takes no arguments", "perfgate history -branch origin/main")
	}
	if *alpha < 0.0001 || *alpha > 0.2 {
		errorf(stderr, "-alpha: invalid value %g: want a number from 0.0001 to 0.2", *alpha)
		return record.ExitUsage
	}
	store := &histstore.Store{Dir: *repo, Ref: *ref}
	entries, path, err := readHistory(ctx, store, *from, *fetch, *branch, stderr)
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	h := history.Build(entries, path)
	h.Detect(changepoint.Config{Alpha: *alpha})

	var tbl strings.Builder
	if err := h.Text(&tbl, *onlyNew); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	fmt.Fprint(stdout, text.Inert(tbl.String()))
	if *markdown != "" && (!*onlyNew || len(h.Changes(true)) > 0) {
		if err := appendMarkdown(*markdown, h, *onlyNew); err != nil {
			errorf(stderr, "%v", err)
			return record.ExitCannotRun
		}
	}
	if *out != "" {
		if err := writeHistoryFiles(*out, h); err != nil {
			errorf(stderr, "%v", err)
			return record.ExitCannotRun
		}
		fmt.Fprintf(stderr, "perfgate: wrote %s and %s\n", filepath.Join(*out, "history.html"),
			filepath.Join(*out, "bencher"))
	}
	return record.ExitPass
}

// readHistory returns the recorded entries and the path that orders them: the store's records along
// branch, or the results directories of from, along branch when the repository has it, else by the
// time the runs started.
func readHistory(ctx context.Context, store *histstore.Store, from, fetch, branch string, stderr io.Writer) (
	[]history.Entry, []history.Commit, error) {
	var entries []history.Entry
	if from != "" {
		var err error
		if entries, err = history.LoadDirs(from); err != nil {
			return nil, nil, err
		}
	} else {
		if fetch != "" {
			if err := store.Fetch(ctx, fetch); err != nil {
				return nil, nil, err
			}
		}
		recs, err := store.Load(ctx)
		if err != nil {
			return nil, nil, err
		}
		if len(recs) == 0 {
			hintf(stderr, "no records on %s: 'perfgate record -from DIR' adds one (with -fetch REMOTE, read the remote's)",
				store.Ref)
		}
		for _, r := range recs {
			e, err := history.ParseEntry(r.Commit, r.Files["result.json"])
			if err != nil {
				hintf(stderr, "skipping a record: %v", err)
				continue
			}
			entries = append(entries, e)
		}
	}
	commits, err := store.FirstParent(ctx, branch)
	if err != nil {
		if from == "" {
			return nil, nil, err
		}
		hintf(stderr, "no repository to order the results by (%v): ordering them by the time their runs started",
			firstLine(err.Error()))
		return entries, history.ByTime(entries), nil
	}
	if store.Shallow(ctx) {
		hintf(stderr, "the repository is a shallow clone: records of commits beyond its boundary show as orphaned; "+
			"check out with fetch-depth: 0")
	}
	path := make([]history.Commit, len(commits))
	onPath := map[string]bool{}
	for i, c := range commits {
		path[i] = history.Commit{SHA: c.SHA, Subject: c.Subject}
		onPath[c.SHA] = true
	}
	if from != "" && len(entries) > 0 && !slices.ContainsFunc(entries, func(e history.Entry) bool { return onPath[e.Commit] }) {
		hintf(stderr, "none of the results in %s is on the first-parent path of %s: ordering them by the time their "+
			"runs started", from, branch)
		return entries, history.ByTime(entries), nil
	}
	return entries, path, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func appendMarkdown(path string, h *history.History, onlyNew bool) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := h.Markdown(f, onlyNew); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeHistoryFiles(dir string, h *history.History) error {
	page, err := h.HTML("perfgate history")
	if err != nil {
		return err
	}
	bencherDir := filepath.Join(dir, "bencher")
	if err := os.MkdirAll(bencherDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "history.html"), page, 0o644); err != nil {
		return err
	}
	reports := h.Bencher()
	for _, commit := range slices.Sorted(keysOf(reports)) {
		if err := os.WriteFile(filepath.Join(bencherDir, commit+".json"), reports[commit], 0o644); err != nil {
			return err
		}
	}
	return nil
}
