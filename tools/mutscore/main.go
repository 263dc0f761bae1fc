// Command mutscore measures how strong perfgate's differential check is: its mutation score.
//
// It applies single-point mutants (mutants_*.go: in one file, an exact old text becomes a new one)
// to real packages: this repository's cipher/des, the demo's minides (internal/demo), x/crypto's
// chacha20, poly1305 (through chacha20poly1305) and blake2b, and dchest/siphash; testdata holds
// trimmed copies of the last two modules with their licences (testdata/README.md). For each mutant
// it writes the unmutated module (base) and the mutated one (head) below a work directory, runs the
// mutated package's own tests on head, and keeps only the mutants those tests do not catch. For
// each of those it runs differential.Check, base against head, at the differential's defaults (or
// the settings of -keys, -message-keys, -message-blocks), and counts the mutant caught when the
// check reports a mismatch.
//
// It prints the score (caught of the mutants the tests miss), per package and per kind of bug, and
// every mutant the differential missed with a line saying what is wrong with it. Progress goes to
// stderr.
//
//	cd tools && go run ./mutscore [-run REGEXP] [-v] [-vectors DIR] [-work DIR] [-json FILE]
//	go run ./mutscore -from FILE,FILE… [-run REGEXP] [-v]
//	go run ./mutscore -cost [-keys N -message-keys N -message-blocks N]
//
// The second form scores outcomes saved by -json, so that runs of parts of the table (each with its
// own -run) can be scored together. The third measures what the check costs: every constructor of
// every package the subjects check, unmutated, against itself, alone, the fastest of three runs.
//
// It is a benchmark of the check, run by hand: a full run takes tens of minutes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/perfgate/perfgate/internal/differential"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command's flags.
type options struct {
	run, root, work, vectors, json, from string
	list, verbose, cost                  bool
	keys, msgKeys, msgBlocks             int
}

func parse(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("mutscore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.run, "run", "", "run only the mutants whose name matches this regular expression")
	fs.StringVar(&o.root, "root", "", "the perfgate repository (default: the one holding the working directory)")
	fs.StringVar(&o.work, "work", "", "keep the modules here (default: a temporary directory, removed)")
	fs.StringVar(&o.vectors, "vectors", "", "shared/vectors for cipher/des's NESSIE tests "+
		"(default: shared/vectors beside the repository, if there)")
	fs.StringVar(&o.json, "json", "", "also write every mutant's outcome to this file, as JSON")
	fs.StringVar(&o.from, "from", "", "score the outcomes saved by -json in these files (comma-separated) "+
		"instead of running the mutants")
	fs.BoolVar(&o.list, "list", false, "list the mutants and exit")
	fs.BoolVar(&o.cost, "cost", false, "measure the differential's cost per constructor on the unmutated subjects "+
		"(each against itself), instead of running the mutants")
	fs.BoolVar(&o.verbose, "v", false, "print every mutant's outcome, not only the survivors")
	fs.IntVar(&o.keys, "keys", 0, "differential: block-cipher keys (default: the differential's)")
	fs.IntVar(&o.msgKeys, "message-keys", 0, "differential: AEAD, stream and hash keys (default: the differential's)")
	fs.IntVar(&o.msgBlocks, "message-blocks", 0, "differential: longest message in blocks (default: the differential's)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (hint: mutants are chosen with -run)", fs.Arg(0))
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutscore: error: %v\n", err)
		return 2
	}
	ms, err := selectMutants(o.run)
	if err != nil {
		fmt.Fprintf(stderr, "mutscore: error: %v\n", err)
		return 2
	}
	if o.list {
		printList(stdout, ms)
		return 0
	}
	var results []*Result
	switch {
	case o.cost:
		err = runCost(ctx, o, stdout, stderr)
		if err == nil {
			return 0
		}
	case o.from != "":
		results, err = readJSON(strings.Split(o.from, ","), ms)
	default:
		results, err = runAll(ctx, o, ms, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutscore: error: %v\n", err)
		return 3
	}
	printScore(stdout, results, o.verbose)
	if o.json != "" {
		if err := writeJSON(o.json, results); err != nil {
			fmt.Fprintf(stderr, "mutscore: error: %v\n", err)
			return 3
		}
	}
	for _, r := range results {
		if r.Outcome == NoBuild {
			fmt.Fprintf(stderr, "mutscore: error: mutant %s does not build\n", r.Mutant.Name)
			return 3
		}
	}
	return 0
}

// selectMutants returns the mutants whose name matches expr (all when it is empty).
func selectMutants(expr string) ([]Mutant, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("-run: %w", err)
	}
	var ms []Mutant
	for _, m := range allMutants() {
		if re.MatchString(m.Name) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("-run %q matches no mutant (hint: -list shows their names)", expr)
	}
	return ms, nil
}

// runAll runs the mutants ms one after the other, with progress on stderr.
func runAll(ctx context.Context, o *options, ms []Mutant, stderr io.Writer) ([]*Result, error) {
	r, cleanup, err := newRunner(o, stderr)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var results []*Result
	for i := range ms {
		res, err := r.run(ctx, &ms[i])
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "mutscore: [%d/%d] %-32s %-16s %5.1fs %s\n", i+1, len(ms), ms[i].Name, res.Outcome,
			res.Took.Seconds(), res.Detail)
		results = append(results, res)
	}
	return results, nil
}

// runCost measures the check's cost per constructor (measureCost).
func runCost(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	r, cleanup, err := newRunner(o, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	return measureCost(ctx, r, stdout)
}

// newRunner returns the runner of the options: the repository, the vectors and the work directory,
// which cleanup removes when it is a temporary one.
func newRunner(o *options, stderr io.Writer) (r *runner, cleanup func(), err error) {
	root := o.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, err
		}
		if root, err = findRoot(wd); err != nil {
			return nil, nil, err
		}
	}
	vectors := o.vectors
	if vectors == "" {
		if fi, err := os.Stat(filepath.Join(root, "..", "shared", "vectors")); err == nil && fi.IsDir() {
			vectors = filepath.Join(root, "..", "shared", "vectors")
		}
	}
	if vectors != "" {
		abs, err := filepath.Abs(vectors)
		if err != nil {
			return nil, nil, err
		}
		vectors = abs
	}
	work, cleanup := o.work, func() {}
	if work == "" {
		dir, err := os.MkdirTemp("", "mutscore-")
		if err != nil {
			return nil, nil, err
		}
		work, cleanup = dir, func() { os.RemoveAll(dir) }
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, nil, err
	} else if ents, _ := os.ReadDir(work); len(ents) > 0 {
		return nil, nil, fmt.Errorf("-work %s is not empty (hint: name a new directory)", work)
	}
	r = &runner{root: root, work: work, vectors: vectors, bases: map[string]string{},
		files: map[string]map[string][]byte{}, log: stderr}
	r.cfg = differential.Config{Keys: o.keys, MessageKeys: o.msgKeys, MessageBlocks: o.msgBlocks}
	if vectors == "" {
		fmt.Fprintln(stderr, "mutscore: note: no shared/vectors: cipher/des's NESSIE tests skip (hint: -vectors DIR)")
	}
	return r, cleanup, nil
}
