package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/store"
)

// A sideFailure is the code under test misbehaving on one side: it does not load or build, its
// harness panics, hangs or writes garbage. It is a finding about that side, not an error of
// perfgate. Check records it in the Report; base and head hold what went wrong on each side, empty
// when that side is fine.
type sideFailure struct {
	base, head string
}

func (f *sideFailure) Error() string {
	switch {
	case f.base == "":
		return "head: " + f.head
	case f.head == "":
		return "base: " + f.base
	}
	return "base: " + f.base + "; head: " + f.head
}

// newFailure returns the failure msg of the side named side ("base" or "head").
func newFailure(side, msg string) *sideFailure {
	if side == "base" {
		return &sideFailure{base: msg}
	}
	return &sideFailure{head: msg}
}

func (s *side) failure(msg string) *sideFailure { return newFailure(s.name, msg) }

// An ownFailure is perfgate failing, not the code under test: the generated harness does not
// compile against a package that does, or neither side's package loads. Check records it in the
// Report as status "error".
type ownFailure struct{ msg string }

func (f *ownFailure) Error() string { return f.msg }

// harnessCompileErrors returns the first compiler errors of go build's stderr when they are in the
// generated harness itself (the "# IMPORTPATH/perfgate_harnessN" section), or "" when the build
// failed elsewhere, such as in the gated package.
func harnessCompileErrors(stderr []byte, importPath string) string {
	var msgs []string
	in := false
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(line, "# ") {
			rest := strings.TrimPrefix(line, "# "+importPath+"/")
			in = rest != line && strings.HasPrefix(rest, "perfgate_harness") && !strings.Contains(rest, "/")
			continue
		}
		if in && strings.TrimSpace(line) != "" && len(msgs) < 3 {
			msgs = append(msgs, strings.TrimSpace(line))
		}
	}
	return strings.Join(msgs, "; ")
}

// side is one revision under test: where it lives and, as the check proceeds, its package, harness
// and outputs.
type side struct {
	name   string // "base" or "head"
	dir    string // module root
	info   *pkgInfo
	bin    string         // the built harness
	sealed sandbox.Binary // bin's hash right after the build
	probed []probeResult  // the probe's findings
}

// probeResult is one harness entry's accepted sizes, as the harness prints them with -probe.
type probeResult struct {
	Name  string      `json:"name"`
	Sizes []probeSize `json:"sizes"`
}

// probeSize is one accepted key size (and constructor nonce size), with what the result reports
// about itself, or one whose constructor panicked.
type probeSize struct {
	Key       int    `json:"key"`
	Nonce     int    `json:"nonce"`
	NonceSize int    `json:"nonce_size,omitempty"` // AEAD
	Overhead  int    `json:"overhead,omitempty"`   // AEAD
	Size      int    `json:"size,omitempty"`       // hash, one-shot function
	BlockSize int    `json:"block_size,omitempty"` // block cipher, hash
	Panic     string `json:"panic,omitempty"`
	// Reads is how many leading bytes of the key change the result; less than Key when the
	// constructor ignores the rest (nil when the family does not tell).
	Reads *int `json:"reads,omitempty"`
	// light marks a size compared with fewer keys (spread).
	light bool
}

func (p probeSize) text() string {
	if p.Panic != "" {
		return "panic: " + p.Panic
	}
	return "accepted"
}

// harnessDir returns the directory, next to nothing on disk, where the harness's main.go appears
// through the overlay: a child of the gated package's directory, so that it may import the package
// even when the package sits below an internal/ directory.
func harnessDir(pkgDir string) string {
	for i := 0; ; i++ {
		d := filepath.Join(pkgDir, fmt.Sprintf("perfgate_harness%d", i))
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			return d
		}
	}
}

// buildFlags are the flags of every go command of the check, the same on both sides.

