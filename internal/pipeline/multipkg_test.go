package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/shard"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// twoPackages is a module of two gated packages, each with a block cipher and two benchmarks, and a
// package without tests. Head makes alpha's Encrypt about fifteen times slower, so that even a
// loaded machine cannot hide it, and leaves everything else as it is.
func twoPackages(slowAlpha bool) map[string]string {
	rounds := "1"
	if slowAlpha {
		rounds = "8"
	}
	cipherSrc := func(pkg, rounds string) string {
		return `package ` + pkg + `

import (
	"crypto/cipher"
	"errors"
)

// Cipher is a toy 8-byte block cipher: add and rotate, with the key.
type Cipher struct{ k [8]byte }

func NewCipher(key []byte) (cipher.Block, error) {
	if len(key) != 8 {
		return nil, errors.New("` + pkg + `: key must be 8 bytes")
	}
	c := new(Cipher)
	copy(c.k[:], key)
	return c, nil
}

func (c *Cipher) BlockSize() int { return 8 }

func (c *Cipher) Encrypt(dst, src []byte) {
	var b [8]byte
	copy(b[:], src[:8])
	for r := 0; r < 64; r++ {
		for n := 0; n < ` + rounds + `; n++ {
			b[r%8] ^= c.k[(r+n)%8] + byte(r)
		}
		if ` + rounds + ` > 1 {
			for n := 1; n < ` + rounds + `; n++ {
				b[r%8] ^= c.k[(r+n)%8] + byte(r)
			}
		}
	}
	copy(dst, b[:])
}

func (c *Cipher) Decrypt(dst, src []byte) {
	var b [8]byte
	copy(b[:], src[:8])
	for r := 63; r >= 0; r-- {
		b[r%8] ^= c.k[r%8] + byte(r)
	}
	copy(dst, b[:])
}

// Sum adds the bytes of p.
func Sum(p []byte) (s uint32) {
	for _, b := range p {
		s = s*31 + uint32(b)
	}
	return s
}
`
	}
	benchSrc := func(pkg string) string {
		return `package ` + pkg + `

import "testing"

func TestRoundTrip(t *testing.T) {
	c, _ := NewCipher([]byte("01234567"))
	var out, back [8]byte
	c.Encrypt(out[:], []byte("abcdefgh"))
	c.Decrypt(back[:], out[:])
	_ = back
}

func BenchmarkEncrypt(b *testing.B) {
	c, _ := NewCipher([]byte("01234567"))
	var buf [8]byte
	for b.Loop() {
		c.Encrypt(buf[:], buf[:])
	}
}

func BenchmarkSum(b *testing.B) {
	p := make([]byte, 256)
	for b.Loop() {
		Sum(p)
	}
}
`
	}
	return map[string]string{
		"go.mod":              testmod.GoMod("example.com/two", "1.26"),
		"alpha/alpha.go":      cipherSrc("alpha", rounds),
		"alpha/alpha_test.go": benchSrc("alpha"),
		"beta/beta.go":        cipherSrc("beta", "1"),
		"beta/beta_test.go":   benchSrc("beta"),
		"gamma/gamma.go":      "package gamma\n\nconst Answer = 42\n",
	}
}

// commitAll writes files into the work tree at dir and commits them, returning the commit's SHA.
func commitAll(t *testing.T, dir string, files map[string]string, when time.Time) string {
	t.Helper()
	testmod.Write(t, dir, files)
	return gittest.CommitAll(t, dir, "commit", when)
}

// twoPackageRepo is a git repository of twoPackages: base, then head with alpha's Encrypt slower.
func twoPackageRepo(t *testing.T) (dir, base, head string) {
	dir = t.TempDir()
	gittest.Init(t, dir)
	when := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	base = commitAll(t, dir, twoPackages(false), when)
	head = commitAll(t, dir, twoPackages(true), when.Add(time.Hour))
	return dir, base, head
}

func multiConfig(dir, base, head, out string) config.Config {
	cfg := config.Default()
	cfg.Dir, cfg.Base, cfg.Head, cfg.Out = dir, base, head, out
	cfg.Package = "./..."
	cfg.Rounds, cfg.BenchTime = 6, config.For(20*time.Millisecond)
	cfg.Alpha, cfg.Threshold = 0.01, 5
	cfg.Keys, cfg.Blocks = 32, 4
	// the instruction-count lane and metric auto have tests of their own
	cfg.Metric = record.MetricTime
	return cfg
}

