package gitsrc

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFirstParentPath(t *testing.T) {
	g := newFixture(t)
	r, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(rev string) *Commit {
		t.Helper()
		c, err := r.Resolve(rev)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	subjects := func(cs []*Commit) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Subject)
		}
		return out
	}

	// The merge's first parent is third: feature work is not on the path.
	path, err := r.FirstParentPath(resolve("light"), resolve("main"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", "second", "third", "merge"}, subjects(path)); diff != "" {
		t.Errorf("path from first to main (-want +got):\n%s", diff)
	}
	if path[0].SHA != g.sha["first"] || path[3].SHA != g.sha["merge"] {
		t.Errorf("path ends = %s, %s; want first %s and merge %s", path[0].SHA, path[3].SHA, g.sha["first"], g.sha["merge"])
	}

	path, err = r.FirstParentPath(resolve("main"), resolve("main"))
	if err != nil || len(path) != 1 {
		t.Errorf("path from main to itself = %v, %v; want the one commit", subjects(path), err)
	}

	// An ancestor through the merged branch only, and a descendant named as good.
	for _, tc := range []struct {
		good, bad string
		ancestor  bool
		want      string
	}{
		{"feature", "main", true, "only through a merged branch"},
		{"main", "light", false, "is not an ancestor of"},
		{"feature", "main~1", false, "is not an ancestor of"},
	} {
		_, err := r.FirstParentPath(resolve(tc.good), resolve(tc.bad))
		var na *NotAncestorError
		if !errors.As(err, &na) || na.Ancestor != tc.ancestor || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FirstParentPath(%s, %s) = %v; want a NotAncestorError (ancestor %v) saying %q", tc.good, tc.bad, err,
				tc.ancestor, tc.want)
		}
	}
}

func TestFirstParentPathShallow(t *testing.T) {
	g := newFixture(t)
	c := g.clone("--depth", "2", "--branch", "main")
	r, err := Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := r.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	good, err := r.Resolve(g.sha["third"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.FirstParentPath(good, bad); err != nil {
		t.Fatalf("third..merge lies inside the clone: %v", err)
	}
	first, err := Open(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	far, err := first.Resolve("light")
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.FirstParentPath(far, bad)
	var se *ShallowError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "fetch-depth: 0") {
		t.Errorf("FirstParentPath past the shallow boundary = %v; want a ShallowError naming fetch-depth: 0", err)
	}
}