// build generates s's harness and builds it in s's module with go build -overlay, so that nothing
// is written into the tree: the source, the overlay file and the binary go to workDir.
func (s *side) build(ctx context.Context, cfg *Config, env []string) error {
	hdir := harnessDir(s.info.Dir)
	replace := map[string]string{}
	files, err := harnessFiles(s.info)
	if err != nil {
		return err
	}
	for name, src := range files {
		srcPath := filepath.Join(cfg.WorkDir, s.name+"-"+name)
		if err := os.WriteFile(srcPath, src, 0o644); err != nil {
			return fmt.Errorf("writing harness: %w", err)
		}
		replace[filepath.Join(hdir, name)] = srcPath
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return err
	}
	ovPath := filepath.Join(cfg.WorkDir, s.name+"-overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return fmt.Errorf("writing overlay: %w", err)
	}
	s.bin = filepath.Join(cfg.WorkDir, s.name+"-harness")
	if runtime.GOOS == "windows" {
		s.bin += ".exe"
	}
	argv := append([]string{"go", "build", "-overlay=" + ovPath}, cfg.BuildFlags(s.name)...)
	argv = append(argv, "-o", s.bin, hdir)
	cmd := proc.Command(ctx, s.dir, env, argv...)
	_, stderr, err := proc.Run(cmd)
	if err != nil || len(stderr) > 0 {
		cfg.Logf("%s: %s\n%s", s.name, strings.Join(argv, " "), stderr)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if msgs := harnessCompileErrors(stderr, s.info.ImportPath); msgs != "" {
			// The harness's files are in the work directory, named for the side; the go command may
			// print their paths relative to its directory.
			msgs = regexp.MustCompile(`\S*`+regexp.QuoteMeta(s.name+"-")+`(\w+\.go:)`).ReplaceAllString(msgs, "harness $1")
			return &ownFailure{fmt.Sprintf("the generated harness does not compile in %s's module: %s", s.name, msgs)}
		}
		return s.failure("harness does not build: " + err.Error())
	}
	if s.sealed, err = sandbox.Seal(s.bin); err != nil {
		return err
	}
	return nil
}

// probe runs the harness with -probe and keeps which key sizes each constructor accepts.
func (s *side) probe(ctx context.Context, cfg *Config) error {
	out, err := s.run(ctx, cfg, []string{"-probe"}, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, &s.probed); err != nil {
		return s.failure(fmt.Sprintf("harness probe printed invalid output: %v", err))
	}
	return nil
}

// run runs the harness with args and stdin under cfg.Timeout and returns its standard output. A
// crash, a non-zero exit or a timeout is a *sideFailure; a cancelled ctx is returned as is.
func (s *side) run(ctx context.Context, cfg *Config, args []string, stdin []byte) ([]byte, error) {
	if err := s.sealed.Verify(); err != nil {
		return nil, err
	}
	// The harness is a function of its binary and its input: a run kept in the store is not run
	// again.
	var key store.Key
	if cfg.Store != nil {
		key = store.NewKey("differential-run", s.sealed.SHA256, strings.Join(args, "\x00"), store.Digest(stdin))
		if out, ok := cfg.Store.Output(key); ok {
			what := "run"
			if len(args) > 0 {
				what = strings.Join(args, " ")
			}
			cfg.Logf("%s: harness %s: output from the store\n", s.name, what)
			return out, nil
		}
	}
	out, err := s.runHarness(ctx, cfg, args, stdin)
	if err == nil && cfg.Store != nil {
		cfg.Store.PutOutput(key, s.name+" harness output", out)
	}
	return out, err
}

// runHarness runs the harness (see run).
func (s *side) runHarness(ctx context.Context, cfg *Config, args []string, stdin []byte) ([]byte, error) {
	scratch, remove, err := cfg.Sandbox.Scratch()
	if err != nil {
		return nil, err
	}
	defer remove()
	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := proc.Command(rctx, cfg.WorkDir, nil, append([]string{s.bin}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, stderr, err := proc.RunStart(cmd, proc.MaxOutput, func() error { return cfg.Sandbox.Start(cmd, scratch, nil) })
	if err == nil {
		return out, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(rctx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("harness did not finish within %v", cfg.Timeout)
		if t := proc.Tail(stderr, 5); t != "" {
			msg += "; it printed last:\n" + t
		}
		return nil, s.failure(msg)
	}
	cfg.Logf("%s: harness failed: %v\n", s.name, err)
	return nil, s.failure(crashMessage(stderr, err))
}

// crashMessage picks the line that says why a harness died: its own panic report, the runtime's
// panic or fatal error line, or else the command's error with its stderr tail.
func crashMessage(stderr []byte, err error) string {
	for _, line := range strings.Split(string(stderr), "\n") {
		switch {
		case strings.HasPrefix(line, "perfgate-harness: "):
			return "harness: " + strings.TrimPrefix(line, "perfgate-harness: ")
		case strings.HasPrefix(line, "panic: "), strings.HasPrefix(line, "fatal error: "):
			return "harness: " + line
		}
	}
	return err.Error()
}
