package samecode

import (
	"debug/elf"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// TestMutationsAreNeverSame is the "never same when changed" property on real machine code: it
// flips one byte of base's test binary inside a unit that benchmark A reaches — code, a table, a
// type descriptor, a function value — and demands that A is reported changed. The units and offsets
// are drawn with a fixed seed (printed), from every kind of unit A reaches.
func TestMutationsAreNeverSame(t *testing.T) {
	testenv.Long(t)
	recordReached = true
	defer func() { recordReached = false }()
	base := fixtureTest(t, "base")
	rep, err := Analyze(base, fixtureTest(t, "doc"), []string{"A"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Benchmarks["A"].Same {
		t.Fatalf("A changed by a doc comment: %s", rep.Benchmarks["A"].Reason)
	}
	content, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := load(base, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := prepare(img); err != nil {
		t.Fatal(err)
	}
	// Candidates: every reached unit with bytes in the file, by kind, so that each kind gets
	// mutations.
	byKind := map[string][]*unit{}
	for _, u := range img.units {
		if !rep.reached["A"][u.name] || u.kind == kindMeta || u.kind == kindBSS || u.size == 0 {
			continue
		}
		k := "data"
		switch {
		case u.kind == kindText:
			k = "text"
		case len(u.name) > 5 && u.name[:5] == "type:":
			k = "type"
		case filepath.Ext(u.name) == ".f" || len(u.name) > 3 && u.name[len(u.name)-3:] == "·f":
			k = "funcval"
		}
		byKind[k] = append(byKind[k], u)
	}
	const seed = 14
	t.Logf("seed %d; reached units by kind: text %d, data %d, type %d, funcval %d", seed,
		len(byKind["text"]), len(byKind["data"]), len(byKind["type"]), len(byKind["funcval"]))
	rng := rand.New(rand.NewPCG(seed, seed))
	// The package's own units first: they are what a pull request changes.
	own := func(u *unit) bool { return len(u.name) > 14 && u.name[:14] == "example.com/fx" }
	var picks []*unit
	for _, k := range []string{"text", "data", "type", "funcval"} {
		us := byKind[k]
		if len(us) == 0 {
			t.Errorf("A reaches no %s unit", k)
			continue
		}
		for _, u := range us {
			if own(u) && len(picks) < 6 {
				picks = append(picks, u)
			}
		}
		for range 3 {
			picks = append(picks, us[rng.IntN(len(us))])
		}
	}
	head := filepath.Join(t.TempDir(), "mutant.test")
	for _, u := range picks {
		at := u.addr + rng.Uint64N(u.size)
		mut := slices.Clone(content)
		mut[u.sect.Offset+(at-u.sect.Addr)] ^= 1 << rng.IntN(8)
		if err := os.WriteFile(head, mut, 0o755); err != nil {
			t.Fatal(err)
		}
		rep, err := Analyze(base, head, []string{"A"})
		if err != nil {
			t.Fatal(err)
		}
		if v := rep.Benchmarks["A"]; v.Same {
			t.Errorf("byte %#x of %s (+%#x) flipped: A reported same", at, u.name, at-u.addr)
		} else {
			t.Logf("%s+%#x: %s", u.name, at-u.addr, v.Reason)
		}
	}
}
