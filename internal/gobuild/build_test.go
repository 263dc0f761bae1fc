package gobuild

import (
	"context"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

func demoConfig(t *testing.T, dir, out string) Config {
	return Config{Dir: dir, Pkg: demo.Package, Out: filepath.Join(t.TempDir(), out)}
}

func TestBuildDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds real test binaries")
	}
	// "base#2" is a second export of base into another directory.
	trees := testmod.DemoTrees(t, "base", "folded", "base#2", "nobuild")
	ctx := t.Context()

	build := func(side record.Side, cfg Config) time.Duration {
		t.Helper()
		start := time.Now()
		log, err := Build(ctx, side, cfg)
		if err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
		if !strings.Contains(string(log), "go test -c -o "+cfg.Out+" -trimpath ./minides") {
			t.Errorf("build log does not show the command:\n%s", log)
		}
		return time.Since(start)
	}
	base := demoConfig(t, trees["base"], "base.test")
	head := demoConfig(t, trees["folded"], "head.test")
	again := demoConfig(t, trees["base#2"], "base2.test")
	dBase := build(record.Base, base)
	dHead := build(record.Head, head)
	build(record.Base, again)
	// Not an assertion (timing never is): the second side reuses the shared cache for everything
	// but the package.
	t.Logf("build base %v, head %v (head/base %.0f%%) with the user's cache; see BenchmarkBuildSharedCache", dBase, dHead, 100*dHead.Seconds()/dBase.Seconds())

	same := func(a, b string) bool {
		t.Helper()
		s, err := SameBinary(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if same(base.Out, head.Out) {
		t.Error("SameBinary(base, folded) = true, want false: the sources differ")
	}
	// -trimpath: the same commit exported into two directories builds to the same bytes.
	if !same(base.Out, again.Out) {
		t.Error("SameBinary(base, base exported elsewhere) = false, want true")
	}
	// Rebuilding the same tree gives the same bytes too.
	build(record.Base, base)
	if !same(base.Out, again.Out) {
		t.Error("rebuilding base changed the binary")
	}

	// The binary keeps its symbol table, which the size measurement reads.
	if runtime.GOOS == "linux" {
		f, err := elf.Open(head.Out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Section(".symtab") == nil {
			t.Error("test binary has no .symtab")
		}
	}

	// A compile error names the side, the command, its exit status and the compiler's message.
	nb := demoConfig(t, trees["nobuild"], "nobuild.test")
	log, err := Build(ctx, record.Head, nb)
	var be *Error
	if !errors.As(err, &be) || be.Side != record.Head {
		t.Fatalf("Build(nobuild) error = %v, want *Error for head", err)
	}
	var pe *proc.Error
	if !errors.As(err, &pe) || pe.ExitCode != 1 || pe.Argv[0] != "go" {
		t.Errorf("Build(nobuild) does not wrap the go command's *proc.Error: %#v", pe)
	}
	msg := err.Error()
	for _, want := range []string{"building head: ", "go test -c", "exit status 1", "minides/block.go:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Build(nobuild) error does not contain %q:\n%s", want, msg)
		}
	}
	if !strings.Contains(string(log), "minides/block.go:") {
		t.Errorf("build log lacks the compiler message:\n%s", log)
	}
	if _, err := os.Stat(nb.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed build left %s", nb.Out)
	}

	info, err := Inspect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	wantDir, _ := filepath.EvalSymlinks(filepath.Join(trees["base"], "minides"))
	gotDir, _ := filepath.EvalSymlinks(info.Dir)
	if info.ImportPath != demo.ImportPath || info.Name != "minides" || !info.HasTests || gotDir != wantDir {
		t.Errorf("Inspect(base) = %+v, want %s, minides, tests, dir %s", info, demo.ImportPath, wantDir)
	}
}

