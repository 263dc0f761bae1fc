package consttime

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/record"
)

// TestStoredTrace: what a trace added to a side comes back from the store under the same driver and
// secrets, and not under another driver's digest or another seed.
func TestStoredTrace(t *testing.T) {
	st, err := store.Open(store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Secrets: 6, BatchSecrets: 2, BatchBlocks: 8}
	cfg.Seed, cfg.Store = DefaultSeed, st
	side := func(sha string) *sideResult {
		return &sideResult{name: "base", sealed: sandbox.Binary{SHA256: sha}, sides: map[opKey]*record.CTSide{},
			family: map[string]record.Family{}}
	}
	traced := side("aaaa")
	k := opKey{"NewCipher", "Encrypt"}
	traced.ops = []opKey{k}
	traced.sides[k] = &record.CTSide{KeySize: 8, Runs: 7, Loads: []record.CTSite{{Function: "feistel", Line: 12, Table: "sBoxes"}}}
	traced.skipped = map[string]string{"NewOther": "no key size"}
	key := traced.storeKey(cfg, []string{"NewCipher"})
	traced.keep(cfg, key, 0)

	again := side("aaaa")
	if !again.fromStore(cfg, again.storeKey(cfg, []string{"NewCipher"})) {
		t.Fatal("the stored trace was not found")
	}
	if diff := cmp.Diff(traced.sides, again.sides, cmp.AllowUnexported(opKey{})); diff != "" || len(again.ops) != 1 ||
		again.skipped["NewOther"] == "" {
		t.Errorf("stored trace (-kept +read):\n%s\nops %v, skipped %v", diff, again.ops, again.skipped)
	}
	other := side("bbbb")
	if other.fromStore(cfg, other.storeKey(cfg, []string{"NewCipher"})) {
		t.Error("another driver's digest read the trace")
	}
	seeded := *cfg
	seeded.Seed++
	if again.fromStore(&seeded, again.storeKey(&seeded, []string{"NewCipher"})) {
		t.Error("another seed read the trace")
	}
}
