package gobuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// ErrNoTests is wrapped by Build's error when the package has no _test.go files, so that go test -c
// writes no binary, and by nothing else.
var ErrNoTests = errors.New("package has no tests or benchmarks")

// Config says how to build one side's test binary. Base and head use the same Config apart from
// Dir, Root, Out and Build, so that the two binaries differ only by their source and by what the
// user asked each side's build to be.
type Config struct {
	// the module root of the exported tree (where go.mod is): the go command runs here
	Dir string
	// the exported tree's root, which bounds the search for a go.work file; "" means Dir
	Root string
	Pkg  string   // the package: relative to Dir ("./cipher/des") or an import path
	Out  string   // the test binary to write; an existing file there is replaced
	Tags []string // build tags, passed as one -tags flag
	// Build is the side's own build: its toolchain, build-time variables and go build flags
	// (SideFlags, SideEnv); the zero value is perfgate's toolchain and no more.
	Build record.Build
	// GOCACHE shared by both sides, so that unchanged packages compile once; "" inherits the user's
	Cache string
	// extra KEY=VALUE entries for the go command; they win over everything Build sets
	Env []string
	// Overlay is a go command overlay file (-overlay), e.g. TestOverlay's, which builds base's
	// package with head's test files; "" for none.
	Overlay string
	// Timeout is the wall-clock limit of one go command (perfgate passes proc.BuildLimit of its
	// timeout); 0 means proc.MaxLimit.
	Timeout time.Duration
}

// limit returns ctx bounded by cfg.Timeout.
func (cfg Config) limit(ctx context.Context) (context.Context, context.CancelFunc) {
	if cfg.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, cfg.Timeout)
}

// Error is a side whose test binary could not be built. Err is usually a *proc.Error carrying
// the go command's argv, exit status and the tail of the compiler's output, or wraps ErrNoTests.
type Error struct {
	Side record.Side
	Err  error
}

func (e *Error) Error() string { return "building " + string(e.Side) + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Build builds the test binary of cfg.Pkg with
//
//	go test -c -o OUT -trimpath [-tags=T1,T2] [the build's flags] PKG
//
// in cfg.Dir and returns the go command's output for the side's build log (build-base.log,
// build-head.log), headed by the command line. A failure is an *Error naming the side.
//
// Both sides get identical flags and environment, whatever the user's environment says:
//   - -trimpath, so that two exported trees of the same source give byte-identical binaries and
//     share cache entries; the linker's symbol table is kept (never -ldflags=-s): the size
//     measurement needs it.
//   - GOFLAGS=-trimpath. The user's GOFLAGS, from the environment or from "go env -w", is replaced
//     rather than passed through: it is the same for both sides either way, but flags such as
//     -race, -cover, -ldflags=-s or -mod=mod would change what is measured and how. An empty
//     GOFLAGS would not do: the go command then falls back to the "go env -w" file. Build flags
//     perfgate needs come from Config.
//   - GOWORK names the tree's own go.work (the nearest one from Dir up to Root), else "off": a
//     workspace the tree carries is honoured, and a GOWORK pointing into the user's checkout can
//     never mix the user's working copy into a side. -mod is not forced, so a vendor directory is
//     used as the go command decides.
//   - GOTOOLCHAIN=local: both sides compile with the toolchain running perfgate, never one that a
//     go.mod line downloads for one side only, unless cfg.Build names a release for this side
//     (SideEnv), whose build-time variables follow it. cfg.Env may override them.
//   - GOCACHE=cfg.Cache when set.
func Build(ctx context.Context, side record.Side, cfg Config) (log []byte, err error) {
	if cfg.Dir == "" || cfg.Pkg == "" || cfg.Out == "" {
		return nil, &Error{Side: side, Err: errors.New("a Config needs Dir, Pkg and Out")}
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return nil, &Error{Side: side, Err: err}
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, &Error{Side: side, Err: err}
	}
	// A stale binary must not pass for this build's when go test -c writes nothing (a package
	// without tests).
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, &Error{Side: side, Err: err}
	}
	argv := append([]string{"go", "test", "-c", "-o", out}, buildFlags(cfg)...)
	argv = append(argv, cfg.Pkg)
	ctx, cancel := cfg.limit(ctx)
	defer cancel()
	cmd := proc.Command(ctx, cfg.Dir, buildEnv(cfg), argv...)
	stdout, stderr, err := proc.Run(cmd)
	var b bytes.Buffer
	fmt.Fprintf(&b, "$ cd %s\n$ %s\n", cfg.Dir, strings.Join(argv, " "))
	b.Write(stderr)
	b.Write(stdout)
	if err != nil {
		return b.Bytes(), &Error{Side: side, Err: err}
	}
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		return b.Bytes(), &Error{Side: side, Err: fmt.Errorf("%s: %w", cfg.Pkg, ErrNoTests)}
	}
	return b.Bytes(), nil
}

