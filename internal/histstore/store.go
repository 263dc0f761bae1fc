// Package histstore keeps perfgate's history of a branch in the repository itself: on a ref of its
// own (refs/perfgate/history by default) whose commits chain the records, one directory per
// recorded commit,
//
//	<sha>/result.json   the whole Result of the run that measured <sha> (its head side)
//	<sha>/bench.txt     that side's benchmark samples in Go benchmark format
//	                    (stock benchstat reads them)
//	<sha>/sizes.txt     that side's section sizes, in the same format
//	<sha>/env.json      the machine
//
// so that nothing outside the repository is needed. Records are keyed by the commit's SHA, never by
// a position: rewriting the branch (a force-push) leaves them where they are, and the reader
// decides which are on the branch's first-parent path now (FirstParent).
//
// Writes never lose a record. Add writes the new tree and commit with git's plumbing and moves the
// ref with a compare-and-swap (git update-ref REF NEW OLD); when another writer moved it first, Add
// reads the ref again and redoes its change on top. Push fetches the remote's ref, merges it into
// the local one (the union of the two trees; a commit recorded on both sides keeps the local
// record) and pushes without force; when another clone pushed first the push is rejected as not
// fast-forward, and Push fetches, merges and pushes again.
//
// Everything runs through the git command line (internal/proc: scrubbed environment, process group,
// limits); no work tree, index or branch of the repository is touched.
package histstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
)

// DefaultRef is the ref the history lives on.
const DefaultRef = "refs/perfgate/history"

// MaxFile bounds one file of a record as Load reads it.
const MaxFile = 64 << 20

// Attempts bounds the retries of Add and Push when other writers keep moving the ref.
const Attempts = 10

// Store is the history on Ref of the repository at Dir (a work tree or a bare repository).
type Store struct {
	Dir string
	Ref string // default DefaultRef
}

// Record is what was recorded for one commit: its files by name (result.json, bench.txt, …).
type Record struct {
	Commit string
	Files  map[string][]byte
}

// Commit is a commit of the branch a history is read along.
type Commit struct {
	SHA     string
	Subject string // untrusted text from the repository
}

var (
	shaRE  = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
	nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
)

func (s *Store) ref() string {
	if s.Ref == "" {
		return DefaultRef
	}
	return s.Ref
}

// identity is who the history's commits are by: always perfgate, whatever the repository's
// configuration.
var identity = []string{
	"GIT_AUTHOR_NAME=perfgate", "GIT_AUTHOR_EMAIL=perfgate@localhost",
	"GIT_COMMITTER_NAME=perfgate", "GIT_COMMITTER_EMAIL=perfgate@localhost",
	"GIT_TERMINAL_PROMPT=0",
}

// GitLimit bounds one git command (a fetch or push over a slow network included).
const GitLimit = 5 * time.Minute

