package testmod

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/gitsrc"
)

// DemoTrees materialises the demo history and exports the named commits, each into its own
// directory, and returns the directories by name. A name may end in "#2" for a second export of
// the same commit.
func DemoTrees(t testing.TB, names ...string) map[string]string {
	t.Helper()
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "demo"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := gitsrc.Open(repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]string{}
	for _, name := range names {
		c, err := r.Resolve(repo.Commits[strings.TrimSuffix(name, "#2")])
		if err != nil {
			t.Fatal(err)
		}
		tree, err := r.ExportTemp(t.Context(), c, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tree.Close() })
		trees[name] = tree.Dir // the demo module is at the repository root
	}
	return trees
}
