package benchrun

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	sched "github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/record"
)

// deadRunsOff is how many valgrind processes in a row that counted nothing, every leaf of them
// failing under valgrind alone, switch the lane off.
const deadRunsOff = 2

// triage splits fails, the failures of one counting process of leaves on side at n iterations, into
// the findings it returns (a native run failed too, or the failure was not under a tool) and the
// tool's failures, whose leaves it marks as not counted. counted says how many leaves that process
// counted.
//
// # A measuring tool's failure is never the code's
//
// valgrind can fail where the benchmark does not: it cannot decode an instruction the host lacks,
// runs out of memory, hangs past a limit set for native speed, or leaves a dump it could not
// finish. So a leaf that fails under callgrind is run once natively, on the same side and at the
// same iteration count (triage): when it fails there too, the native run's failure is the finding,
// recorded as any failure of the timing lane; when it runs cleanly, the count lane gives it up
// (UncountedTool, with valgrind's own diagnosis) and wall time judges it. When every leaf of
// deadRunsOff processes in a row fails under valgrind alone, the lane is off (Run.LaneOff): one
// line says why, and the rest of its share of the budget is not spent on it.
func (l *lane) triage(ctx context.Context, leaves []leaf, side record.Side, e sched.Entry, n, counted int,
	fails []record.Failure) ([]record.Failure, error) {
	var found, under []record.Failure
	for _, f := range fails {
		if f.Under == "" {
			found = append(found, f)
		} else {
			under = append(under, f)
		}
	}
	if counted > 0 {
		l.deadRuns = 0
	}
	if len(under) == 0 {
		return found, nil
	}
	var suspects []leaf
	for _, lf := range leaves {
		if slices.ContainsFunc(under, func(f record.Failure) bool { return f.Name == lf.name }) {
			suspects = append(suspects, lf)
		}
	}
	native, err := l.nativeFailures(ctx, suspects, side, n)
	if err != nil {
		return nil, err
	}
	var tool []record.Failure
	for _, f := range under {
		if nf := native[f.Name]; nf != nil {
			nf.Round, nf.Slot = e.Round+1, e.Slot
			found = append(found, *nf)
			continue
		}
		tool = append(tool, f)
	}
	switch {
	case len(found) > 0:
		l.deadRuns = 0
		// The process stopped at a native failure: the others in it are not valgrind's failures
		// either.
		for _, f := range tool {
			l.uncount(f.Name, record.UncountedTool, fmt.Sprintf("the valgrind process that counted it on %s also ran "+
				"%s, which fails without valgrind too", side, found[0].Name))
		}
		return found, nil
	case counted == 0:
		l.deadRuns++
	}
	if l.deadRuns >= deadRunsOff {
		l.switchOff(fmt.Sprintf("valgrind failed in %d processes in a row on %s, and the benchmarks ran cleanly "+
			"without it: %s", l.deadRuns, side, firstLine(tool[len(tool)-1].Message)))
		return found, nil
	}
	for _, f := range tool {
		l.uncount(f.Name, record.UncountedTool, fmt.Sprintf("valgrind failed while counting it on %s, and it ran "+
			"cleanly without valgrind: %s", side, firstLine(f.Message)))
	}
	return found, nil
}

// nativeFailures runs leaves of side's binary natively at n iterations and returns the failure of
// each that fails there, by name: one process for all of them first, and one each when that one
// fails.
func (l *lane) nativeFailures(ctx context.Context, leaves []leaf, side record.Side, n int) (
	map[string]*record.Failure, error) {
	bin := map[record.Side]Binary{record.Base: l.cfg.Base, record.Head: l.cfg.Head}[side]
	run := func(leaves []leaf) (*child, error) {
		var native float64
		names := make([]string, len(leaves))
		for i, lf := range leaves {
			names[i] = lf.name
			native += float64(n) * lf.secPerOp
		}
		timeout := 10*time.Duration(native*float64(time.Second)) + 60*time.Second
		args := []string{"-test.run=^$", "-test.bench=" + benchout.SkipPattern(names), "-test.benchtime=" + strconv.Itoa(n) + "x",
			"-test.cpu=1", "-test.count=1"}
		return l.exec(ctx, bin, timeout, timeout, args, false)
	}
	out := map[string]*record.Failure{}
	if len(leaves) > 1 {
		c, err := run(leaves)
		if err != nil {
			return nil, err
		}
		if nativeFailure(c, leaves[0].name, side) == nil && hasAll(benchout.Parse(c.stdout).Results, leaves) {
			return out, nil
		}
	}
	for _, lf := range leaves {
		c, err := run([]leaf{lf})
		if err != nil {
			return nil, err
		}
		out[lf.name] = nativeFailure(c, lf.name, side)
	}
	return out, nil
}

// nativeFailure is the failure of leaf name in a native run c, or nil when it printed its result.
func nativeFailure(c *child, name string, side record.Side) *record.Failure {
	f := &record.Failure{Name: name, Side: side}
	switch kind, msg := c.failure(); {
	case strings.Contains(string(c.stdout), "--- FAIL: Benchmark"+name):
		f.Kind, f.Message = record.FailureExit, benchout.FailBlock(c.stdout, name)
	case kind != "":
		f.Kind, f.Message = kind, msg
	case !slices.ContainsFunc(benchout.Parse(c.stdout).Results, func(r benchout.Result) bool { return r.Name == name }):
		f.Kind, f.Message = record.FailureNoResult, "no result line for "+name+lastLines(c.stdout, c.stderr)
	default:
		return nil
	}
	return f
}

// hasAll reports whether results hold a result of every leaf.
func hasAll(results []benchout.Result, leaves []leaf) bool {
	for _, lf := range leaves {
		if !slices.ContainsFunc(results, func(r benchout.Result) bool { return r.Name == lf.name }) {
			return false
		}
	}
	return true
}

// switchOff turns the lane off for the rest of the run: every leaf it has not counted yet is not
// counted, with why, said once (Run.LaneOff).
func (l *lane) switchOff(why string) {
	if l.run.LaneOff != "" {
		return
	}
	l.run.LaneOff = why
	l.progress.Warn("the instruction-count lane is off, wall time judges every benchmark: " + why)
	if l.run.Uncounted == nil {
		l.run.Uncounted = map[string]bench.NotCounted{}
	}
	for _, name := range l.all {
		if _, ok := l.run.Uncounted[name]; !ok {
			l.run.Uncounted[name] = bench.NotCounted{Why: record.UncountedTool, Detail: "the instruction-count lane is " +
				"off: " + why}
		}
	}
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// diagnosed reports whether f, a failure under valgrind from countOnce, carries valgrind's own
// diagnosis of it (valgrind.Diagnose): its message starts with the diagnosis rather than "under
// valgrind: ".
func diagnosed(f record.Failure) bool {
	return f.Under != "" && !strings.HasPrefix(f.Message, "under valgrind: ")
}
