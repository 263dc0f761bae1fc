package histstore

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
)

// TestMain isolates git from the user's configuration: no global or system config, a fixed
// identity.
func TestMain(m *testing.M) { gittest.Main(m) }

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, _, err := proc.Run(proc.Command(context.Background(), dir, nil, append([]string{"git"}, args...)...))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with a main branch of the given commits and returns it and their SHAs.
func newRepo(t *testing.T, dir string, subjects ...string) []string {
	t.Helper()
	git(t, filepath.Dir(dir), "-c", "init.defaultBranch=main", "init", "-q", dir)
	return commits(t, dir, subjects...)
}

func commits(t *testing.T, dir string, subjects ...string) []string {
	t.Helper()
	var shas []string
	for _, s := range subjects {
		git(t, dir, "commit", "-q", "--allow-empty", "-m", s)
		shas = append(shas, git(t, dir, "rev-parse", "HEAD"))
	}
	return shas
}

func fakeSHA(i int) string { return fmt.Sprintf("%040x", 0xabc000+i) }

func rec(commit, body string) Record {
	return Record{Commit: commit, Files: map[string][]byte{"result.json": []byte(body), "bench.txt": []byte("x " + body)}}
}

// loaded returns the records of s as commit → result.json.
func loaded(t *testing.T, s *Store) map[string]string {
	t.Helper()
	recs, err := s.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, r := range recs {
		m[r.Commit] = string(r.Files["result.json"])
	}
	return m
}

func TestAddLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	newRepo(t, dir, "one")
	s := &Store{Dir: dir}
	if got := loaded(t, s); len(got) != 0 {
		t.Fatalf("empty store has %v", got)
	}
	for _, r := range []Record{rec(fakeSHA(1), "a"), rec(fakeSHA(2), "b")} {
		if err := s.Add(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	tip := git(t, dir, "rev-parse", DefaultRef)
	// the same again: nothing to do
	if err := s.Add(t.Context(), rec(fakeSHA(2), "b")); err != nil {
		t.Fatal(err)
	}
	if now := git(t, dir, "rev-parse", DefaultRef); now != tip {
		t.Errorf("recording the same files again moved the ref")
	}
	// a new run of the same commit replaces it
	if err := s.Add(t.Context(), rec(fakeSHA(2), "b2")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{fakeSHA(1): "a", fakeSHA(2): "b2"}
	if diff := cmp.Diff(want, loaded(t, s)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The records are plain files on the ref: git itself reads them.
	if got := git(t, dir, "show", DefaultRef+":"+fakeSHA(1)+"/bench.txt"); got != "x a" {
		t.Errorf("bench.txt on the ref = %q", got)
	}
	if n := git(t, dir, "rev-list", "--count", DefaultRef); n != "3" {
		t.Errorf("history has %s commits, want 3 (one per change)", n)
	}
	// Nothing of the work tree, index or branches changed.
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree changed: %s", st)
	}
	for _, bad := range []Record{rec("main", "x"), {Commit: fakeSHA(3), Files: map[string][]byte{"../x": nil}}} {
		if err := s.Add(t.Context(), bad); err == nil {
			t.Errorf("Add(%q, %v) did not fail", bad.Commit, slices.Collect(mapKeys(bad.Files)))
		}
	}
}

// TestConcurrentAdd: writers in one repository at once lose nothing (compare-and-swap on the ref).
func TestConcurrentAdd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	newRepo(t, dir, "one")
	const writers = 6
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() { errs[i] = (&Store{Dir: dir}).Add(context.Background(), rec(fakeSHA(i), fmt.Sprint(i))) })
	}
	wg.Wait()
	want := map[string]string{}
	for i := range writers {
		if errs[i] != nil {
			t.Errorf("writer %d: %v", i, errs[i])
		}
		want[fakeSHA(i)] = fmt.Sprint(i)
	}
	if diff := cmp.Diff(want, loaded(t, &Store{Dir: dir})); diff != "" {
		t.Errorf("records lost (-want +got):\n%s", diff)
	}
}

