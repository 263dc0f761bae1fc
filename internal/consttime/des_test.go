package consttime

import (
	"context"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// TestCipherDES traces this repository's cipher/des against itself. Its package documentation says
// what to expect: Encrypt and Decrypt (the table engine) look up spBox (on amd64 spBox64, spBox32
// and the permutations' permBox64) by secret data, EncryptBlocks and DecryptBlocks (the bitsliced
// engines, 64 blocks a word or 256 with AVX2, both run by 320 blocks) neither branch on nor index
// by secrets, and the constructors' key schedule looks up pc2Box by key bits (key.go, unrolled.go's
// subkeys); nothing branches on a secret anywhere.
func TestCipherDES(t *testing.T) {
	needValgrind(t)
	if testing.Short() {
		t.Skip("traces five constructors under valgrind")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ct, err := Check(context.Background(), Config{
		Sides: subject.Sides{BaseDir: repo, HeadDir: repo, Pkg: "./cipher/des", Log: testLog{t}},
		// 320 blocks: a group of 256 for the AVX2 engine (where the CPU, or valgrind's, has AVX2)
		// and a tail of 64 for the 64-bit engine.
		BatchBlocks: 320})
	if err != nil {
		t.Fatal(err)
	}
	if ct.Status != record.CTChecked || len(ct.Operations) != 5*5 {
		t.Fatalf("status %q (%s), %d operations; want checked, 25", ct.Status, ct.Reason, len(ct.Operations))
	}
	t.Logf("%s, %d secrets: %v", ct.Tool, ct.Secrets, ct.Duration)
	for _, o := range ct.Operations {
		h := o.Head
		if len(h.Branches) != 0 {
			t.Errorf("%s %s: secret-dependent branches %+v", o.Constructor, o.Operation, h.Branches)
		}
		// On amd64 the single-block calls are assembly that reads spBox64 in
		// the rounds, spBox32 in the last one and permBox64 in the initial and
		// final permutations (cipher/des/block_amd64.go).
		want := map[string]string{"KeySetup": "pc2Box", "Encrypt": "spBox", "Decrypt": "spBox"}[o.Operation]
		tables := map[string]bool{want: true}
		if runtime.GOARCH == "amd64" && want == "spBox" {
			tables = map[string]bool{"spBox64": true, "spBox32": true, "permBox64": true}
		}
		if want == "" {
			if len(h.Loads) != 0 {
				t.Errorf("%s %s (bitsliced): secret-indexed accesses %+v", o.Constructor, o.Operation, h.Loads)
			}
			continue
		}
		if len(h.Loads) == 0 {
			t.Errorf("%s %s: no secret-indexed load, want loads of %s", o.Constructor, o.Operation, want)
		}
		seen := map[string]bool{}
		for _, l := range h.Loads {
			if !tables[l.Table] || l.Kind != "load" {
				t.Errorf("%s %s: site %+v, want a load of %v", o.Constructor, o.Operation, l, slices.Sorted(maps.Keys(tables)))
				break
			}
			seen[l.Table] = true
		}
		for name := range tables {
			if !seen[name] && len(h.Loads) > 0 {
				t.Errorf("%s %s: no secret-indexed load of %s", o.Constructor, o.Operation, name)
			}
		}
		t.Logf("%s %s: %d sites, lines per site up to %d, tables %d B", o.Constructor, o.Operation, len(h.Loads),
			h.MaxLines(), h.TableBytes())
	}
	if failed := ct.NewlyNotConstantTime(); len(failed) != 0 {
		t.Errorf("fail-new fails identical code: %+v", failed)
	}
}

// TestDemoFolded traces the demo history's base (S-boxes of 64 one-byte entries) against folded
// (the P permutation folded into SP tables of 64 four-byte entries): the pull request the fixture
// retells says each secret-indexed subtable grows from 64 to 256 bytes, one cache line to four.
// Both engines leak, so fail-new fails nothing.
func TestDemoFolded(t *testing.T) {
	needValgrind(t)
	if testing.Short() {
		t.Skip("builds two demo revisions and traces them under valgrind")
	}
	dirs := exportDemo(t, "base", "folded")
	ct, err := Check(context.Background(), Config{
		Sides:       subject.Sides{BaseDir: dirs[0], HeadDir: dirs[1], Pkg: demo.Package, Log: testLog{t}},
		BatchBlocks: 8}) // the textbook engine of base runs some 10,000 instructions a block
	if err != nil {
		t.Fatal(err)
	}
	if ct.Status != record.CTChecked {
		t.Fatalf("status %q (%s), want checked", ct.Status, ct.Reason)
	}
	seen := 0
	for _, o := range ct.Operations {
		if o.Operation == "KeySetup" {
			continue
		}
		b, h := o.Base, o.Head
		t.Logf("%s %s: %d sites (base %d); lines per lookup %d (base %d), per site %d (base %d); tables %d B "+
			"(base %d B)", o.Constructor, o.Operation, len(h.Loads), len(b.Loads), h.MaxLinesPerLookup(),
			b.MaxLinesPerLookup(), h.MaxLines(), b.MaxLines(), h.TableBytes(), b.TableBytes())
		// One site loops over the eight subtables; each lookup reads one of them. A batch method's
		// lookups are seen under BatchSecrets (2) secrets, too few to tell: only the single-block
		// calls' count.
		bl, hl := b.MaxLinesPerLookup(), h.MaxLinesPerLookup()
		if o.Operation != "Encrypt" && o.Operation != "Decrypt" {
			bl, hl = 0, 4
		}
		if bl > 2 || hl < 4 || b.TableBytes() != 512 || h.TableBytes() != 2048 || h.MaxLines() <= b.MaxLines() {
			t.Errorf("%s %s: lines per lookup %d → %d, per site %d → %d, tables %d → %d B; want at most 2 (64 "+
				"bytes, maybe across a line) → at least 4, more, 512 → 2048 B", o.Constructor, o.Operation, bl, hl,
				b.MaxLines(), h.MaxLines(), b.TableBytes(), h.TableBytes())
		}
		seen++
	}
	if seen != 2*4 {
		t.Errorf("%d operations besides KeySetup, want 8 (2 constructors × Encrypt, Decrypt and 2 batch methods)", seen)
	}
	if failed := ct.NewlyNotConstantTime(); len(failed) != 0 {
		t.Errorf("fail-new fails %+v, though base leaked as well", failed)
	}
	// fail-new fails the folded tables' lookups: each touches more lines than base's.
	grew := 0
	for _, d := range gate.NewSites(ct) {
		if d.Kind == gate.CTLoad && d.State == gate.CTSiteGrew {
			grew++
		}
	}
	if grew == 0 {
		t.Errorf("no site whose lines per lookup grew; site deltas %+v", gate.SiteDeltas(ct))
	}
	checkSARIF(t, ct, dirs[1], demo.Package)
}

// exportDemo materialises the demo history and exports the named commits, each into a directory of
// its own.
func exportDemo(t *testing.T, names ...string) []string {
	t.Helper()
	r, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := gitsrc.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, n := range names {
		c, err := g.Resolve(r.Commits[n])
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), strings.ReplaceAll(n, "/", "_"))
		if err := g.Export(context.Background(), c, dir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// testLog writes a Config's log to the test's.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
