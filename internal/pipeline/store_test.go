package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// fromStore returns, by phase name, how many artifacts each phase of res read from the store.
func fromStore(res *record.Result) map[string]int {
	m := map[string]int{}
	for _, ph := range res.Method.Phases {
		m[ph.Name] += ph.FromStore
	}
	return m
}

func hasNote(res *record.Result, s string) bool {
	for _, n := range res.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestStore runs one comparison four times against one store: the second run reads the
// differential's outputs and the tests' results from it, a poisoned store (every object's bytes
// replaced, as a pull request that could write the directory would replace base's harness output)
// is detected, warned about and computed again, and with cache off nothing is read or written. The
// findings are the same every time.
func TestStore(t *testing.T) {
	testenv.Long(t)
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", merge(xorCipher, map[string]string{"go.mod": testmod.GoMod("example.com/root", "1.21")}))
	head := repo.Commit("head", map[string]string{"crypto/xtea/doc.go": "// Package xtea is a test cipher.\npackage xtea\n"})
	cfg := fastConfig(t, repo.Dir, "./crypto/xtea", base, head)
	cfg.Differential, cfg.Keys, cfg.Blocks = true, 8, 2
	dir := cfg.Store

	check := func(name string, wantStored map[string]int, wantNote string) *record.Result {
		t.Helper()
		res, err := runE2E(t, cfg)
		wantCompared(t, res, err, "Encrypt")
		d := res.Differential
		if d.Status != record.DiffIdentical || len(d.Ciphers) != 1 || d.Ciphers[0].DigestBase == "" ||
			d.Ciphers[0].DigestBase != d.Ciphers[0].DigestHead {
			t.Fatalf("%s: differential %s (%s), ciphers %+v; want NewCipher identical", name, d.Status, d.Reason, d.Ciphers)
		}
		got := fromStore(res)
		for phase, n := range wantStored {
			if got[phase] != n {
				t.Errorf("%s: phase %s read %d artifacts from the store, want %d (phases %+v)", name, phase, got[phase], n,
					res.Method.Phases)
			}
		}
		if len(res.Method.Phases) < 6 {
			t.Errorf("%s: phases %+v", name, res.Method.Phases)
		}
		if wantNote != "" && !hasNote(res, wantNote) {
			t.Errorf("%s: no note %q in %q", name, wantNote, res.Notes)
		}
		if wantNote == "" && hasNote(res, "store:") {
			t.Errorf("%s: notes %q", name, res.Notes)
		}
		return res
	}

	// Cold: the tests' results come from nowhere. The two sides' harnesses may be the same binary
	// (head only adds a doc comment), and head's side may then read what base's just stored: fewer
	// than all four, never all.
	first := check("cold", map[string]int{"tests": 0}, "")
	if n := fromStore(first)["differential"]; n >= 4 {
		t.Errorf("cold: the differential read %d artifacts from the store, want fewer than 4", n)
	}
	// Both sides' probes and runs of the harness, and both sides' tests.
	second := check("warm", map[string]int{"differential": 4, "tests": 2}, "")
	if a, b := first.Differential.Ciphers[0].DigestBase, second.Differential.Ciphers[0].DigestBase; a != b {
		t.Errorf("base's digest %s from the store, %s computed", b, a)
	}

	objs, err := filepath.Glob(filepath.Join(dir, "*", "objects", "*", "*"))
	if err != nil || len(objs) < 3 {
		t.Fatalf("objects in the store: %d (%v)", len(objs), err)
	}
	for _, o := range objs {
		if err := os.WriteFile(o, []byte("poisoned"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// (Base's and head's equal outputs share an object: once base's run has put it back, head's
	// entry is whole again: what the poisoned run read back is not asserted.)
	poisoned := check("poisoned", nil, "damaged or foreign")
	if a, b := first.Differential.Ciphers[0].DigestBase, poisoned.Differential.Ciphers[0].DigestBase; a != b {
		t.Errorf("base's digest %s after the poisoning, %s before", b, a)
	}
	check("rebuilt", map[string]int{"differential": 4, "tests": 2}, "")

	os.RemoveAll(dir)
	cfg.Store = store.Off
	check("off", map[string]int{"differential": 0, "tests": 0}, "")
	if _, err := os.Stat(dir); err == nil {
		t.Error("cache off wrote the store")
	}
}
