package benchrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perfgate/perfgate/internal/data/benchtxt"
	"github.com/perfgate/perfgate/internal/host/proc"
	"github.com/perfgate/perfgate/internal/host/sandbox"
	"github.com/perfgate/perfgate/record"
)

// List returns the top-level benchmarks of the test binary bin, without the "Benchmark" prefix, in
// the order the binary lists them (source order). It runs the binary with -test.list, which names
// top-level benchmarks only: sub-benchmarks are discovered by running them (see RunABBA). The
// binary runs in sb (nil: unconfined) and is checked against its seal first.
func List(ctx context.Context, bin Binary, env []string, sb *sandbox.Sandbox) ([]string, error) {
	if err := bin.verify(); err != nil {
		return nil, err
	}
	scratch, remove, err := sb.Scratch()
	if err != nil {
		return nil, err
	}
	defer remove()
	dir, release, err := sb.WorkDir(scratch, bin.Dir)
	if err != nil {
		return nil, err
	}
	defer release()
	cmd := proc.Command(ctx, dir, env, bin.Path, "-test.list=^Benchmark")
	out, _, err := proc.RunStart(cmd, proc.MaxOutput, func() error { return sb.Start(cmd, scratch, nil) })
	if err != nil {
		return nil, fmt.Errorf("listing benchmarks: %w", err)
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if name, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Benchmark"); ok {
			names = append(names, name)
		}
	}
	return names, nil
}

