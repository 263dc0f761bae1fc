package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/record"
)

const demoUsage = `Usage: perfgate demo [-broken] [flags]

Runs the whole pipeline on an embedded fixture: a small DES module whose second
commit folds the P permutation into the S-boxes. The fixture history is written
as a temporary git repository, compared base → folded, and the report printed.
With -broken, head is a commit with one wrong table entry: the differential
check catches it and perfgate exits 1.

Examples:
  perfgate demo
  perfgate demo -broken
  perfgate demo -rounds 5 -format markdown

Flags:
`

// demoDefaults are demo's defaults where they differ from compare's, by flag: a 20-second budget,
// enough on this project's noisy 2-core VM for all six benchmarks of the fixture to settle
// (measured: 17 s, 6 of 6 settled, where 3 fixed rounds left 3 of 6 inconclusive), starting with 3
// rounds of runs of at most 50 ms; and batch calls of 2 blocks in the constant-time check: base's
// textbook engine runs some 1,400 instructions a Feistel round, and lackey writes a line for each
// and for every access, so the batch calls' blocks were most of the trace (measured: 3.4 s of CPU
// a side at 2 blocks, 5.4 s at 8; at 64 blocks over a minute). The single-block calls' six secrets
// stay: with fewer, a lookup touches too few lines for folded's larger tables to show more lines
// per lookup than base's (two secrets: 2 and 2, "unchanged"), which is the demo's lesson. 25 s of
// CPU per side bounds the tracing all the same.
var demoDefaults = map[string]string{"rounds": "3", "benchtime": "50ms", "budget": "20s", "constant-time-blocks": "2",
	"constant-time-budget": "25s"}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	// on-inconclusive: the scripts pass a demo that stays open
	f := newCompareFlags("demo", &cfg, "shard", "shard-costs")
	broken := f.fs.Bool("broken", false, "compare against a commit with one wrong table entry")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), demoUsage)
		printFlags(f.fs.Output(), f.fs, demoDefaults)
	}
	if code, ok := parseFlags(f.fs, args, stdout, stderr); !ok {
		return code
	}
	if f.fs.NArg() > 0 {
		errorf(stderr, "demo takes no arguments, got %q", f.fs.Args())
		return record.ExitUsage
	}
	// demo's own defaults come first, so that the flags given win; the fixture has no configuration
	// file, and the user's must not apply.
	var defaults []config.Setting
	for _, name := range slices.Sorted(maps.Keys(demoDefaults)) {
		defaults = append(defaults, config.Setting{Key: config.FlagKey(name), Text: demoDefaults[name], Source: "flag"})
	}
	f.settings = append(defaults, f.settings...)
	if err := f.apply(".", true); err != nil {
		errorf(stderr, "%v", err)
		return record.ExitUsage
	}
	tmp, err := os.MkdirTemp("", "perfgate-demo-")
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	repoDir := filepath.Join(tmp, "minides")
	if !f.given("o") {
		// The results stay in the temporary directory, whose path is printed; the repository goes.
		cfg.Out = filepath.Join(tmp, "results")
		defer os.RemoveAll(repoDir)
	} else {
		defer os.RemoveAll(tmp)
	}
	fmt.Fprintf(stderr, "perfgate: writing the demo repository to %s\n", repoDir)
	repo, err := demo.Materialize(repoDir)
	if err != nil {
		errorf(stderr, "%v", err)
		return record.ExitCannotRun
	}
	cfg.Dir = repo.Dir
	cfg.Package = demo.Package
	cfg.Base = "base"
	cfg.Head = "folded"
	if *broken {
		cfg.Head = "broken"
	}
	// The constant-time lesson is one constructor's table loads (DES's S-box reads, base against
	// folded): the Triple-DES constructor runs the same rounds and would double the tracing for no
	// more to see.
	cfg.ConstantTimeConstructors = []string{"NewCipher"}
	cfg.Log = stderr
	fmt.Fprintf(stderr, "perfgate: comparing %s → %s of %s\n", cfg.Base, cfg.Head, demo.ImportPath)
	if _, err := exec.LookPath("valgrind"); err != nil {
		fmt.Fprintf(stderr, "perfgate: hint: valgrind is not installed, so this demo leaves out the instruction "+
			"counts, the lines whose counts moved (why) and the constant-time trace; install valgrind to see them\n")
	}
	return compareAndReport(ctx, cfg, f.format, stdout, stderr)
}
