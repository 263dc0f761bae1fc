package benchrun

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchout"
	"github.com/perfgate/perfgate/internal/benchtxt"
)

// warmUp is how many sub-runs each measured run's process runs before its timed ones, at the same
// iteration count, and discards.
//
// # A warm process, as go test's
//
// go test -bench reports the last call of a ramp (b.N = 1, then larger) in one process: by the time
// it times, the process has touched its heap's pages and grown its heap to the benchmark's size. A
// perfgate run is a fresh process at a fixed count, and the first touch of a page is a page fault
// that on a VM whose host reclaims guest memory (Firecracker) can cost a VM exit. Measured on a
// 2-core Firecracker VM: key setup that allocates 288 bytes an op ran 58–62 ns/op by go test's
// protocol, 650–730 ns/op in a fresh process of 29,537 iterations (about a budgeted run's), 150 at
// 300,000; perfgate's base level was 11–21% above go test's, its samples stepping from 60–90 to
// 140–160 ns/op part-way through a run. So every process first runs one sub-run at the run's
// count, untimed by perfgate (timedSubRuns drops its line), and then the sub-runs whose fastest is
// the sample: both sides alike, so the contrast stays unbiased. The process's page faults and
// collections per op are kept with each sample (benchtxt.Process) as the evidence of what it
// measured, and a leaf whose per-op time still falls from its first timed sub-run to its last is
// named (unsteady).
const warmUp = 1

// timedSubRuns returns results without the first result of name, the warm-up sub-run; results of
// other names stay.
func timedSubRuns(results []benchout.Result, name string) []benchout.Result {
	for i, res := range results {
		if res.Name == name {
			return slices.Delete(slices.Clone(results), i, i+1)
		}
	}
	return results
}

// gctraceEnv returns env with gctrace=1 added to its GODEBUG (kept and extended when env sets one):
// the runtime then writes one line per collection to standard error, which is how a run counts
// its collections without changing the benchmark binary.
func gctraceEnv(env []string) []string {
	godebug := "gctrace=1"
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				godebug = v + "," + godebug
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GODEBUG="+godebug)
}

// gcTrace takes the runtime's gctrace lines ("gc 12 @0.031s 1%: …") out of stderr and counts those
// of collections the runtime started on its own: a line that ends in "(forced)" is a runtime.GC
// call, which the testing package makes before every call of the benchmark, outside its timer.
func gcTrace(stderr []byte) (rest []byte, auto int) {
	if !bytes.Contains(stderr, []byte("gc ")) {
		return stderr, 0
	}
	var out bytes.Buffer
	for line := range bytes.Lines(stderr) {
		if f := strings.Fields(string(line)); len(f) > 2 && f[0] == "gc" && strings.HasPrefix(f[2], "@") {
			if _, err := strconv.Atoi(f[1]); err == nil {
				if !bytes.HasSuffix(bytes.TrimSpace(line), []byte("(forced)")) {
					auto++
				}
				continue
			}
		}
		out.Write(line)
	}
	return out.Bytes(), auto
}

// process is the run's evidence per op over ops, every iteration its process ran; nil when its
// faults are unknown.
func (c *child) process(ops int) *benchtxt.Process {
	if c.faults < 0 || ops <= 0 {
		return nil
	}
	p := &benchtxt.Process{Faults: sig4(float64(c.faults) / float64(ops)), GCs: -1, CPUShare: c.cpuShare}
	if c.gcs >= 0 {
		p.GCs = sig4(float64(c.gcs) / float64(ops))
	}
	return p
}

// sig4 rounds x to 4 significant digits, what evidence of this kind is good for.
func sig4(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// trend keeps, for leaf name, how its first timed sub-run's per-op time stood to its last's in one
// run: above 1 when the process was still getting faster.
func (r *runner) trend(name string, subs []benchout.Result) {
	var secs []float64
	for _, res := range subs {
		if res.Name == name {
			if v, ok := benchout.ValueOf(res.Values, "sec/op"); ok && v > 0 {
				secs = append(secs, v)
			}
		}
	}
	if len(secs) < 2 {
		return
	}
	if r.trends == nil {
		r.trends = map[string][]float64{}
	}
	r.trends[name] = append(r.trends[name], secs[0]/secs[len(secs)-1])
}

// unsteady names, in a warning each, the leaves whose per-op time was still falling inside their
// runs after the warm-up: in at least three quarters of their runs (and at least minTrendRuns) the
// first timed sub-run was slower than the last, by a median of more than tol (a fraction). Noise
// alone makes the first sub-run the slower in about half the runs; a process still faulting in
// fresh pages or growing its heap makes it so in nearly all. The fastest sub-run is the sample, so
// such a leaf's samples are the least unsteady part of each run, but not go test's steady state.
// Several such leaves share one warning, each with its figures: a package of many batch benchmarks
// (this repository's own gate) had twenty, one line each in the comment.
func (r *runner) unsteady(leaves []leaf, tol float64) {
	var found []string // "NAME (first slower in K of N runs, by P%, at I iterations a sub-run)"
	var runs int
	for _, l := range leaves {
		ratios := r.trends[l.name]
		if len(ratios) < minTrendRuns {
			continue
		}
		slower := 0
		for _, x := range ratios {
			if x > 1 {
				slower++
			}
		}
		med := bench.Median(ratios)
		if 4*slower < 3*len(ratios) || med-1 <= tol {
			continue
		}
		var iters int
		runs, iters = l.split()
		if len(found) == 0 {
			found = append(found, fmt.Sprintf("%s is not in a steady state within its runs even after a warm-up "+
				"sub-run: its first timed sub-run was slower than its last in %d of %d runs, by %.0f%% (median), at %d "+
				"iterations a sub-run", l.name, slower, len(ratios), 100*(med-1), iters))
			continue
		}
		found = append(found, fmt.Sprintf("%s (%d of %d runs, by %.0f%%, at %d iterations a sub-run)", l.name, slower,
			len(ratios), 100*(med-1), iters))
	}
	switch len(found) {
	case 0:
		return
	case 1:
		r.warn(fmt.Sprintf("%s; its samples (the fastest of %d sub-runs) may sit above go test's; runs of a larger "+
			"-benchtime may reach it", found[0], runs))
	default:
		r.warn(fmt.Sprintf("%s; so are %s; their samples (the fastest of their sub-runs) may sit above go test's; "+
			"runs of a larger -benchtime may reach them", found[0], strings.Join(found[1:], ", ")))
	}
}

// minTrendRuns is the fewest runs whose sub-runs' trend unsteady judges.
const minTrendRuns = 8

// runTime is the expected wall time of the code in one measured run of l: its timed sub-runs and
// the warm-up.
func (l leaf) runTime() time.Duration {
	runs, iters := l.split()
	return time.Duration(float64((runs+warmUp)*iters) * l.secPerOp * float64(time.Second))
}
