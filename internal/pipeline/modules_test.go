package pipeline

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// Monorepos and nested modules: the package is a directory relative to cfg.Dir anywhere in the
// repository, and each side finds the module that contains it in its own tree.

// utilPkg is module example.com/util, which the xtea packages of the workspace and replace layouts
// import.
var utilPkg = map[string]string{
	"util/go.mod":  testmod.GoMod("example.com/util", "1.21"),
	"util/util.go": "package util\n\n// Rot rotates x left by 7.\nfunc Rot(x uint32) uint32 { return x<<7 | x>>25 }\n",
}

// xteaUsingUtil is package crypto/xtea calling util.Rot, with salt in its code.
func xteaUsingUtil(salt string) string {
	return "package xtea\n\nimport \"example.com/util\"\n\n// Mix scrambles x.\nfunc Mix(x uint32) uint32 { return util.Rot(x^" + salt + ") * 2654435761 }\n"
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func TestMonorepoLayouts(t *testing.T) {
	testenv.Long(t)
	for _, tc := range []struct {
		name       string
		base, head map[string]string // head: the files head changes
		runs       []struct{ dir, pkg string }
		importPath string
	}{{
		// The go.mod is in crypto/, not at the repository root.
		name: "module in a subdirectory",
		base: map[string]string{
			"README.md":             "monorepo\n",
			"docs/index.md":         "docs\n",
			"crypto/go.mod":         testmod.GoMod("example.com/crypto", "1.21"),
			"crypto/xtea/xtea.go":   mixPkg("xtea", "1"),
			"crypto/xtea/x_test.go": mixTest("xtea"),
		},
		head:       map[string]string{"crypto/xtea/xtea.go": mixPkg("xtea", "2")},
		runs:       []struct{ dir, pkg string }{{".", "./crypto/xtea"}, {"crypto", "./xtea"}, {"crypto/xtea", "."}, {"docs", "../crypto/xtea"}},
		importPath: "example.com/crypto/xtea",
	}, {
		// A go.work at the root uses both modules; crypto's go.mod does not require util, so only
		// the workspace builds it.
		name: "go.work",
		base: merge(utilPkg, map[string]string{
			"go.work":               "go 1.21\n\nuse (\n\t./crypto\n\t./util\n)\n",
			"crypto/go.mod":         testmod.GoMod("example.com/crypto", "1.21"),
			"crypto/xtea/xtea.go":   xteaUsingUtil("1"),
			"crypto/xtea/x_test.go": mixTest("xtea"),
		}),
		head:       map[string]string{"crypto/xtea/xtea.go": xteaUsingUtil("2")},
		runs:       []struct{ dir, pkg string }{{".", "./crypto/xtea"}, {"util", "../crypto/xtea"}, {".", "example.com/crypto/xtea"}},
		importPath: "example.com/crypto/xtea",
	}, {
		// crypto's go.mod replaces util by a directory of the same repository.
		name: "replace inside the repository",
		base: merge(utilPkg, map[string]string{
			"crypto/go.mod": testmod.GoMod("example.com/crypto", "1.21") +
				"\nrequire example.com/util v0.0.0\n\nreplace example.com/util => ../util\n",
			"crypto/xtea/xtea.go":   xteaUsingUtil("1"),
			"crypto/xtea/x_test.go": mixTest("xtea"),
		}),
		head:       map[string]string{"util/util.go": strings.Replace(utilPkg["util/util.go"], "x<<7 | x>>25", "x<<9 | x>>23", 1)},
		runs:       []struct{ dir, pkg string }{{".", "./crypto/xtea"}},
		importPath: "example.com/crypto/xtea",
	}, {
		// A module nested in the root module: the nearest go.mod governs the package.
		name: "nested module",
		base: map[string]string{
			"go.mod":               testmod.GoMod("example.com/root", "1.21"),
			"root.go":              "package root\n",
			"tools/go.mod":         testmod.GoMod("example.com/root/tools", "1.21"),
			"tools/hash/hash.go":   mixPkg("hash", "1"),
			"tools/hash/h_test.go": mixTest("hash"),
		},
		head:       map[string]string{"tools/hash/hash.go": mixPkg("hash", "3")},
		runs:       []struct{ dir, pkg string }{{".", "./tools/hash"}, {"tools/hash", "."}},
		importPath: "example.com/root/tools/hash",
	}, {
		// Head splits crypto/ out into a module of its own: each side builds in the module it has.
		name: "head moves the package into a nested module",
		base: map[string]string{
			"go.mod":                testmod.GoMod("example.com/root", "1.21"),
			"crypto/xtea/xtea.go":   mixPkg("xtea", "1"),
			"crypto/xtea/x_test.go": mixTest("xtea"),
		},
		head:       map[string]string{"crypto/go.mod": testmod.GoMod("example.com/root/crypto", "1.21")},
		runs:       []struct{ dir, pkg string }{{".", "./crypto/xtea"}},
		importPath: "example.com/root/crypto/xtea", // head's
	}} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testmod.NewRepo(t)
			base := repo.Commit("base", tc.base)
			head := repo.Commit("head", tc.head)
			for _, r := range tc.runs {
				t.Run(strings.ReplaceAll(r.dir, "/", "_")+"/"+r.pkg, func(t *testing.T) {
					cfg := fastConfig(t, filepath.Join(repo.Dir, filepath.FromSlash(r.dir)), r.pkg, base, head)
					res, err := runE2E(t, cfg)
					wantCompared(t, res, err, "Mix")
					if res.ImportPath != tc.importPath {
						t.Errorf("import path %q, want %q", res.ImportPath, tc.importPath)
					}
					if res.Package != r.pkg {
						t.Errorf("result's package %q, want %q as given", res.Package, r.pkg)
					}
					if res.Sizes.Error != "" || len(res.Sizes.Sections) == 0 {
						t.Errorf("sizes: %q, %d sections; want the package measured", res.Sizes.Error, len(res.Sizes.Sections))
					}
				})
			}
		})
	}
}

