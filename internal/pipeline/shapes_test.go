package pipeline

import (
	"archive/zip"
	"context"
	"go/build"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
)

// The packages real libraries are made of: each shape is a fixture committed twice (base, and head
// with a small change) and compared end to end by Run.

// shapeRepo commits files as base and then head's changes, and returns the repository and both
// commits.
func shapeRepo(t *testing.T, base, head map[string]string) (repo *testmod.Repo, b, h string) {
	t.Helper()
	repo = testmod.NewRepo(t)
	return repo, repo.Commit("base", base), repo.Commit("head", head)
}

// Assembly for amd64 with a pure-Go fallback that the purego build tag selects, as
// golang.org/x/crypto does. The benchmark names the implementation it measures, so the result shows
// which one was built.
func TestShapeAssemblyPurego(t *testing.T) {
	testenv.Long(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the fixture's assembly is amd64")
	}
	files := map[string]string{
		"go.mod": testmod.GoMod("example.com/rot", "1.16"),
		"rot.go": "package rot\n\n// Rot rotates x left by 7.\nfunc Rot(x uint32) uint32 { return rot(x) }\n",
		"rot_amd64.go": "//go:build amd64 && !purego\n// +build amd64,!purego\n\npackage rot\n\nconst impl = \"asm\"\n\n" +
			"func rot(x uint32) uint32\n",
		"rot_amd64.s": "//go:build amd64 && !purego\n// +build amd64,!purego\n\n#include \"textflag.h\"\n\n" +
			"// func rot(x uint32) uint32\nTEXT ·rot(SB), NOSPLIT, $0-12\n\tMOVL x+0(FP), AX\n\tROLL $7, AX\n\tMOVL AX, ret+8(FP)\n\tRET\n",
		"rot_generic.go": "//go:build !amd64 || purego\n// +build !amd64 purego\n\npackage rot\n\nconst impl = \"purego\"\n\n" +
			"func rot(x uint32) uint32 { return x<<7 | x>>25 }\n",
		"rot_test.go": "package rot\n\nimport \"testing\"\n\n" +
			"func TestRot(t *testing.T) {\n\tif got := Rot(0x80000001); got != 0xc0 {\n\t\tt.Fatalf(\"%s: Rot(0x80000001) = %#x, want 0xc0\", impl, got)\n\t}\n}\n\n" +
			"var sink uint32\n\nfunc BenchmarkRot(b *testing.B) {\n\tb.Run(impl, func(b *testing.B) {\n\t\tfor i := 0; i < b.N; i++ {\n\t\t\tsink += Rot(uint32(i))\n\t\t}\n\t})\n}\n",
	}
	repo, base, head := shapeRepo(t, files, map[string]string{"rot.go": files["rot.go"] + "\n// Size is the word size in bytes.\nconst Size = 4\n"})
	for _, tc := range []struct {
		tags []string
		want string
	}{{nil, "Rot/asm"}, {[]string{"purego"}, "Rot/purego"}} {
		t.Run(tc.want, func(t *testing.T) {
			cfg := fastConfig(t, repo.Dir, ".", base, head)
			cfg.Tags = tc.tags
			res, err := runE2E(t, cfg)
			wantCompared(t, res, err, tc.want)
		})
	}
}

// A cgo package: the test binary links C code, and the size measurement still finds the package's
// Go symbols.
func TestShapeCgo(t *testing.T) {
	testenv.Long(t)
	if !build.Default.CgoEnabled {
		t.Skip("cgo is not enabled")
	}
	// Without its C compiler the go command builds with cgo off, and the package has no Mix.
	cc := "gcc"
	if f := strings.Fields(os.Getenv("CC")); len(f) > 0 {
		cc = f[0]
	}
	testenv.NeedTool(t, cc, "apt-get install gcc")
	cmix := func(mul string) string {
		return "package cmix\n\n/*\nstatic unsigned int cmix(unsigned int x) { return x * " + mul + "u; }\n*/\nimport \"C\"\n\n" +
			"// Mix scrambles x in C.\nfunc Mix(x uint32) uint32 { return uint32(C.cmix(C.uint(x))) }\n"
	}
	repo, base, head := shapeRepo(t, map[string]string{
		"go.mod":       testmod.GoMod("example.com/cmix", "1.20"),
		"cmix.go":      cmix("2654435761"),
		"cmix_test.go": mixTest("cmix"),
	}, map[string]string{"cmix.go": cmix("2246822519")})
	res, err := runE2E(t, fastConfig(t, repo.Dir, ".", base, head))
	wantCompared(t, res, err, "Mix")
	if res.Sizes.Error != "" || len(res.Sizes.Symbols) == 0 {
		t.Errorf("sizes: error %q, %d symbols; want the package's symbols measured", res.Sizes.Error, len(res.Sizes.Symbols))
	}
}