// TestConcurrentPush: two clones record and push at once, several times each; the origin ends up
// with every record, and so does each clone after a fetch.
func TestConcurrentPush(t *testing.T) {
	root := t.TempDir()
	seed := filepath.Join(root, "seed")
	newRepo(t, seed, "one")
	origin := filepath.Join(root, "origin.git")
	git(t, root, "clone", "-q", "--bare", seed, origin)
	clones := []string{filepath.Join(root, "a"), filepath.Join(root, "b")}
	for _, c := range clones {
		git(t, root, "clone", "-q", origin, c)
	}
	const each = 4
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for ci, c := range clones {
		wg.Go(func() {
			s := &Store{Dir: c}
			for k := range each {
				r := rec(fakeSHA(10*ci+k), fmt.Sprintf("%d-%d", ci, k))
				if err := s.Add(context.Background(), r); err != nil {
					errs <- err
					return
				}
				if err := s.Push(context.Background(), "origin"); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := map[string]string{}
	for ci := range clones {
		for k := range each {
			want[fakeSHA(10*ci+k)] = fmt.Sprintf("%d-%d", ci, k)
		}
	}
	if diff := cmp.Diff(want, loaded(t, &Store{Dir: origin})); diff != "" {
		t.Errorf("origin lost records (-want +got):\n%s", diff)
	}
	for _, c := range clones {
		s := &Store{Dir: c}
		if err := s.Fetch(t.Context(), "origin"); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, loaded(t, s)); diff != "" {
			t.Errorf("%s after fetch (-want +got):\n%s", filepath.Base(c), diff)
		}
	}
}

// TestForcePush: records are keyed by commit; after main is rewritten and force-pushed, the
// first-parent path of the new main orders the records that are on it, and the records of the
// dropped commits are still there.
func TestForcePush(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	shas := newRepo(t, a, "c1", "c2", "c3")
	origin := filepath.Join(root, "origin.git")
	git(t, root, "clone", "-q", "--bare", a, origin)
	git(t, a, "remote", "add", "origin", origin)
	s := &Store{Dir: a}
	for i, sha := range shas {
		if err := s.Add(t.Context(), rec(sha, fmt.Sprint("old", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Push(t.Context(), "origin"); err != nil {
		t.Fatal(err)
	}
	// Rewrite main from c1 on, force-push it, record the new commits from a fresh clone.
	git(t, a, "reset", "-q", "--hard", shas[0])
	rewritten := commits(t, a, "c2'", "c3'")
	git(t, a, "push", "-q", "--force", "origin", "main")
	b := filepath.Join(root, "b")
	git(t, root, "clone", "-q", origin, b)
	sb := &Store{Dir: b}
	for i, sha := range rewritten {
		if err := sb.Add(t.Context(), rec(sha, fmt.Sprint("new", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := sb.Push(t.Context(), "origin"); err != nil {
		t.Fatal(err)
	}
	got := loaded(t, &Store{Dir: origin})
	for _, sha := range append(slices.Clone(shas), rewritten...) {
		if _, ok := got[sha]; !ok {
			t.Errorf("record of %s lost", sha[:12])
		}
	}
	path, err := sb.FirstParent(t.Context(), "origin/main")
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range path {
		subjects = append(subjects, c.Subject)
		if _, ok := got[c.SHA]; !ok {
			t.Errorf("commit %s on main has no record", c.Subject)
		}
	}
	if diff := cmp.Diff([]string{"c1", "c2'", "c3'"}, subjects); diff != "" {
		t.Errorf("first-parent path (-want +got):\n%s", diff)
	}
}

// TestRejected: git push's answer when another clone pushed first is a rejection Push retries; an
// unreachable remote is not.
func TestRejected(t *testing.T) {
	root := t.TempDir()
	seed := filepath.Join(root, "seed")
	newRepo(t, seed, "one")
	origin := filepath.Join(root, "origin.git")
	git(t, root, "clone", "-q", "--bare", seed, origin)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	git(t, root, "clone", "-q", origin, a)
	git(t, root, "clone", "-q", origin, b)
	sa, sb := &Store{Dir: a}, &Store{Dir: b}
	if err := sa.Add(t.Context(), rec(fakeSHA(1), "a")); err != nil {
		t.Fatal(err)
	}
	if err := sa.Push(t.Context(), "origin"); err != nil {
		t.Fatal(err)
	}
	if err := sb.Add(t.Context(), rec(fakeSHA(2), "b")); err != nil {
		t.Fatal(err)
	}
	out, err := sb.git(t.Context(), nil, "push", "--porcelain", "--quiet", "--", "origin", DefaultRef+":"+DefaultRef)
	if err == nil || !rejected(out) {
		t.Errorf("a push behind the remote: err %v, rejected %v, output %q", err, rejected(out), out)
	}
	out, err = sb.git(t.Context(), nil, "push", "--porcelain", "--quiet", "--", filepath.Join(root, "nowhere"),
		DefaultRef+":"+DefaultRef)
	if err == nil || rejected(out) {
		t.Errorf("a push to no repository: err %v, rejected %v", err, rejected(out))
	}
	// Push itself gets there: fetch, merge, push.
	if err := sb.Push(t.Context(), "origin"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{fakeSHA(1): "a", fakeSHA(2): "b"}
	if diff := cmp.Diff(want, loaded(t, &Store{Dir: origin})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if parents := git(t, origin, "log", "-1", "--format=%P", DefaultRef); len(strings.Fields(parents)) != 2 {
		t.Errorf("the merged history's tip has parents %q, want two", parents)
	}
}