// TestShardsMergeLikeOneRun: a two-package comparison run whole, and run as three shards one after
// another and merged, gives the same classes (but where one side is inconclusive), the same
// differential check and the same sizes; merge refuses a shard of another head commit, a shard
// given twice and a missing shard.
func TestShardsMergeLikeOneRun(t *testing.T) {
	testenv.Long(t) // builds and times two packages four times
	dir, base, head := twoPackageRepo(t)
	ctx := context.Background()
	out := t.TempDir()

	start := time.Now()
	whole, err := Run(ctx, multiConfig(dir, base, head, filepath.Join(out, "whole")))
	if err != nil {
		t.Fatalf("whole: %v", err)
	}
	t.Logf("whole run: %s", time.Since(start).Round(time.Millisecond))
	var shardDirs []string
	for i := 1; i <= 3; i++ {
		cfg := multiConfig(dir, base, head, filepath.Join(out, "shard", string(rune('0'+i))))
		cfg.Shard = config.Shard{Index: i, Count: 3}
		start := time.Now()
		res, err := Run(ctx, cfg)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		t.Logf("shard %d/3: %s, units %v", i, time.Since(start).Round(time.Millisecond), res.Shard.Units)
		if res.Shard == nil || res.Shard.Index != i || res.Shard.Count != 3 {
			t.Fatalf("shard %d: result says %+v", i, res.Shard)
		}
		shardDirs = append(shardDirs, cfg.Out)
	}
	merged, err := shard.Merge(shardDirs, filepath.Join(out, "merged"))
	if err != nil {
		t.Fatalf("merge: %v", err)
	}

	wantPkgs := []string{"./alpha", "./beta"}
	for name, r := range map[string]*record.Result{"whole": whole, "merged": merged} {
		if diff := cmp.Diff(wantPkgs, r.Packages); diff != "" {
			t.Errorf("%s: packages (-want +got):\n%s", name, diff)
		}
		if r.Shard != nil {
			t.Errorf("%s: result says it is shard %+v", name, r.Shard)
		}
		if r.Verdict.Status != record.StatusFail {
			t.Errorf("%s: verdict %s %v, want fail (alpha's Encrypt is slower)", name, r.Verdict.Status, r.Verdict.Reasons)
		}
	}
	rows := func(r *record.Result) map[string]record.Benchmark {
		m := map[string]record.Benchmark{}
		for _, b := range r.Benchmarks {
			if b.Unit == record.UnitTime {
				m[record.Qualified(b.Package, b.Name)] = b
			}
		}
		return m
	}
	bw, bm := rows(whole), rows(merged)
	if len(bw) != 4 || len(bm) != 4 {
		t.Fatalf("benchmarks: whole %v, merged %v; want 4 each", bw, bm)
	}
	cw, cm := map[string]record.Class{}, map[string]record.Class{}
	for name, b := range bw {
		cw[name], cm[name] = b.Class, bm[name].Class
		m := bm[name]
		if b.Class == m.Class || b.Class == record.ClassInconclusive || m.Class == record.ClassInconclusive {
			continue
		}
		// Two timed runs of the same binaries are two estimates of one ratio, taken minutes apart
		// on a shared machine: "unchanged" in one and "faster" in the other can both be what that
		// run saw (a shard timed while another test loaded the CPU once gave non-overlapping
		// intervals for identical code). Opposite verdicts are never consistent.
		opposite := (b.Class == record.ClassSlower && m.Class == record.ClassFaster) ||
			(b.Class == record.ClassFaster && m.Class == record.ClassSlower)
		if opposite {
			t.Errorf("%s: whole says %s %+v, merged %s %+v", name, b.Class, b.Paired, m.Class, m.Paired)
		}
	}
	if c := cw["Encrypt (./alpha)"]; c != record.ClassSlower {
		t.Errorf("whole: alpha's Encrypt is %s, want slower", c)
	}
	if c := cm["Encrypt (./alpha)"]; c != record.ClassSlower {
		t.Errorf("merged: alpha's Encrypt is %s, want slower", c)
	}

	// The differential check and the sizes ran once per package, in the shard that owned it: the
	// same.
	diffOf := func(r *record.Result) any {
		type row struct {
			Pkg, Name, Digest string
			Mismatches        int
		}
		var rows []row
		for _, c := range r.Differential.Ciphers {
			rows = append(rows, row{c.Package, c.Name, c.DigestHead, c.Mismatches})
		}
		return struct {
			Status record.DiffStatus
			Rows   []row
		}{r.Differential.Status, rows}
	}
	if diff := cmp.Diff(diffOf(whole), diffOf(merged)); diff != "" {
		t.Errorf("differential (-whole +merged):\n%s", diff)
	}
	// Each package has a block cipher (NewCipher) and a one-shot function (Sum).
	if whole.Differential.Status != record.DiffIdentical || len(whole.Differential.Ciphers) != 4 {
		t.Errorf("whole: differential %s with %d constructors, want identical with 4", whole.Differential.Status,
			len(whole.Differential.Ciphers))
	}
	if diff := cmp.Diff(whole.Sizes.Sections, merged.Sizes.Sections); diff != "" {
		t.Errorf("sizes (-whole +merged):\n%s", diff)
	}
	if len(whole.Sizes.Sections) == 0 || whole.Sizes.Sections[0].Package != "./alpha" {
		t.Errorf("whole: size rows %+v, want ./alpha's first", whole.Sizes.Sections)
	}
	onDisk, err := results.ReadResult(filepath.Join(out, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	if onDisk.Verdict.Status != merged.Verdict.Status || len(onDisk.Benchmarks) != len(merged.Benchmarks) {
		t.Errorf("merged result.json differs from the returned Result")
	}

	// Refusals.
	tampered := filepath.Join(out, "tampered")
	if err := results.Dir(tampered).CopyFrom(results.Dir(shardDirs[1]), "."); err != nil {
		t.Fatal(err)
	}
	r, err := results.Dir(tampered).ReadResult(0)
	if err != nil {
		t.Fatal(err)
	}
	r.Head.Commit = base
	if err := results.Dir(tampered).WriteResult(r); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"another head commit", []string{shardDirs[0], tampered, shardDirs[2]}, "merge: " + tampered + ": head commit " + base},
		{"shard twice", []string{shardDirs[0], shardDirs[1], shardDirs[1]}, "shard 2/3 is given twice"},
		{"shard missing", []string{shardDirs[0], shardDirs[2]}, "shard [2] of 3 missing"},
		{"not a shard", []string{filepath.Join(out, "whole")}, "not a shard's results"},
	} {
		_, err := shard.Merge(tc.dirs, filepath.Join(out, "refused"))
		var me *shard.MergeError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want a MergeError with %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "refused")); err == nil {
		t.Error("a refused merge wrote its results directory")
	}

}