// Pattern returns the -test.bench pattern that selects exactly the benchmark name (as in
// Sample.Name, without the "Benchmark" prefix) and none of its siblings: every '/'-separated level
// quoted and anchored, as in ^BenchmarkEncrypt$/^des$/^single$. The testing package splits a
// pattern on '/' outside brackets and parentheses and skips the character after a backslash, so the
// quoted levels never split; names are matched after the testing package rewrote them (spaces to
// '_', "#01" suffixes for duplicates), which is the form benchmark output prints and this function
// receives.
func Pattern(name string) string {
	levels := strings.Split("Benchmark"+name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// discover lists and calibrates the base binary's benchmarks and returns the selected leaves.
func (r *runner) discover(ctx context.Context) ([]leaf, error) {
	start := time.Now()
	lctx, cancel := context.WithTimeout(ctx, r.listLimit())
	tops, err := List(lctx, r.cfg.Base, r.cfg.Env, r.cfg.Sandbox)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	var leaves []leaf
	for _, top := range tops {
		if r.cfg.Tops != nil && !slices.Contains(r.cfg.Tops, top) || slices.Contains(r.cfg.Skip, top) {
			continue
		}
		if r.cfg.Filter != nil && !r.cfg.Filter.MatchTop(top) {
			continue // none of its benchmarks is selected: not even calibrated
		}
		r.progress.Calibrating(top)
		found, err := r.calibrate(ctx, top)
		if err != nil {
			return nil, err
		}
		for _, l := range found {
			if r.cfg.Filter != nil && !r.cfg.Filter.Match(l.name) {
				continue
			}
			leaves = append(leaves, l)
			r.run.Leaves = append(r.run.Leaves, l.name)
			_, r.run.Iters[l.name] = l.split()
		}
	}
	r.progress.Calibrated(len(leaves), time.Since(start))
	return leaves, nil
}

// listLimit is the wall-clock limit of -test.list: cfg.Timeout, or a minute.
func (r *runner) listLimit() time.Duration {
	if r.cfg.Timeout > 0 {
		return r.cfg.Timeout
	}
	return time.Minute
}

// maxCalibrationAttempts bounds how often one top-level benchmark is re-run to get past crashing
// sub-benchmarks.
const maxCalibrationAttempts = 20

// calibrate runs top-level benchmark top on base for cfg.BenchTime per leaf, with -test.v so that a
// crash names the benchmark it happened in. The testing package picks each leaf's iteration count
// to last about BenchTime; that count is the leaf's fixed count for both sides. A leaf that fails
// or crashes is recorded as a Failure and skipped (-test.skip) in a re-run that collects the
// remaining leaves; leaves already calibrated are skipped too.
func (r *runner) calibrate(ctx context.Context, top string) ([]leaf, error) {
	var leaves []leaf
	var skip []string
	timeout := r.cfg.Timeout
	if timeout == 0 {
		timeout = 10*r.cfg.BenchTime + 60*time.Second
	}
	for range maxCalibrationAttempts {
		args := []string{"-test.run=^$", "-test.bench=" + Pattern(top), "-test.benchtime=" + r.cfg.BenchTime.String(),
			"-test.benchmem", "-test.cpu=1", "-test.count=1", "-test.v"}
		if len(skip) > 0 {
			args = append(args, "-test.skip="+skipPattern(skip))
		}
		c, err := r.exec(ctx, r.cfg.Base, timeout, proc.CalibrationFactor*timeout, args, false)
		if err != nil {
			return leaves, err
		}
		out := parseOutput(c.stdout)
		if r.run.Header == nil && out.header != nil {
			r.run.Header = out.header
		}
		for _, res := range out.results {
			sec, _ := valueOf(res.values, "sec/op")
			bytes, _ := valueOf(res.values, "B/op")
			allocs, _ := valueOf(res.values, "allocs/op")
			leaves = append(leaves, leaf{name: res.name, iters: res.iters, secPerOp: sec, allocates: bytes > 0 || allocs > 0})
			skip = append(skip, res.name)
		}
		for _, name := range out.failedLeaves() {
			r.fail(record.Failure{Name: name, Side: record.Base, Round: 0, Slot: -1, Kind: record.FailureExit,
				Message: failBlock(c.stdout, name)})
			skip = append(skip, name)
		}
		kind, msg := c.failure()
		if kind == "" || kind == record.FailureExit && len(out.failedLeaves()) > 0 {
			return leaves, nil // done, possibly with b.Fatal'd leaves recorded above
		}
		culprit := out.startedLeaf()
		if culprit == "" || culprit == top || slices.Contains(skip, culprit) {
			// top itself (a leaf, or its own body outside any sub-benchmark) failed: nothing left
			// to rescue.
			r.fail(record.Failure{Name: top, Side: record.Base, Round: 0, Slot: -1, Kind: kind, Message: msg})
			return leaves, nil
		}
		r.fail(record.Failure{Name: culprit, Side: record.Base, Round: 0, Slot: -1, Kind: kind, Message: msg})
		skip = append(skip, culprit)
	}
	r.warn(fmt.Sprintf("calibrating %s: gave up after %d crashed attempts", top, maxCalibrationAttempts))
	return leaves, nil
}

// leaf is a benchmark that produces a result line: a top-level benchmark without sub-benchmarks, or
// a sub-benchmark without sub-benchmarks of its own. It is the unit of scheduling.
type leaf struct {
	name string // as in Sample.Name
	// the calibrated iteration count: the iterations of one measured run, all its sub-runs together
	iters    int
	secPerOp float64 // sec/op at calibration
	// allocates: B/op or allocs/op was above 0 at calibration, so that short runs may measure
	// another regime of the allocator and collector than go test's (steadyRuns)
	allocates bool
	// whole: each measured run is one sub-run, one call of the benchmark function with b.N = iters,
	// as go test's is; set by steadyRuns for a leaf whose per-op time moves with the length of that
	// call.
	whole bool
}

// split returns the sub-runs of one measured run of l and the iterations of each: SubRuns sub-runs,
// or fewer for a leaf of fewer iterations, and at least one iteration each; one sub-run of all the
// iterations for a whole leaf.
func (l leaf) split() (runs, iters int) {
	if l.whole {
		return 1, max(1, l.iters)
	}
	runs = max(1, min(benchtxt.SubRuns, l.iters))
	return runs, max(1, l.iters/runs)
}

// childOutput is what one run of a test binary printed, parsed.
type childOutput struct {
	results []benchResult
	header  map[string]string // goos, goarch, pkg, cpu
	started []string          // names announced by -test.v, in order (calibration only)
	failed  []string          // names of "--- FAIL: " lines
}

type benchResult struct {
	name   string
	iters  int
	values []benchtxt.Value
}

// parseOutput parses a test binary's standard output: result lines through benchfmt (which
// normalises ns/op to sec/op and MB/s to B/s), and the lines benchfmt skips that say which
// benchmark started or failed.
func parseOutput(stdout []byte) childOutput {
	var out childOutput
	r := benchfmt.NewReader(bytes.NewReader(stdout), "output")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if out.header == nil {
			out.header = map[string]string{}
			for _, c := range res.Config {
				if c.File {
					out.header[c.Key] = string(c.Value)
				}
			}
		}
		br := benchResult{name: benchName(res.Name.String()), iters: res.Iters}
		for _, v := range res.Values {
			if !benchtxt.ValidUnit(v.Unit) {
				// chosen by the code under test (b.ReportMetric): never let it carry markup
				continue
			}
			br.values = append(br.values, benchtxt.Value{Value: v.Value, Unit: v.Unit})
		}
		out.results = append(out.results, br)
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if name, ok := strings.CutPrefix(line, "Benchmark"); ok && !strings.ContainsAny(name, " \t") {
			out.started = append(out.started, benchName("Benchmark"+name))
		}
		if _, rest, ok := strings.Cut(line, "--- FAIL: Benchmark"); ok {
			out.failed = append(out.failed, benchName("Benchmark"+rest))
		}
	}
	return out
}

// benchName turns a printed benchmark name into a Sample.Name: without "Benchmark" and without a
// "-N" GOMAXPROCS suffix. Children run with -test.cpu=1, for which the testing package prints no
// suffix, so a name that ends in "-8" keeps it: that is part of the name (b.Run("size-8", …)), not
// a GOMAXPROCS.
func benchName(printed string) string {
	return strings.TrimPrefix(strings.TrimSpace(printed), "Benchmark")
}

// startedLeaf returns the benchmark that was running when a calibration child died: the last name
// -test.v announced that printed no result, or "" when every announced benchmark finished.
func (o childOutput) startedLeaf() string {
	done := map[string]bool{}
	for _, r := range o.results {
		done[r.name] = true
	}
	for i := len(o.started) - 1; i >= 0; i-- {
		if !done[o.started[i]] {
			return o.started[i]
		}
	}
	return ""
}

// failedLeaves returns the names of "--- FAIL:" lines that are not the parent of another failed
// name: a failing sub-benchmark also fails its parents, but only the sub-benchmark is to blame.
func (o childOutput) failedLeaves() []string {
	var out []string
	for _, f := range o.failed {
		parent := false
		for _, g := range o.failed {
			if strings.HasPrefix(g, f+"/") {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, f)
		}
	}
	return out
}

// skipPattern returns a -test.skip pattern that skips each of names exactly (an alternation of
// Pattern values), or "" for none.
func skipPattern(names []string) string {
	pats := make([]string, len(names))
	for i, n := range names {
		pats[i] = Pattern(n)
	}
	return strings.Join(pats, "|")
}
