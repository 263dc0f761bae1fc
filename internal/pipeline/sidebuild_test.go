package pipeline

import (
	"testing"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/record"
)

// TestStoreKeysFollowTheBuild: a side's stored test run and compiler report are keyed by its build
// too (toolchain version, variables, flags), beside its binary's digest.
func TestStoreKeysFollowTheBuild(t *testing.T) {
	st, err := store.Open(store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	key := func(b record.Build, version string) store.Key {
		p := &pipeline{cfg: config.Default(), store: st}
		p.cfg.Head = "HEAD"
		p.cfg.HeadBuild = b
		s := &side{name: record.Head, sha: "abc", rev: record.Revision{Commit: "c0ffee"}, tree: &gitsrc.Tree{}}
		s.build = b
		s.build.Toolchain = version
		k, ok := p.testKey(s, []string{"-test.run=."})
		if !ok {
			t.Fatal("no key")
		}
		return k
	}
	plain := key(record.Build{}, "go1.26.8")
	for name, k := range map[string]store.Key{
		"toolchain": key(record.Build{}, "go1.25.5"),
		"env":       key(record.Build{Env: []string{"GOAMD64=v3"}}, "go1.26.8"),
		"flags":     key(record.Build{Flags: []string{"-tags=purego"}}, "go1.26.8"),
	} {
		if k == plain {
			t.Errorf("a build differing by its %s has the same test-run key", name)
		}
	}
	if key(record.Build{}, "go1.26.8") != plain {
		t.Error("the same build gives two keys")
	}
}
