package demo

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

const (
	baseArchive   = "commit: base\nmessage: root\n-- go.mod --\nmodule m\n"
	foldedArchive = "commit: folded\nparent: base\nmessage: fold\n-- a.go --\npackage a\n"
)

// testHistory builds an in-memory history directory from name → archive.
func testHistory(archives map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range archives {
		fsys["h/"+name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func loadNames(t *testing.T, archives map[string]string) ([]string, error) {
	t.Helper()
	commits, err := loadHistory(testHistory(archives), "h")
	var names []string
	for _, c := range commits {
		names = append(names, c.name)
	}
	return names, err
}

func TestLoadHistoryOrder(t *testing.T) {
	// A new archive is picked up without code changes; parents precede
	// children whatever the file names; siblings go in name order.
	names, err := loadNames(t, map[string]string{
		"a-child.txtar": "commit: zeta\nparent: folded\nmessage: z\n-- z.go --\nz\n",
		"base.txtar":    baseArchive,
		"folded.txtar":  foldedArchive,
		"extra.txtar":   "commit: alpha\nparent: base\nmessage: a\ndelete: go.mod\n",
		"notes.txt":     "not an archive",
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"base", "alpha", "folded", "zeta"}, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestLoadHistoryErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		archives map[string]string
		want     string // substring of the error
	}{
		{"no archives", map[string]string{}, "no *.txtar"},
		{"missing parent", map[string]string{"base.txtar": baseArchive, "folded.txtar": foldedArchive,
			"x.txtar": "commit: x\nparent: nowhere\nmessage: m\n-- f --\n"}, `parent "nowhere" does not exist`},
		{"duplicate name", map[string]string{"base.txtar": baseArchive, "folded.txtar": foldedArchive,
			"folded2.txtar": foldedArchive}, "commit folded defined twice, in folded.txtar and folded2.txtar"},
		{"cycle", map[string]string{"base.txtar": baseArchive, "folded.txtar": foldedArchive,
			"x.txtar": "commit: x\nparent: y\nmessage: m\n-- f --\n",
			"y.txtar": "commit: y\nparent: x\nmessage: m\n-- f --\n"}, "commits x, y form a cycle"},
		{"self parent", map[string]string{"base.txtar": baseArchive, "folded.txtar": foldedArchive,
			"x.txtar": "commit: x\nparent: x\nmessage: m\n-- f --\n"}, "commits x form a cycle"},
		{"no root", map[string]string{"folded.txtar": foldedArchive}, `no root commit "base"`},
		{"no main commit", map[string]string{"base.txtar": baseArchive}, `no commit "folded"`},
		{"unknown key", map[string]string{"base.txtar": "commit: base\nauthor: me\nmessage: m\n-- f --\n"},
			`base.txtar: line 2: unknown key "author"`},
		{"not key value", map[string]string{"base.txtar": "commit base\nmessage: m\n-- f --\n"},
			`base.txtar: line 1: want "key: value"`},
		{"empty value", map[string]string{"base.txtar": "commit:\nmessage: m\n-- f --\n"}, "line 1"},
		{"duplicate key", map[string]string{"base.txtar": "commit: base\nmessage: m\nmessage: n\n-- f --\n"},
			`line 3: duplicate "message"`},
		{"no commit line", map[string]string{"base.txtar": "message: m\n-- f --\n"}, `no "commit:" line`},
		{"no message", map[string]string{"base.txtar": "commit: base\n-- f --\n"}, `no "message:" line`},
		{"bad name", map[string]string{"base.txtar": baseArchive, "x.txtar": "commit: Bad Name\nparent: base\nmessage: m\n-- f --\n"},
			`commit name "Bad Name"`},
		{"name main", map[string]string{"base.txtar": baseArchive, "x.txtar": "commit: main\nparent: base\nmessage: m\n-- f --\n"},
			`commit name "main"`},
		{"second root", map[string]string{"base.txtar": baseArchive, "x.txtar": "commit: x\nmessage: m\n-- f --\n"},
			`no "parent:" line`},
		{"root with parent", map[string]string{"base.txtar": "commit: base\nparent: x\nmessage: m\n-- f --\n"},
			"is the root"},
		{"empty commit", map[string]string{"base.txtar": baseArchive, "x.txtar": "commit: x\nparent: base\nmessage: m\n"},
			"commit x changes nothing"},
		{"duplicate file", map[string]string{"base.txtar": "commit: base\nmessage: m\n-- f --\na\n-- f --\nb\n"},
			"file f appears twice"},
		{"delete and write", map[string]string{"base.txtar": "commit: base\nmessage: m\ndelete: f\n-- f --\n"},
			"both deleted and written"},
		{"escaping path", map[string]string{"base.txtar": "commit: base\nmessage: m\n-- ../f --\n"}, "leaves the repository"},
		{"unclean path", map[string]string{"base.txtar": "commit: base\nmessage: m\n-- a//f --\n"}, "clean relative path"},
		{"absolute path", map[string]string{"base.txtar": "commit: base\nmessage: m\n-- /f --\n"}, "clean relative path"},
		{"git path", map[string]string{"base.txtar": "commit: base\nmessage: m\n-- .git/config --\n"}, "inside .git"},
		{"bad delete", map[string]string{"base.txtar": "commit: base\nmessage: m\ndelete: ../x\n-- f --\n"}, "line 3: delete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadNames(t, tc.archives)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestWriteRepoErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		commits []commit
		want    string
	}{
		{"delete missing file", []commit{
			{name: "base", message: "m", files: []txtar.File{{Name: "a"}}},
			{name: "folded", parent: "base", message: "m", deletes: []string{"b"}, depth: 1},
		}, "delete b: no such file in base"},
		{"file and directory", []commit{
			{name: "base", message: "m", files: []txtar.File{{Name: "a"}, {Name: "a/b"}}},
		}, "a is both a file and a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writeRepo(filepath.Join(t.TempDir(), "r"), tc.commits)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestEmbeddedHistory checks the real archives load and that base and
// folded say what the demo promises.
func TestEmbeddedHistory(t *testing.T) {
	commits, err := history()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]commit{}
	for _, c := range commits {
		byName[c.name] = c
	}
	if c := byName["folded"]; c.parent != "base" || c.message != "minides: fold the P permutation into the S-boxes" {
		t.Errorf("folded = parent %q, message %q", c.parent, c.message)
	}
	if c := byName["base"]; c.parent != "" {
		t.Errorf("base has parent %q", c.parent)
	}
}