// TestChangedPackages: changed: true gates a package whose dependency inside the module changed and
// one whose test file changed, and leaves out, with a note, the package that nothing of changed.
func TestChangedPackages(t *testing.T) {
	testenv.Long(t) // builds and times packages
	files := func(libValue, cTest string) map[string]string {
		pkgTest := func(pkg, body string) string {
			return "package " + pkg + "\n\nimport \"testing\"\n\nfunc BenchmarkF(b *testing.B) {\n\tfor b.Loop() {\n\t\t" + body + "\n\t}\n}\n"
		}
		return map[string]string{
			"go.mod":      testmod.GoMod("example.com/changed", "1.26"),
			"lib/lib.go":  "package lib\n\nfunc V() int { return " + libValue + " }\n",
			"a/a.go":      "package a\n\nimport \"example.com/changed/lib\"\n\nfunc F() int { return lib.V() + 1 }\n",
			"a/a_test.go": pkgTest("a", "F()"),
			"b/b.go":      "package b\n\nfunc F() int { return 2 }\n",
			"b/b_test.go": pkgTest("b", "F()"),
			"c/c.go":      "package c\n\nfunc F() int { return 3 }\n",
			"c/c_test.go": pkgTest("c", cTest),
		}
	}
	dir := t.TempDir()
	gittest.Init(t, dir)
	when := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	base := commitAll(t, dir, files("1", "F()"), when)
	head := commitAll(t, dir, files("10", "_ = F()"), when.Add(time.Hour))
	cfg := multiConfig(dir, base, head, filepath.Join(t.TempDir(), "out"))
	cfg.Changed, cfg.Differential, cfg.Rounds, cfg.BenchTime = true, false, 2, config.For(5*time.Millisecond)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"./a", "./c"}, res.Packages); diff != "" {
		t.Errorf("gated packages (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "unchanged") && strings.Contains(n, "./b") }) {
		t.Errorf("no note names ./b as left out: %q", res.Notes)
	}
	for _, b := range res.Benchmarks {
		if b.Package == "./b" {
			t.Errorf("./b was benchmarked: %+v", b)
		}
	}
}
