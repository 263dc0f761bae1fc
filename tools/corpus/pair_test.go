package corpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePair(t *testing.T) {
	p, err := ParsePair("x-1", []byte("kind: slower\nabout: a\npkg: ./m\nflags: -tags purego -bench ^A$\n"+
		"delete: m/old.go\n-- base/go.mod --\nmodule m\n-- base/m/old.go --\npackage m\n-- head/m/new.go --\npackage m\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"-tags", "purego", "-bench", "^A$"}, p.Flags); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if len(p.Base) != 2 || len(p.Head) != 1 || p.Head[0].Name != "m/new.go" || p.Delete[0] != "m/old.go" {
		t.Errorf("base %d files, head %v, delete %v", len(p.Base), p.Head, p.Delete)
	}
	for _, bad := range []struct{ name, text, want string }{
		{"Bad", "kind: k\nabout: a\npkg: .\n", "want a name"},
		{"x", "kind: k\npkg: .\n-- base/a --\n-- head/a --\n", `want "kind:" and "about:"`},
		{"x", "kind: k\nabout: a\n-- base/a --\n-- head/a --\n", `want a "pkg:" line`},
		{"x", "kind: k\nabout: a\npkg: .\n-- base/a --\n", "a change under head/"},
		{"x", "kind: k\nabout: a\npkg: .\n-- a --\n-- head/a --\n", "under base/ or head/"},
		{"x", "kind: k\nabout: a\npkg: .\n-- base/../a --\n-- head/a --\n", "clean relative"},
		{"x", "kind: k\nabout: a\npkg: .\n-- base/.git/config --\n-- head/a --\n", "inside .git"},
		{"x", "kind: k\nkind: j\n", `"kind" again`},
		{"x", "colour: red\n", `unknown key "colour"`},
		{"x", "kind: k\nabout: a\npkg: .\ndemo: base\n", `want "demo: BASE HEAD"`},
		{"x", "kind: k\nabout: a\npkg: .\ndemo: base folded\n-- base/a --\n", "a demo pair has no files"},
	} {
		if _, err := ParsePair(bad.name, []byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParsePair(%q, %q) = %v, want an error containing %q", bad.name, bad.text, err, bad.want)
		}
	}
}