// buildFlags are the flags both go test -c and go list get.
func buildFlags(cfg Config) []string {
	flags := append([]string{"-trimpath"}, SideFlags(cfg.Tags, cfg.Build)...)
	if cfg.Overlay != "" {
		flags = append(flags, "-overlay="+cfg.Overlay)
	}
	return flags
}

// buildEnv is the environment Build and Inspect add to the scrubbed one (see Build for why).
func buildEnv(cfg Config) []string {
	env := append([]string{"GOFLAGS=-trimpath", "GOWORK=" + findWork(cfg.Dir, cfg.Root)}, SideEnv(cfg.Build)...)
	if cfg.Cache != "" {
		env = append(env, "GOCACHE="+cfg.Cache)
	}
	return append(env, cfg.Env...)
}

// findWork returns the nearest go.work from dir up to root (dir when root is ""), or "off".
func findWork(dir, root string) string {
	dir, _ = filepath.Abs(dir)
	if root == "" {
		root = dir
	}
	root, _ = filepath.Abs(root)
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "go.work")); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(d, "go.work")
		}
		if d == root || filepath.Dir(d) == d {
			return "off"
		}
	}
}

// Inspect runs go list on cfg.Pkg in cfg.Dir with Build's flags and environment. A pattern matching
// several packages is an error: perfgate gates one package.
func Inspect(ctx context.Context, cfg Config) (*bench.PackageInfo, error) {
	argv := append([]string{"go", "list", "-f",
		"{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"},
		buildFlags(cfg)...)
	argv = append(argv, cfg.Pkg)
	ctx, cancel := cfg.limit(ctx)
	defer cancel()
	stdout, stderr, err := proc.Run(proc.Command(ctx, cfg.Dir, buildEnv(cfg), argv...))
	if err != nil {
		if problem := listProblem(stderr, cfg.Dir); problem != "" && ctx.Err() == nil {
			return nil, &NotFoundError{Pkg: cfg.Pkg, Problem: problem}
		}
		return nil, fmt.Errorf("listing package %s: %w", cfg.Pkg, err)
	}
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if len(lines) != 1 {
		return nil, fmt.Errorf("listing package %s: it matches %d packages; name one", cfg.Pkg, len(lines))
	}
	f := strings.Split(lines[0], "\t")
	if len(f) != 5 {
		return nil, fmt.Errorf("listing package %s: unexpected go list output %q", cfg.Pkg, lines[0])
	}
	return &bench.PackageInfo{ImportPath: f[0], Name: f[1], Dir: f[2], HasTests: f[3] != "0" || f[4] != "0", Log: stderr}, nil
}

// NotFoundError is a package that go list did not find in one side's module.
type NotFoundError struct {
	Pkg string // as given to go list
	// what the go command said, without its advice and with the tree's directory as "."
	Problem string
}

func (e *NotFoundError) Error() string { return "no package " + e.Pkg + ": " + e.Problem }