// git runs git in the store's repository with stdin and returns its standard output.
func (s *Store) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, GitLimit)
	defer cancel()
	cmd := proc.Command(ctx, s.Dir, identity, append([]string{"git"}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, _, err := proc.Run(cmd)
	return out, err
}

func (s *Store) gitLine(ctx context.Context, args ...string) (string, error) {
	out, err := s.git(ctx, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// resolve returns the commit name ref points at, "" when it does not exist.
func (s *Store) resolve(ctx context.Context, ref string) (string, error) {
	out, err := s.git(ctx, nil, "rev-parse", "-q", "--verify", ref+"^{commit}")
	var pe *proc.Error
	if errors.As(err, &pe) && pe.ExitCode == 1 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", ref, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// entry is one line of a tree.
type entry struct{ mode, typ, oid string }

// entries reads the top level of commit's tree; none for "".
func (s *Store) entries(ctx context.Context, commit string) (map[string]entry, error) {
	m := map[string]entry{}
	if commit == "" {
		return m, nil
	}
	out, err := s.git(ctx, nil, "ls-tree", "-z", commit+"^{tree}")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if line == "" {
			continue
		}
		meta, name, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("reading the history's tree: unexpected line %q", line)
		}
		m[name] = entry{f[0], f[1], f[2]}
	}
	return m, nil
}

// mktree writes a tree of entries and returns its name.
func (s *Store) mktree(ctx context.Context, m map[string]entry) (string, error) {
	var b bytes.Buffer
	for _, name := range slices.Sorted(mapKeys(m)) {
		e := m[name]
		fmt.Fprintf(&b, "%s %s %s\t%s\x00", e.mode, e.typ, e.oid, name)
	}
	out, err := s.git(ctx, b.Bytes(), "mktree", "-z")
	if err != nil {
		return "", fmt.Errorf("writing a tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// casRef moves the ref from old ("" for absent) to new; it reports false, without error, when the
// ref no longer points at old.
func (s *Store) casRef(ctx context.Context, newCommit, old, msg string) (bool, error) {
	oldArg := old
	if old == "" {
		oldArg = strings.Repeat("0", len(newCommit))
	}
	_, err := s.git(ctx, nil, "update-ref", "-m", msg, s.ref(), newCommit, oldArg)
	if err == nil {
		return true, nil
	}
	now, rerr := s.resolve(ctx, s.ref())
	if rerr == nil && now != old {
		return false, nil // another writer moved it: retry on top
	}
	var pe *proc.Error
	if errors.As(err, &pe) && strings.Contains(pe.Stderr, ".lock") {
		return false, nil // another writer holds the ref's lock file this moment: retry
	}
	return false, fmt.Errorf("updating %s: %w", s.ref(), err)
}

// Add stores rec on the ref, replacing an earlier record of the same commit. Files whose name is
// not a plain file name are refused.
func (s *Store) Add(ctx context.Context, rec Record) error {
	if !shaRE.MatchString(rec.Commit) {
		return fmt.Errorf("recording: %q is not a full commit name", rec.Commit)
	}
	if len(rec.Files) == 0 {
		return fmt.Errorf("recording %s: no files", rec.Commit)
	}
	files := map[string]entry{}
	for _, name := range slices.Sorted(mapKeys(rec.Files)) {
		if !nameRE.MatchString(name) {
			return fmt.Errorf("recording %s: %q is not a plain file name", rec.Commit, name)
		}
		oid, err := s.git(ctx, rec.Files[name], "hash-object", "-w", "--stdin")
		if err != nil {
			return fmt.Errorf("recording %s: %w", name, err)
		}
		files[name] = entry{"100644", "blob", strings.TrimSpace(string(oid))}
	}
	sub, err := s.mktree(ctx, files)
	if err != nil {
		return err
	}
	for attempt := 0; attempt < Attempts; attempt++ {
		old, err := s.resolve(ctx, s.ref())
		if err != nil {
			return err
		}
		top, err := s.entries(ctx, old)
		if err != nil {
			return err
		}
		if top[rec.Commit].oid == sub {
			return nil // recorded already, byte for byte
		}
		top[rec.Commit] = entry{"040000", "tree", sub}
		tree, err := s.mktree(ctx, top)
		if err != nil {
			return err
		}
		args := []string{"commit-tree", tree, "-m", "perfgate record " + rec.Commit}
		if old != "" {
			args = append(args, "-p", old)
		}
		c, err := s.gitLine(ctx, args...)
		if err != nil {
			return fmt.Errorf("recording %s: %w", rec.Commit, err)
		}
		ok, err := s.casRef(ctx, c, old, "perfgate record "+rec.Commit)
		if err != nil || ok {
			return err
		}
		backoff(attempt)
	}
	return fmt.Errorf("recording %s: %s kept moving, gave up after %d attempts", rec.Commit, s.ref(), Attempts)
}

// merge makes the local ref contain theirs (a commit of another copy of the history): a
// fast-forward when it can, else a merge commit whose tree is the union of both (the local record
// wins for a commit both have).
func (s *Store) merge(ctx context.Context, theirs string) error {
	for attempt := 0; attempt < Attempts; attempt++ {
		old, err := s.resolve(ctx, s.ref())
		if err != nil {
			return err
		}
		next := theirs
		switch {
		case old == "" || old == theirs:
		case s.isAncestor(ctx, theirs, old):
			return nil
		case s.isAncestor(ctx, old, theirs):
		default:
			ours, err := s.entries(ctx, old)
			if err != nil {
				return err
			}
			union, err := s.entries(ctx, theirs)
			if err != nil {
				return err
			}
			for name, e := range ours {
				union[name] = e
			}
			tree, err := s.mktree(ctx, union)
			if err != nil {
				return err
			}
			next, err = s.gitLine(ctx, "commit-tree", tree, "-p", old, "-p", theirs, "-m", "perfgate: merge history")
			if err != nil {
				return fmt.Errorf("merging the history: %w", err)
			}
		}
		if old == next {
			return nil
		}
		ok, err := s.casRef(ctx, next, old, "perfgate: merge history")
		if err != nil || ok {
			return err
		}
		backoff(attempt)
	}
	return fmt.Errorf("merging the history: %s kept moving, gave up after %d attempts", s.ref(), Attempts)
}

func (s *Store) isAncestor(ctx context.Context, a, b string) bool {
	_, err := s.git(ctx, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// Fetch merges the history on remote (a remote's name or URL) into the local ref. A remote without
// a history is not an error.
func (s *Store) Fetch(ctx context.Context, remote string) error {
	out, err := s.git(ctx, nil, "ls-remote", "--", remote, s.ref())
	if err != nil {
		return fmt.Errorf("reading the history on %s: %w", remote, err)
	}
	if strings.TrimSpace(string(out)) == "" {
		return nil
	}
	if _, err := s.git(ctx, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", remote,
		"+"+s.ref()+":"+s.trackingRef()); err != nil {
		return fmt.Errorf("fetching the history from %s: %w", remote, err)
	}
	theirs, err := s.resolve(ctx, s.trackingRef())
	if err != nil || theirs == "" {
		return err
	}
	return s.merge(ctx, theirs)
}

// trackingRef is where Fetch puts the remote's history before merging it.
func (s *Store) trackingRef() string { return s.ref() + "-fetched" }

// Push publishes the local history to remote: fetch, merge, push without force, again while another
// clone's push gets in first.
func (s *Store) Push(ctx context.Context, remote string) error {
	for attempt := 0; attempt < Attempts; attempt++ {
		if err := s.Fetch(ctx, remote); err != nil {
			return err
		}
		out, err := s.git(ctx, nil, "push", "--porcelain", "--quiet", "--", remote, s.ref()+":"+s.ref())
		if err == nil {
			return nil
		}
		if !rejected(out) {
			return fmt.Errorf("pushing the history to %s: %w", remote, err)
		}
		backoff(attempt)
	}
	return fmt.Errorf("pushing the history to %s: rejected %d times (other pushes kept getting in first)",
		remote, Attempts)
}

// rejected reports whether git push --porcelain's output says the remote refused the ref (not
// fast-forward, or its lock was taken by a concurrent push), as opposed to failing to reach the
// remote.
func rejected(porcelain []byte) bool {
	for _, line := range strings.Split(string(porcelain), "\n") {
		if strings.HasPrefix(line, "!\t") {
			return true
		}
	}
	return false
}

// backoff waits a little longer after each failed attempt, with jitter so two writers do not
// collide again.
func backoff(attempt int) {
	d := time.Duration(10<<min(attempt, 6)) * time.Millisecond
	time.Sleep(d/2 + rand.N(d))
}

// Load returns every record on the ref, by commit name; none when the ref does not exist. Entries
// that are not a commit's directory of plain files are skipped: the ref may have been written by
// anyone who can push.
func (s *Store) Load(ctx context.Context) ([]Record, error) {
	head, err := s.resolve(ctx, s.ref())
	if err != nil || head == "" {
		return nil, err
	}
	out, err := s.git(ctx, nil, "ls-tree", "-r", "-l", "-z", head)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.ref(), err)
	}
	type blob struct{ commit, name, oid string }
	var blobs []blob
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[1] != "blob" {
			continue
		}
		commit, name, ok := strings.Cut(path, "/")
		if !ok || !shaRE.MatchString(commit) || !nameRE.MatchString(name) {
			continue
		}
		if size, err := strconv.ParseInt(f[3], 10, 64); err != nil || size > MaxFile {
			continue
		}
		blobs = append(blobs, blob{commit, name, f[2]})
	}
	var in bytes.Buffer
	for _, b := range blobs {
		in.WriteString(b.oid + "\n")
	}
	data, err := s.git(ctx, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.ref(), err)
	}
	byCommit := map[string]*Record{}
	var order []string
	for _, b := range blobs {
		header, rest, ok := bytes.Cut(data, []byte("\n"))
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 || f[0] != b.oid {
			return nil, fmt.Errorf("reading %s: unexpected git cat-file output %q", s.ref(), header)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size+1 > len(rest) {
			return nil, fmt.Errorf("reading %s: unexpected git cat-file output %q", s.ref(), header)
		}
		content := rest[:size]
		data = rest[size+1:]
		r := byCommit[b.commit]
		if r == nil {
			r = &Record{Commit: b.commit, Files: map[string][]byte{}}
			byCommit[b.commit] = r
			order = append(order, b.commit)
		}
		r.Files[b.name] = content
	}
	recs := make([]Record, 0, len(order))
	for _, c := range order {
		recs = append(recs, *byCommit[c])
	}
	return recs, nil
}

// FirstParent returns the commits on rev's first-parent path, oldest first.
func (s *Store) FirstParent(ctx context.Context, rev string) ([]Commit, error) {
	out, err := s.git(ctx, nil, "log", "--first-parent", "-z", "--format=%H %s", "--end-of-options", rev, "--")
	if err != nil {
		return nil, fmt.Errorf("reading the first-parent history of %s: %w", rev, err)
	}
	var cs []Commit
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		sha, subject, _ := strings.Cut(line, " ")
		if shaRE.MatchString(sha) {
			cs = append(cs, Commit{SHA: sha, Subject: subject})
		}
	}
	slices.Reverse(cs)
	return cs, nil
}

// Shallow reports whether the repository is a shallow clone, whose first-parent path ends early.
func (s *Store) Shallow(ctx context.Context) bool {
	out, err := s.gitLine(ctx, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}