// TestPackageInNoModule: a package no go.mod governs is an error when base has no module (exit 3,
// naming base's commit and the directory) and fails the gate when only head has none (exit 1); a
// repository without any go.mod is a *NoModuleError (exit 3).
func TestPackageInNoModule(t *testing.T) {
	pkg := map[string]string{"crypto/xtea/xtea.go": mixPkg("xtea", "1"), "crypto/xtea/x_test.go": mixTest("xtea")}
	mod := map[string]string{"crypto/go.mod": testmod.GoMod("example.com/crypto", "1.21")}

	t.Run("repository without go.mod", func(t *testing.T) {
		repo := testmod.NewRepo(t)
		base := repo.Commit("base", pkg)
		head := repo.Commit("head", map[string]string{"crypto/xtea/xtea.go": mixPkg("xtea", "2")})
		res, err := runE2E(t, fastConfig(t, repo.Dir, "./crypto/xtea", base, head))
		var nm *NoModuleError
		if !errors.As(err, &nm) || config.ExitCode(err) != record.ExitCannotRun || res.Verdict.ExitCode != record.ExitCannotRun {
			t.Fatalf("error %v (exit %d), verdict exit %d; want a *NoModuleError, exit 3", err, config.ExitCode(err), res.Verdict.ExitCode)
		}
		for _, want := range []string{"package ./crypto/xtea is in no Go module", "no go.mod in crypto/xtea or any parent", "add a go.mod"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
	t.Run("base in no module", func(t *testing.T) {
		repo := testmod.NewRepo(t)
		base := repo.Commit("base", pkg)
		head := repo.Commit("head", mod)
		res, err := runE2E(t, fastConfig(t, repo.Dir, "./crypto/xtea", base, head))
		want := "base: crypto/xtea is in no Go module in " + base[:12]
		if err == nil || !strings.HasPrefix(err.Error(), want) || res.Verdict.ExitCode != record.ExitCannotRun {
			t.Fatalf("error %v, verdict exit %d; want %q…, exit 3", err, res.Verdict.ExitCode, want)
		}
	})
	t.Run("head in no module", func(t *testing.T) {
		repo := testmod.NewRepo(t)
		base := repo.Commit("base", merge(pkg, mod))
		head := repo.Commit("head", nil, "crypto/go.mod")
		res, err := runE2E(t, fastConfig(t, repo.Dir, "./crypto/xtea", base, head))
		if err != nil || res.Verdict.Status != record.StatusFail || res.Verdict.ExitCode != record.ExitFail || !res.HeadBuildFailed {
			t.Fatalf("error %v, verdict %s exit %d, head build failed %v; want the gate failed (exit 1) because head does not build",
				err, res.Verdict.Status, res.Verdict.ExitCode, res.HeadBuildFailed)
		}
		if want := "head: crypto/xtea is in no Go module in " + head[:12]; !strings.Contains(strings.Join(res.Notes, "\n"), want) {
			t.Errorf("notes %q do not say %q", res.Notes, want)
		}
	})
	t.Run("package outside the repository or on neither side", func(t *testing.T) {
		repo := testmod.NewRepo(t)
		base := repo.Commit("base", merge(pkg, mod))
		head := repo.Commit("head", map[string]string{"crypto/xtea/xtea.go": mixPkg("xtea", "2")})
		for pkg, want := range map[string]string{
			"../elsewhere":   "want a package directory inside the repository",
			"./crypto/nope":  "want a package directory that exists in base or head, relative to the repository root",
			"./crypto/xtea2": "want a package directory that exists in base or head",
			"./crypto/...":   "want packages or patterns of the module of the directory perfgate runs in",
		} {
			res, err := runE2E(t, fastConfig(t, repo.Dir, pkg, base, head))
			var ce *config.Error
			if !errors.As(err, &ce) || res.Verdict.ExitCode != record.ExitUsage || !strings.Contains(err.Error(), want) {
				t.Errorf("-pkg %s: error %v, exit %d; want a configuration error (exit 2) saying %q", pkg, err, res.Verdict.ExitCode, want)
			}
		}
	})
}

// xorCipher is package xtea with a toy 8-byte block cipher (XOR with the key) behind the
// constructor shape the differential discovers, and a benchmark of it.
var xorCipher = map[string]string{
	"crypto/xtea/xtea.go": `package xtea

import "crypto/cipher"

type xor [8]byte

// NewCipher returns a toy block cipher keyed by an 8-byte key.
func NewCipher(key []byte) (cipher.Block, error) {
	if len(key) != 8 {
		return nil, KeySizeError(len(key))
	}
	var c xor
	copy(c[:], key)
	return &c, nil
}

// KeySizeError is a key of the wrong length.
type KeySizeError int

func (k KeySizeError) Error() string { return "xtea: bad key size" }

func (c *xor) BlockSize() int { return 8 }

func (c *xor) Encrypt(dst, src []byte) {
	for i := 0; i < 8; i++ {
		dst[i] = src[i] ^ c[i]
	}
}

func (c *xor) Decrypt(dst, src []byte) { c.Encrypt(dst, src) }
`,
	"crypto/xtea/xtea_test.go": `package xtea

import "testing"

func BenchmarkEncrypt(b *testing.B) {
	c, _ := NewCipher(make([]byte, 8))
	buf := make([]byte, 8)
	for i := 0; i < b.N; i++ {
		c.Encrypt(buf, buf)
	}
}
`,
}

// TestMonorepoDifferential: head moves the package into a module of its own, so the package is
// "./crypto/xtea" in base's module and "./xtea" in head's; the differential still checks the same
// package on both sides.
func TestMonorepoDifferential(t *testing.T) {
	testenv.Long(t)
	repo := testmod.NewRepo(t)
	base := repo.Commit("base", merge(xorCipher, map[string]string{"go.mod": testmod.GoMod("example.com/root", "1.21")}))
	head := repo.Commit("head", map[string]string{"crypto/go.mod": testmod.GoMod("example.com/root/crypto", "1.21")})
	cfg := fastConfig(t, repo.Dir, "./crypto/xtea", base, head)
	cfg.Differential, cfg.Keys, cfg.Blocks = true, 8, 2
	res, err := runE2E(t, cfg)
	wantCompared(t, res, err, "Encrypt")
	d := res.Differential
	if d.Status != record.DiffIdentical || len(d.Ciphers) != 1 || d.Ciphers[0].Name != "NewCipher" || d.Package != "./crypto/xtea" {
		t.Errorf("differential %s (%s), package %q, ciphers %+v; want NewCipher of ./crypto/xtea identical", d.Status, d.Reason, d.Package, d.Ciphers)
	}
}