// listProblem is what go list printed on a failure, on one line: its advice ("to add it: go get …",
// which does not apply to a tree perfgate exported) left out and the exported tree's directory dir
// written as ".". "" when it printed nothing.
func listProblem(stderr []byte, dir string) string {
	var parts []string
	for _, line := range strings.Split(string(stderr), "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, dir, "."))
		line = strings.TrimSuffix(line, "; to add it:")
		if line == "" || strings.HasPrefix(line, "go get ") || strings.HasPrefix(line, "go: downloading") {
			continue
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, "; ")
}

// SameBinary reports whether the files a and b have the same contents. Byte-identical base and head
// test binaries mean the change cannot affect timing (or size): the caller can say so instead of
// benchmarking noise.
func SameBinary(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	sa, err := fa.Stat()
	if err != nil {
		return false, err
	}
	sb, err := fb.Stat()
	if err != nil {
		return false, err
	}
	if sa.Size() != sb.Size() {
		return false, nil
	}
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(fa, bufA)
		nb, errB := io.ReadFull(fb, bufB)
		if !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		doneA := errA == io.EOF || errA == io.ErrUnexpectedEOF
		doneB := errB == io.EOF || errB == io.ErrUnexpectedEOF
		switch {
		case doneA && doneB:
			return true, nil
		case errA != nil && !doneA:
			return false, errA
		case errB != nil && !doneB:
			return false, errB
		case doneA != doneB:
			return false, nil
		}
	}
}

// Decisions compiles the test variant of cfg.Pkg (its test files included) with the compiler's
// optimization report on for that package alone, -gcflags=IMPORTPATH=-m=2, with Build's flags and
// environment, and returns what the compiler printed about that variant: its inlining and
// escape-analysis decisions (attribution.ParseDecisions reads them), file names as -trimpath writes
// them ("example.com/m/x.go"). It compiles through go list -test -export, so nothing is linked, and
// nothing runs; cfg.Out is ignored. cfg.Timeout bounds it as it does Build. The go command replays
// a cached compilation's report.
func Decisions(ctx context.Context, cfg Config, importPath string) ([]byte, error) {
	if cfg.Dir == "" || cfg.Pkg == "" || importPath == "" {
		return nil, errors.New("compiler decisions: Config needs Dir and Pkg, and the import path")
	}
	argv := append([]string{"go", "list", "-test", "-export", "-f", "{{.ImportPath}}"}, buildFlags(cfg)...)
	// Last, so that it wins for the package, with the side's own -gcflags for it kept.
	argv = append(argv, "-gcflags="+importPath+"="+strings.Join(append(sideGCFlags(cfg.Build, importPath), "-m=2"), " "), cfg.Pkg)
	ctx, cancel := cfg.limit(ctx)
	defer cancel()
	_, stderr, err := proc.Run(proc.Command(ctx, cfg.Dir, buildEnv(cfg), argv...))
	if err != nil {
		return nil, fmt.Errorf("compiler decisions of %s: %w", importPath, err)
	}
	return reportOf(stderr, importPath), nil
}

// sideGCFlags returns the compiler flags b's -gcflags give the package importPath: those without a
// pattern (the package named on the command line), for all, or for importPath itself.
func sideGCFlags(b record.Build, importPath string) []string {
	var out []string
	for _, f := range b.Flags {
		name, value, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name != "gcflags" {
			continue
		}
		if pat, rest, ok := strings.Cut(value, "="); ok && !strings.HasPrefix(pat, "-") {
			if pat != "all" && pat != importPath {
				continue
			}
			value = rest
		}
		out = append(out, strings.Fields(value)...)
	}
	return out
}

// reportOf returns the part of the go command's output headed "# IMPORTPATH [IMPORTPATH.test]", the
// package's test variant, or, when there is none (a package without internal test files), "#
// IMPORTPATH".
func reportOf(out []byte, importPath string) []byte {
	section := func(header string) ([]byte, bool) {
		var b bytes.Buffer
		in, found := false, false
		for _, line := range bytes.SplitAfter(out, []byte("\n")) {
			if bytes.HasPrefix(line, []byte("# ")) {
				in = string(bytes.TrimSpace(line)) == header
				found = found || in
				continue
			}
			if in {
				b.Write(line)
			}
		}
		return b.Bytes(), found
	}
	if b, ok := section("# " + importPath + " [" + importPath + ".test]"); ok {
		return b
	}
	b, _ := section("# " + importPath)
	return b
}