// Tests and benchmarks that read testdata/ relative to the package directory, where the test binary
// runs; the package sits below the module root, so a binary run from the module root would not find
// the file.
func TestShapeTestdata(t *testing.T) {
	test := "package vec\n\nimport (\n\t\"os\"\n\t\"strings\"\n\t\"testing\"\n)\n\n" +
		"func vectors(tb testing.TB) []string {\n\tdata, err := os.ReadFile(\"testdata/vectors.txt\")\n\tif err != nil {\n\t\ttb.Fatal(err)\n\t}\n" +
		"\treturn strings.Fields(string(data))\n}\n\n" +
		"func TestVectors(t *testing.T) {\n\tif n := len(vectors(t)); n != 3 {\n\t\tt.Fatalf(\"%d vectors, want 3\", n)\n\t}\n}\n\n" +
		"var sink uint32\n\nfunc BenchmarkMix(b *testing.B) {\n\tv := vectors(b)\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Mix(uint32(len(v[i%len(v)])))\n\t}\n}\n"
	repo, base, head := shapeRepo(t, map[string]string{
		"go.mod":                         testmod.GoMod("example.com/lib", "1.12"),
		"codec/vec/vec.go":               mixPkg("vec", "1"),
		"codec/vec/vec_test.go":          test,
		"codec/vec/testdata/vectors.txt": "a bb ccc\n",
	}, map[string]string{"codec/vec/vec.go": mixPkg("vec", "2")})
	res, err := runE2E(t, fastConfig(t, repo.Dir, "./codec/vec", base, head))
	wantCompared(t, res, err, "Mix")
}

// Benchmarks only in an external test package (package xtea_test), which imports the package by its
// path.
func TestShapeExternalTestPackage(t *testing.T) {
	testenv.Long(t)
	xtest := "package xtea_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/xtea\"\n)\n\n" +
		"var sink uint32\n\nfunc BenchmarkMix(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += xtea.Mix(uint32(i))\n\t}\n}\n"
	repo, base, head := shapeRepo(t, map[string]string{
		"go.mod":    testmod.GoMod("example.com/xtea", "1.16"),
		"xtea.go":   mixPkg("xtea", "1"),
		"x_test.go": xtest,
	}, map[string]string{"xtea.go": mixPkg("xtea", "2")})
	res, err := runE2E(t, fastConfig(t, repo.Dir, ".", base, head))
	wantCompared(t, res, err, "Mix")
}

// A TestMain that prepares a table the benchmarks need and prints to standard output, as setup code
// does.
func TestShapeTestMain(t *testing.T) {
	testenv.Long(t)
	test := "package tm\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\nvar table []uint32\n\n" +
		"func TestMain(m *testing.M) {\n\ttable = []uint32{1, 2, 3, 5, 8}\n\tfmt.Println(\"setup: table ready\")\n\tcode := m.Run()\n" +
		"\tfmt.Println(\"teardown\")\n\tos.Exit(code)\n}\n\n" +
		"func TestTable(t *testing.T) {\n\tif len(table) != 5 {\n\t\tt.Fatal(\"TestMain did not run\")\n\t}\n}\n\n" +
		"var sink uint32\n\nfunc BenchmarkMix(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Mix(table[i%len(table)])\n\t}\n}\n"
	repo, base, head := shapeRepo(t, map[string]string{
		"go.mod":     testmod.GoMod("example.com/tm", "1.20"),
		"tm.go":      mixPkg("tm", "1"),
		"tm_test.go": test,
	}, map[string]string{"tm.go": mixPkg("tm", "2")})
	res, err := runE2E(t, fastConfig(t, repo.Dir, ".", base, head))
	wantCompared(t, res, err, "Mix")
}

// Benchmarks that loop with b.Loop (Go 1.24), and ones that skip themselves, whole or one
// sub-benchmark, as code for hardware the machine lacks does: skipped benchmarks are not failures
// and not compared.
func TestShapeLoopAndSkip(t *testing.T) {
	testenv.Long(t)
	test := "package lp\n\nimport \"testing\"\n\nvar sink uint32\n\n" +
		"func BenchmarkLoop(b *testing.B) {\n\tb.Run(\"generic\", func(b *testing.B) {\n\t\tfor b.Loop() {\n\t\t\tsink += Mix(7)\n\t\t}\n\t})\n" +
		"\tb.Run(\"avx512\", func(b *testing.B) {\n\t\tb.Skip(\"no AVX-512 on this machine\")\n\t})\n}\n\n" +
		"func BenchmarkHardware(b *testing.B) {\n\tb.Skip(\"no such hardware\")\n}\n\n" +
		"func BenchmarkClassic(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Mix(uint32(i))\n\t}\n}\n"
	repo, base, head := shapeRepo(t, map[string]string{
		"go.mod":     testmod.GoMod("example.com/lp", "1.24"),
		"lp.go":      mixPkg("lp", "1"),
		"lp_test.go": test,
	}, map[string]string{"lp.go": mixPkg("lp", "2")})
	res, err := runE2E(t, fastConfig(t, repo.Dir, ".", base, head))
	wantCompared(t, res, err, "Classic", "Loop/generic")
}

