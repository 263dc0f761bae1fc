package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate"
	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/report"
)

const compareUsage = `Usage: perfgate compare [flags] [BASE [HEAD]]

Compares the benchmarks, outputs and sizes of a package between two revisions.
BASE defaults to the merge-base of HEAD with the default branch; HEAD defaults to
the working tree, uncommitted changes included. Flags win over .perfgate.yml.

Examples:
  perfgate compare -pkg ./cipher/des
  perfgate compare -pkg ./cipher/des main HEAD
  perfgate compare -pkg ./cipher/des -bench 'Encrypt/.*/batch' -rounds 8 -o /tmp/res v1.2.0 HEAD
  perfgate compare -format json -pkg ./cipher/des main > result.json

Flags:
`

// compareFlags holds the flags shared by compare and demo, bound to a Config.
type compareFlags struct {
	fs     *flag.FlagSet
	cfg    *perfgate.Config
	format string
	config string
	tags   string
	ctors  string
	seed   string
}

func newCompareFlags(name string, cfg *perfgate.Config) *compareFlags {
	f := &compareFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), cfg: cfg, format: "text"}
	fs := f.fs
	fs.StringVar(&cfg.Dir, "C", cfg.Dir, "run in this directory (inside the git work tree)")
	fs.StringVar(&cfg.Package, "pkg", cfg.Package, "the package to gate, relative to the module root")
	fs.StringVar(&cfg.Bench, "bench", cfg.Bench, "regular expression selecting benchmarks by full name")
	fs.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "A–B–B–A rounds; each side gets 2×rounds samples")
	fs.DurationVar(&cfg.BenchTime, "benchtime", cfg.BenchTime, "target duration of one benchmark run")
	fs.IntVar(&cfg.CPU, "cpu", cfg.CPU, "CPU to pin benchmarks to (-1: the last one this process may use)")
	fs.BoolVar(&cfg.NoPin, "no-pin", cfg.NoPin, "do not pin benchmarks to one CPU")
	fs.Float64Var(&cfg.Threshold, "threshold", cfg.Threshold, "smallest change in percent called slower or faster")
	fs.Float64Var(&cfg.Alpha, "alpha", cfg.Alpha, "significance level after Holm correction")
	fs.StringVar(&cfg.Out, "o", cfg.Out, "results directory")
	fs.StringVar(&f.format, "format", f.format, "output format: text, markdown or json")
	fs.BoolVar(&cfg.Differential, "differential", cfg.Differential, "run the differential check")
	fs.IntVar(&cfg.Keys, "keys", cfg.Keys, "differential check: keys per cipher and key size")
	fs.IntVar(&cfg.Blocks, "blocks", cfg.Blocks, "differential check: blocks per key and direction")
	fs.StringVar(&f.seed, "seed", fmt.Sprintf("%#x", cfg.Seed), "differential check: input seed")
	fs.StringVar(&f.ctors, "constructors", "", "differential check: comma-separated constructor names (default: discover)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "limit for one benchmark, test or harness run")
	fs.StringVar(&f.tags, "tags", "", "comma-separated build tags for both sides")
	fs.StringVar(&f.config, "config", "", "configuration file (default: .perfgate.yml at the repository root)")
	return f
}

// apply loads the configuration file, then re-applies the flags that were set so that flags win.
func (f *compareFlags) apply(dir string) error {
	// Remember the flags as given before the file overwrites the values they are bound to.
	set := map[string]bool{}
	var again []string
	f.fs.Visit(func(fl *flag.Flag) {
		set[fl.Name] = true
		again = append(again, "-"+fl.Name+"="+fl.Value.String())
	})
	path := f.config
	if path == "" {
		root := dir
		if repo, err := gitsrc.Open(dir); err == nil {
			root = repo.Root()
		}
		path = filepath.Join(root, perfgate.ConfigFile)
	} else if _, err := os.Stat(path); err != nil {
		return &perfgate.ConfigError{Source: "flag", Key: "config", Value: path, Want: "an existing YAML file"}
	}
	if err := f.cfg.LoadConfigFile(path); err != nil {
		return err
	}
	// Flags win: parse them again over the file's values.
	if err := f.fs.Parse(again); err != nil {
		return err
	}
	if set["tags"] || f.tags != "" {
		f.cfg.Tags = splitList(f.tags)
	}
	if set["constructors"] {
		f.cfg.Constructors = splitList(f.ctors)
	}
	if set["seed"] {
		var seed uint64
		if _, err := fmt.Sscan(f.seed, &seed); err != nil {
			return &perfgate.ConfigError{Source: "flag", Key: "seed", Value: f.seed, Want: "an unsigned integer such as 42 or 0x2a"}
		}
		f.cfg.Seed = seed
	}
	switch f.format {
	case "text", "markdown", "json":
	default:
		return &perfgate.ConfigError{Source: "flag", Key: "format", Value: f.format, Want: "text, markdown or json"}
	}
	if err := f.cfg.Validate(); err != nil {
		var ce *perfgate.ConfigError
		if errors.As(err, &ce) && ce.Source == "" {
			// Name the value's origin: the flag when one was given, else the configuration file.
			if name := flagName(ce.Key); set[name] {
				ce.Source, ce.Key = "flag", name
			} else if _, serr := os.Stat(path); serr == nil && path != os.DevNull {
				ce.Source = path
			} else {
				ce.Source = "config"
			}
		}
		return err
	}
	return nil
}

