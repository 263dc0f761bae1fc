// Command perfgate compares two revisions of a Go package on speed, correctness and size.
//
// Usage:
//
//	perfgate compare [flags] [BASE [HEAD]]  compare two revisions (default: merge-base, work tree)
//	perfgate bisect [flags] GOOD BAD        find the commit that made the benchmarks slower
//	perfgate report [-format f] DIR         re-render a results directory
//	perfgate demo [-broken]                 the whole pipeline on an embedded two-commit history
//	perfgate action                         run as a GitHub Action step
//	perfgate merge [-o OUT] DIR...          combine the results directories of a sharded comparison
//	perfgate comment DIR                    post a results directory as the sticky comment
//	perfgate record -from DIR               keep a commit's results on refs/perfgate/history
//	perfgate history                        change points along main's history, the range to bisect
//	perfgate doctor [-pkg P]                what this machine can measure
//	perfgate version                        print the version
//
// Exit codes: 0 the gate passed, 1 the gate failed, 2 usage or configuration error, 3 could not
// run, 4 inconclusive.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/suggest"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/internal/version"
	"github.com/perfgate/perfgate/record"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	// nothing a benchmark started outlives perfgate, however it detached itself
	proc.KillDescendants()
	os.Exit(code)
}

const usage = `perfgate gates a Go package's pull requests on speed, correctness and size.

Usage:
  perfgate compare [flags] [BASE [HEAD]]   compare two revisions of a package
  perfgate bisect [flags] GOOD BAD         find the first commit that made the benchmarks slower
  perfgate report [-format f] DIR          re-render a results directory
  perfgate demo [-broken]                  run the whole pipeline on an embedded fixture history
  perfgate action                          run as a GitHub Action step (reads INPUT_* and the event)
  perfgate merge [-o OUT] DIR...           combine the shards of one comparison (compare -shard i/n)
  perfgate comment DIR                     post a results directory as the sticky pull-request comment
  perfgate record -from DIR                keep a commit's results on the ref refs/perfgate/history
  perfgate history                         change points along main's history, with the range to bisect
  perfgate doctor [-pkg P]                 what this machine can measure (valgrind, pinning, sandbox, noise)
  perfgate version                         print the version

Examples:
  perfgate demo
  perfgate compare -pkg ./cipher/des               # merge-base with main vs your working tree
  perfgate compare -pkg ./cipher/des main HEAD
  perfgate compare -pkg ./cipher/des -bench 'Encrypt/des' -rounds 8 v1.2.0 HEAD

Run 'perfgate COMMAND -h' for a command's flags.
Exit codes: 0 pass, 1 gate failed, 2 usage or configuration error, 3 could not run, 4 inconclusive.
`

// command runs one subcommand with its arguments and returns the exit code.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// commands are perfgate's subcommands by name; each parses its own flags from args.
var commands = map[string]command{
	"compare": runCompare,
	"bisect":  runBisect,
	"report":  withoutContext(runReport),
	"demo":    runDemo,
	"action":  runAction,
	"comment": runComment,
	"merge":   withoutContext(runMerge),
	"record":  runRecord,
	"history": runHistory,
	"doctor":  runDoctor,
}

// withoutContext adapts a command that needs no context to the signature of commands.
func withoutContext(f func(args []string, stdout, stderr io.Writer) int) command {
	return func(_ context.Context, args []string, stdout, stderr io.Writer) int {
		return f(args, stdout, stderr)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return record.ExitUsage
	}
	cmd, rest := args[0], args[1:]
	if c, ok := commands[cmd]; ok {
		return c(ctx, rest, stdout, stderr)
	}
	switch cmd {
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "perfgate %s\n", version.String())
		return record.ExitPass
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return record.ExitPass
	}
	return usageError(stderr, fmt.Sprintf("unknown command %q", cmd), "run 'perfgate -h' for the commands")
}

// errorf prints an error line. Its arguments may quote the repository or an artifact:
// text.Inert keeps a workflow command in them, of either form, from reaching the runner.
func errorf(w io.Writer, format string, args ...any) {
	fmt.Fprint(w, text.Inert(fmt.Sprintf("perfgate: error: "+format+"\n", args...)))
}

// hintf prints a hint line, neutralised like errorf's.
func hintf(w io.Writer, format string, args ...any) {
	fmt.Fprint(w, text.Inert(fmt.Sprintf("perfgate: hint: "+format+"\n", args...)))
}

// usageError prints msg as an error line and hint as a hint, and returns the usage exit code.
func usageError(stderr io.Writer, msg, hint string) int {
	errorf(stderr, "%s", msg)
	hintf(stderr, "%s", hint)
	return record.ExitUsage
}

// newFlagSet returns the flag set of the subcommand name. Its -h prints usage, then the flags.
func newFlagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args with fs, printing usage errors the perfgate way: -h prints the command's
// usage on stdout (fs.Usage writes to fs.Output()), a bad flag prints one error line and a hint on
// stderr instead of the whole flag list; a flag of go test's that perfgate spells otherwise gets a
// hint to perfgate's. It returns false when the caller should exit with code (ExitPass for -h,
// ExitUsage for a bad flag).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	usage := fs.Usage
	if usage == nil {
		usage = func() {
			fmt.Fprintf(fs.Output(), "Usage of perfgate %s:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	fs.Usage = func() {}
	fs.SetOutput(io.Discard) // the flag package prints its error before Usage; we print our own
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	fs.Usage = usage
	if err == nil {
		return 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(stderr)
		return record.ExitPass, false
	}
	errorf(stderr, "%v", err)
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		name = strings.TrimLeft(name, "-")
		if hint, ok := goTestFlags[name]; ok && fs.Lookup(hint.flag) != nil {
			hintf(stderr, "%s; did you mean -%s? run 'perfgate %s -h' for its flags", hint.why, hint.flag, fs.Name())
			return record.ExitUsage, false
		}
		if near := closestFlag(fs, name); near != "" {
			hintf(stderr, "did you mean -%s? run 'perfgate %s -h' for its flags", near, fs.Name())
			return record.ExitUsage, false
		}
	}
	hintf(stderr, "run 'perfgate %s -h' for its flags", fs.Name())
	return record.ExitUsage, false
}

// goTestFlags are go test's flags that perfgate spells otherwise or means otherwise, with
// perfgate's flag.
var goTestFlags = map[string]struct{ flag, why string }{
	"count": {"rounds", "perfgate takes its samples in A–B–B–A rounds, each side 2×rounds runs"},
	"cpu": {"pin-cpu", "go test's -cpu is a GOMAXPROCS list; perfgate runs every benchmark at GOMAXPROCS=1, " +
		"pinned to the one CPU -pin-cpu names"},
	"test.count": {"rounds", "perfgate takes its samples in A–B–B–A rounds, each side 2×rounds runs"},
	"test.cpu":   {"pin-cpu", "go test's -cpu is a GOMAXPROCS list; perfgate pins to the one CPU -pin-cpu names"},
}

// closestFlag is the flag of fs that name (given without its dashes) probably misspells, or "".
func closestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return suggest.Closest(strings.TrimLeft(name, "-"), names)
}