func TestBuildNoTests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := testmod.Temp(t, map[string]string{"go.mod": "module example.com/nt\n\ngo 1.21\n", "p/p.go": "package p\n"})
	cfg := Config{Dir: dir, Pkg: "./p", Out: filepath.Join(t.TempDir(), "p.test")}
	// A stale binary from an earlier run must not be taken for this build's output.
	if err := os.WriteFile(cfg.Out, []byte("stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Build(t.Context(), record.Base, cfg)
	var be *Error
	if !errors.Is(err, ErrNoTests) || !errors.As(err, &be) || be.Side != record.Base {
		t.Errorf("Build of a package without tests: %v, want a base *Error wrapping ErrNoTests", err)
	}
	if want := "building base: ./p: package has no tests or benchmarks"; err == nil || err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	info, err := Inspect(t.Context(), cfg)
	if err != nil || info.HasTests || info.ImportPath != "example.com/nt/p" {
		t.Errorf("Inspect = %+v, %v; want example.com/nt/p without tests", info, err)
	}
	cfg.Pkg = "./..."
	if err := os.MkdirAll(filepath.Join(dir, "q"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "q", "q.go"), []byte("package q\n"), 0o644)
	if _, err := Inspect(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "matches 2 packages") {
		t.Errorf("Inspect(./...) = %v, want an error about 2 packages", err)
	}
}

// TestBuildEnvironment checks that the user's GOFLAGS and GOWORK cannot change a side's build, and
// that a go.work carried by the tree is honoured.
func TestBuildEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	// Module a needs example.com/b, which only the tree's go.work provides.
	tree := testmod.Temp(t, map[string]string{
		"go.work":     "go 1.21\n\nuse (\n\t./a\n\t./b\n)\n",
		"a/go.mod":    "module example.com/a\n\ngo 1.21\n\nrequire example.com/b v0.0.0\n",
		"a/a.go":      "package a\n\nimport \"example.com/b\"\n\nfunc A() int { return b.B }\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"b/go.mod":    "module example.com/b\n\ngo 1.21\n",
		"b/b.go":      "package b\n\nconst B = 1\n",
	})
	// A GOWORK pointing elsewhere and a GOFLAGS that would strip the symbol table are both
	// overridden.
	elsewhere := testmod.Temp(t, map[string]string{"go.work": "go 1.21\n"})
	t.Setenv("GOWORK", filepath.Join(elsewhere, "go.work"))
	t.Setenv("GOFLAGS", "-ldflags=-s")
	cfg := Config{Dir: filepath.Join(tree, "a"), Root: tree, Pkg: ".", Out: filepath.Join(t.TempDir(), "a.test")}
	if log, err := Build(context.Background(), record.Head, cfg); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if runtime.GOOS == "linux" {
		f, err := elf.Open(cfg.Out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Section(".symtab") == nil {
			t.Error("the user's GOFLAGS=-ldflags=-s reached the build: no .symtab")
		}
	}
	if got, want := findWork(cfg.Dir, cfg.Root), filepath.Join(tree, "go.work"); got != want {
		t.Errorf("findWork = %q, want %q", got, want)
	}
	// Without Root the search stops at Dir.
	if got := findWork(cfg.Dir, ""); got != "off" {
		t.Errorf("findWork without Root = %q, want off", got)
	}
	env := strings.Join(buildEnv(Config{Dir: cfg.Dir, Cache: "/c", Env: []string{"GOTOOLCHAIN=auto"}}), " ")
	if want := "GOFLAGS=-trimpath GOWORK=off GOTOOLCHAIN=local GOCACHE=/c GOTOOLCHAIN=auto"; env != want {
		t.Errorf("buildEnv = %q, want %q (the last GOTOOLCHAIN wins in proc.Command)", env, want)
	}
}

func TestSameBinary(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := make([]byte, 200<<10) // spans several read buffers
	for i := range big {
		big[i] = byte(i * 7)
	}
	changed := append([]byte(nil), big...)
	changed[150<<10] ^= 1
	a, b, c := write("a", big), write("b", big), write("c", changed)
	d := write("d", big[:len(big)-1])
	for _, tt := range []struct {
		x, y string
		want bool
	}{{a, b, true}, {a, c, false}, {a, d, false}, {d, a, false}, {a, a, true}} {
		got, err := SameBinary(tt.x, tt.y)
		if err != nil || got != tt.want {
			t.Errorf("SameBinary(%s, %s) = %v, %v; want %v", filepath.Base(tt.x), filepath.Base(tt.y), got, err, tt.want)
		}
	}
	if _, err := SameBinary(a, filepath.Join(dir, "missing")); err == nil {
		t.Error("SameBinary with a missing file: no error")
	}
}

// BenchmarkBuildSharedCache measures the second side's build relative to the first when both share
// one GOCACHE. "cold" starts every iteration from an empty cache: the base build compiles the
// standard library packages the test binary needs, the head build reuses them. "warm" keeps the
// cache and makes the gated package new to it on both sides (a nonce file), as on a developer's
// machine. Run with -benchtime=1x:
//
//	go test -run '^$' -bench BuildSharedCache -benchtime 1x ./bench
func BenchmarkBuildSharedCache(b *testing.B) {
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			trees := testmod.DemoTrees(b, "base", "folded")
			dirs := map[record.Side]string{record.Base: trees["base"], record.Head: trees["folded"]}
			warmCache := b.TempDir()
			if mode == "warm" {
				// Fill the cache with everything but the nonce-bearing package.
				cfg := Config{Dir: dirs[record.Base], Pkg: demo.Package, Cache: warmCache, Out: filepath.Join(b.TempDir(), "warmup.test")}
				if log, err := Build(context.Background(), record.Base, cfg); err != nil {
					b.Fatalf("%v\n%s", err, log)
				}
			}
			var base, head time.Duration
			for b.Loop() {
				cache := warmCache
				if mode == "cold" {
					cache = filepath.Join(b.TempDir(), "cache")
				}
				nonce := []byte("package minides\n\nconst nonce = \"" + time.Now().String() + "\"\n")
				for _, dir := range trees {
					if err := os.WriteFile(filepath.Join(dir, "minides", "zz_nonce.go"), nonce, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				for _, side := range []record.Side{record.Base, record.Head} {
					cfg := Config{Dir: dirs[side], Pkg: demo.Package, Cache: cache,
						Out: filepath.Join(b.TempDir(), string(side)+".test")}
					start := time.Now()
					if log, err := Build(context.Background(), side, cfg); err != nil {
						b.Fatalf("%v\n%s", err, log)
					}
					if side == record.Base {
						base += time.Since(start)
					} else {
						head += time.Since(start)
					}
				}
			}
			b.ReportMetric(base.Seconds()/float64(b.N), "base-s/op")
			b.ReportMetric(head.Seconds()/float64(b.N), "head-s/op")
			b.ReportMetric(100*head.Seconds()/base.Seconds(), "head/base-%")
		})
	}
}
