package consttime

import (
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/record"
)

// A side's trace of some constructors is a function of its sealed driver, the secrets (their
// number, the batch shape, the seed), valgrind and perfgate's analysis: with a store, it is kept
// under a key of those and not traced again. What is kept is the analysis (the operations'
// CTSides), never valgrind's CPU time as a measurement of anything: the stored CPU only says what
// the trace cost when it ran.

// storedTrace is what one trace added to a sideResult.
type storedTrace struct {
	Ops     []storedOp        `json:"ops"`
	Skipped map[string]string `json:"skipped"`
}

type storedOp struct {
	Ctor string         `json:"ctor"`
	Op   string         `json:"op"`
	Side *record.CTSide `json:"side"`
}

func (res *sideResult) storeKey(cfg *Config, only []string) store.Key {
	if cfg.Store == nil {
		return store.Key{}
	}
	return store.NewKey("consttime-trace", store.Program(), res.sealed.SHA256, cfg.tool, cfg.Valgrind,
		strings.Join(cfg.godebug, ","),
		strconv.Itoa(cfg.Secrets), strconv.Itoa(cfg.BatchSecrets), strconv.Itoa(cfg.BatchBlocks),
		strconv.FormatUint(cfg.Seed, 10), strings.Join(only, ","))
}

// fromStore adds the stored trace of key to res and reports whether there was one.
func (res *sideResult) fromStore(cfg *Config, key store.Key) bool {
	if cfg.Store == nil {
		return false
	}
	var t storedTrace
	if !cfg.Store.GetJSON(key, &t) {
		return false
	}
	for _, o := range t.Ops {
		if o.Side == nil {
			return false
		}
	}
	for _, o := range t.Ops {
		k := opKey{o.Ctor, o.Op}
		res.ops = append(res.ops, k)
		res.sides[k] = o.Side
	}
	if res.skipped == nil {
		res.skipped = map[string]string{}
	}
	for k, v := range t.Skipped {
		res.skipped[k] = v
	}
	cfg.Logf("consttime: %s: %d operations from the store, not traced (driver %.12s)\n", res.name, len(t.Ops),
		res.sealed.SHA256)
	return true
}

// keep stores what the trace added to res after its first before operations.
func (res *sideResult) keep(cfg *Config, key store.Key, before int) {
	t := storedTrace{Ops: []storedOp{}, Skipped: res.skipped}
	for _, k := range res.ops[before:] {
		t.Ops = append(t.Ops, storedOp{Ctor: k.ctor, Op: k.op, Side: res.sides[k]})
	}
	cfg.Store.PutJSON(key, res.name+" constant-time trace", t)
}