// flagName is the flag that sets the configuration key key.
func flagName(key string) string {
	switch key {
	case "package":
		return "pkg"
	case "output":
		return "o"
	}
	return key
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := perfgate.DefaultConfig()
	f := newCompareFlags("compare", &cfg)
	f.fs.Usage = func() {
		fmt.Fprint(stderr, compareUsage)
		f.fs.PrintDefaults()
	}
	if code, ok := parseFlags(f.fs, args, stderr); !ok {
		return code
	}
	rest := f.fs.Args()
	if len(rest) > 2 {
		errorf(stderr, "compare takes at most two revisions, got %d: %s", len(rest), strings.Join(rest, " "))
		hintf(stderr, "put flags before the revisions: perfgate compare -pkg ./x BASE HEAD")
		return perfgate.ExitUsage
	}
	if len(rest) > 0 {
		cfg.Base = rest[0]
	}
	if len(rest) > 1 {
		cfg.Head = rest[1]
	}
	if err := f.apply(cfg.Dir); err != nil {
		errorf(stderr, "%v", err)
		return perfgate.ExitUsage
	}
	cfg.Log = stderr
	return compareAndReport(ctx, cfg, f.format, stdout, stderr)
}

// compareAndReport runs the comparison, writes report.md, prints the report in format and returns the exit code.
func compareAndReport(ctx context.Context, cfg perfgate.Config, format string, stdout, stderr io.Writer) int {
	res, err := perfgate.Compare(ctx, cfg)
	if res == nil {
		errorf(stderr, "%v", err)
		explain(stderr, err)
		var ce *perfgate.ConfigError
		if errors.As(err, &ce) {
			return perfgate.ExitUsage
		}
		return perfgate.ExitCannotRun
	}
	md := report.Markdown(res, report.Options{})
	if werr := os.WriteFile(filepath.Join(cfg.Out, "report.md"), []byte(md), 0o644); werr != nil {
		errorf(stderr, "writing report.md: %v", werr)
	}
	if herr := saveHTML(cfg.Out, res); herr != nil {
		errorf(stderr, "%v", herr)
	}
	if perr := printResult(stdout, res, format); perr != nil {
		errorf(stderr, "%v", perr)
	}
	if err != nil {
		errorf(stderr, "%v", err)
		explain(stderr, err)
	}
	var files []string
	for _, name := range []string{"report.md", htmlReportFile, "result.json", "bench.txt"} {
		if _, err := os.Stat(filepath.Join(cfg.Out, name)); err == nil {
			files = append(files, name)
		}
	}
	fmt.Fprintf(stderr, "perfgate: results in %s (%s)\n", cfg.Out, strings.Join(files, ", "))
	return res.Verdict.ExitCode
}

func printResult(w io.Writer, res *perfgate.Result, format string) error {
	switch format {
	case "json":
		return report.JSON(w, res)
	case "markdown":
		_, err := io.WriteString(w, report.Markdown(res, report.Options{}))
		return err
	default:
		return report.Text(w, res, report.Options{Color: colorOK(w), Unicode: unicodeOK(w)})
	}
}

// colorOK reports whether w is a terminal and NO_COLOR is unset.
func colorOK(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// unicodeOK reports whether w is a terminal with a UTF-8 locale, where the forest plot may use box-drawing
// characters; elsewhere it is drawn in ASCII.
func unicodeOK(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return utf8Locale(os.Getenv)
}

// utf8Locale reports whether the locale's character set is UTF-8: LC_ALL, else LC_CTYPE, else LANG decides.
func utf8Locale(getenv func(string) string) bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if locale := strings.ToLower(getenv(name)); locale != "" {
			return strings.Contains(locale, "utf-8") || strings.Contains(locale, "utf8")
		}
	}
	return false
}

// explain prints a hint for errors a user can act on.
func explain(w io.Writer, err error) {
	var shallow *gitsrc.ShallowError
	var unknown *gitsrc.UnknownRevisionError
	switch {
	case errors.As(err, &shallow):
		hintf(w, "this is a shallow clone: run 'git fetch --unshallow', or check out with fetch-depth: 0 in actions/checkout")
	case errors.As(err, &unknown):
		hintf(w, "name a branch, tag or commit that exists in this repository ('git branch -a', 'git tag')")
	case errors.Is(err, gitsrc.ErrNotRepository):
		hintf(w, "run perfgate inside a git work tree, or point -C at one")
	case errors.Is(err, context.Canceled):
		hintf(w, "interrupted: the results gathered so far were kept")
	}
}