// depModule is module example.com/dep v1.0.0, which the vendor and proxy fixtures require.
var depModule = map[string]string{
	"go.mod": testmod.GoMod("example.com/dep", "1.16"),
	"dep.go": "package dep\n\n// K is a multiplier.\nconst K = 2654435761\n",
}

// usesDep is a package that multiplies by dep.K.
func usesDep(salt string) string {
	return "package app\n\nimport \"example.com/dep\"\n\n// Mix scrambles x.\nfunc Mix(x uint32) uint32 { return (x ^ " + salt + ") * dep.K }\n"
}

// A vendor/ directory: the go command builds from it, with the module proxy off and an empty module
// cache.
func TestShapeVendor(t *testing.T) {
	testenv.Long(t)
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOMODCACHE", emptyModCache(t))
	repo, base, head := shapeRepo(t, map[string]string{
		"go.mod":                        testmod.GoMod("example.com/app", "1.20") + "\nrequire example.com/dep v1.0.0\n",
		"app.go":                        usesDep("1"),
		"app_test.go":                   mixTest("app"),
		"vendor/modules.txt":            "# example.com/dep v1.0.0\n## explicit; go 1.16\nexample.com/dep\n",
		"vendor/example.com/dep/dep.go": depModule["dep.go"],
	}, map[string]string{"app.go": usesDep("2")})
	res, err := runE2E(t, fastConfig(t, repo.Dir, ".", base, head))
	wantCompared(t, res, err, "Mix")
}

// A dependency fetched from the module proxy on the first build (a file:// proxy and an empty
// module cache): the download happens while the package is inspected and built, is shown in the
// progress log and kept in the build log, and comes before anything is timed.
func TestShapeProxyDownload(t *testing.T) {
	testenv.Long(t)
	proxy := writeProxy(t, "example.com/dep", "v1.0.0", depModule)
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GONOSUMDB", "")
	files := map[string]string{
		"go.mod":      testmod.GoMod("example.com/app", "1.20") + "\nrequire example.com/dep v1.0.0\n",
		"app.go":      usesDep("1"),
		"app_test.go": mixTest("app"),
	}
	// go.sum as go mod tidy writes it, made with a module cache of its own.
	dir := testmod.Temp(t, files)
	goCmd(t, dir, []string{"GOMODCACHE=" + emptyModCache(t), "GOFLAGS=-mod=mod"}, "mod", "tidy")
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil || !strings.Contains(string(sum), "example.com/dep v1.0.0 h1:") {
		t.Fatalf("go.sum %q, %v: want example.com/dep's hashes", sum, err)
	}
	files["go.sum"] = string(sum)
	repo, base, head := shapeRepo(t, files, map[string]string{"app.go": usesDep("2")})

	cache := emptyModCache(t)
	t.Setenv("GOMODCACHE", cache)
	cfg := fastConfig(t, repo.Dir, ".", base, head)
	log := &syncBuffer{}
	res, err := runLogged(t, cfg, log)
	wantCompared(t, res, err, "Mix")
	if _, err := os.Stat(filepath.Join(cache, "example.com", "dep@v1.0.0", "dep.go")); err != nil {
		t.Errorf("the dependency is not in the module cache: %v", err)
	}
	progress := log.String()
	dl, timing := strings.Index(progress, "base: go: downloading example.com/dep v1.0.0"), strings.Index(progress, "timing:")
	if dl < 0 || timing < 0 || dl > timing {
		t.Errorf("progress log: download at %d, timing at %d; want the download shown before timing starts", dl, timing)
	}
	buildLog, err := os.ReadFile(filepath.Join(cfg.Out, "build-base.log"))
	if err != nil || !strings.Contains(string(buildLog), "go: downloading example.com/dep v1.0.0") {
		t.Errorf("build-base.log %q, %v: want the download in it", buildLog, err)
	}
}

// emptyModCache returns a new, empty module cache directory, cleaned with go clean -modcache (its
// files are read-only) when the test ends.
func emptyModCache(t *testing.T) string {
	dir := t.TempDir()
	t.Cleanup(func() {
		cmd := proc.Command(context.Background(), dir, []string{"GOMODCACHE=" + dir}, "go", "clean", "-modcache")
		proc.Run(cmd)
	})
	return dir
}

// goCmd runs the go command with args in dir, with extra environment; a failure fails the test.
func goCmd(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	if _, _, err := proc.Run(proc.Command(context.Background(), dir, env, append([]string{"go"}, args...)...)); err != nil {
		t.Fatal(err)
	}
}

// writeProxy writes a module proxy directory (the layout GOPROXY=file:// reads: list, .info, .mod,
// .zip) that serves module path at version with files, and returns it.
func writeProxy(t *testing.T, path, version string, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("list", version+"\n")
	write(version+".info", `{"Version":"`+version+`","Time":"2026-01-01T00:00:00Z"}`)
	write(version+".mod", files["go.mod"])
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		w, err := z.Create(path + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return root
}
