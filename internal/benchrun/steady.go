package benchrun

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/record"
)

// steadyProbes is how many runs of one length steadyRuns takes, keeping the fastest: one run's
// noise on a shared machine is a few percent, and a slow outlier must not lengthen runs for
// nothing.
const steadyProbes = 2

// steadyRuns lengthens the runs of the allocating leaves whose per-op time moves with the run
// length (see above), and says which in the run's warnings. Only ctx's error is returned; a probe
// that fails keeps the leaf as it is (its timed runs will report the failure).
//
// # Runs long enough for the steady state
//
// A budgeted run's runs last MinRunTime (fitRuns), in fresh processes. For code that allocates, the
// first milliseconds of a process are another regime than the one go test -bench measures after its
// ramp-up: the heap is small, the collector runs often, the allocator's spans are fresh. On a
// fixture whose cipher struct grew into the next allocation size class, key setup was +2.8% by go
// test's protocol and +3.0% by perfgate at 100 ms runs, but −7% at 10 ms runs: a direction error.
// So for each leaf that allocated at calibration (B/op or allocs/op above 0), steadyRuns checks on
// base that the per-op time of a run of the budgeted length agrees with that of a run of
// RunConfig.BenchTime (100 ms by default, which measured the fixture's +3.0% right), both taken as
// the timed runs are (fresh processes, the fastest sub-run), and lengthens the leaf's runs, ×4 at a
// time up to BenchTime, until it does (steadyLength). A leaf that does not allocate keeps
// MinRunTime: its per-op time does not depend on the heap's history.
//
// A lengthened leaf runs whole: each run is one call of the benchmark function with b.N the run's
// iterations (benchtxt.SubRuns calls of a fifth of them otherwise), and so is each probe longer
// than the budgeted length. What moves with the length is the length of one call: every call runs
// the benchmark's own set-up again (whatever comes before its loop without a b.ResetTimer) and
// grows a fresh heap's spans again. A fastcache benchmark of 10 ms an op that fills a 32 MB cache
// before its loop measured 24 ms an op in calls of one iteration, 11 ms in calls of four and 9.5 ms
// at go test's default (b.N near 130), and with its runs lengthened to 100 ms and then split into
// sub-runs of one iteration each, every sample was still a call of b.N = 1 (now 7). go test runs
// b.N = 1 once before the call it reports, so a whole run of two iterations or more also starts
// warm.
//
// Measured (TestSteadyRuns, at load 24 on 2 cores): 48 bytes allocated an op ran 59% faster per op
// in 10 ms runs than in 40 ms ones: a 10 ms run's 2 ms sub-runs (24,000 iterations, 1.1 MB) mostly
// end before a fresh heap's first collection (GODEBUG=gctrace=1: 6 collections in 5 such sub-runs,
// 11 in 5 of 97,000). A discarded warm-up run of the same length would not help there: the
// collection's cost comes into a run only when the run is long enough to collect. Every run now
// has one all the same (warmUp), for the other half of a fresh process's regime, its first
// touches of fresh pages; the probes have it too, as they run as the timed runs do. A probe's page
// faults per op name a leaf whose state grows with b.N (leaking): lengthening cannot help it.
func (r *runner) steadyRuns(ctx context.Context, leaves []leaf) ([]leaf, error) {
	short := r.run.RunTime
	long := r.cfg.BenchTime
	if short <= 0 || long <= short {
		return leaves, nil
	}
	// The threshold, what the gate asks about: a smaller tolerance would lengthen runs for a
	// probe's noise (a few percent a run on a shared machine), and every lengthening costs rounds.
	tol := r.cfg.Stats.ThresholdPct / 100
	for i, l := range leaves {
		if !l.allocates || !(l.secPerOp > 0) {
			continue
		}
		var ctxErr error
		// the fewest page faults per op of a probe of each length
		faults := map[time.Duration]float64{}
		// the CPU shares of the probes of each length left out as time-shared
		shares := map[time.Duration][]float64{}
		contested := false // every probe of some length was left out
		probe := func(d time.Duration) (float64, bool) {
			best := math.Inf(1)
			for range steadyProbes {
				p := l
				p.iters = max(1, int(d.Seconds()/l.secPerOp))
				p.whole = d > short // as the leaf will run when lengthened to d
				s, fail, err := r.runLeaf(ctx, p, record.Base, abba.Entry{Round: -1, Slot: -1})
				if err != nil {
					ctxErr = err
					return 0, false
				}
				if fail != nil {
					return 0, false
				}
				if pr := s.Process; pr != nil && pr.CPUShare > 0 && pr.CPUShare < minProbeShare {
					shares[d] = append(shares[d], pr.CPUShare)
					continue // waited for its CPU: its time per op is the host's load
				}
				if v, ok := s.Get("sec/op"); ok {
					best = min(best, v)
				}
				if pr := s.Process; pr != nil {
					if f, ok := faults[d]; !ok || pr.Faults < f {
						faults[d] = pr.Faults
					}
				}
			}
			if math.IsInf(best, 1) && len(shares[d]) > 0 {
				contested = true
			}
			return best, !math.IsInf(best, 1)
		}
		d, moved := steadyLength(probe, short, long, tol)
		if ctxErr != nil {
			return leaves, ctxErr
		}
		if contested {
			// steadyLength decided without the probes of some length: runs stay as they are, and
			// the note says why.
			r.warn(fmt.Sprintf("%s allocates, and whether its runs of %s reach the steady state could not be told: "+
				"the host was too busy (probes of %s got %s of a CPU); its runs stay at %s", l.name, short,
				joinDurations(shares), shareText(shares), short))
			continue
		}
		if fs, fl, ok := leaking(faults, short, long); ok {
			r.warn(fmt.Sprintf("%s touches fresh memory in proportion to its iterations: %.3g page faults per op in a "+
				"run of %s, %.3g in one of %s; it grows its state or leaks, so no run length reaches a steady state, "+
				"and its time per op includes first-touch page faults", l.name, fs, short, fl, long))
		}
		if d > short {
			l.iters = max(1, int(d.Seconds()/l.secPerOp))
			l.whole = true
			leaves[i] = l
			_, r.run.Iters[l.name] = l.split()
			r.warn(fmt.Sprintf("%s allocates, and its time per op in a run of %s was %+.1f%% off a %s run's: runs of "+
				"%s, each one call of the benchmark (b.N = %d), to measure the steady state go test measures", l.name,
				short, 100*moved, long, d, l.iters))
		}
	}
	r.trends = nil // the probes' sub-runs are not the timed runs'
	return leaves, nil
}

// minProbeShare is the least share of a CPU a steady-state probe's process must have had for its
// time per op to count: a whole call of 100 ms on a CPU shared with other work is timed with the
// waits in it. Measured on this project's 2-core VM at a load of 9–20 (tools/corpus's
// alloc-sizeclass, perfgate compare at a budget of 30 s): the 100 ms probes of its allocating key
// setup ran 1.5–25× its 10 ms probes' time per op, so perfgate lengthened its runs in every
// comparison, and base's level was 100–315 ns/op in 12 comparisons (58–62 by go test on a calm
// minute); with these probes left out its runs stayed at 10 ms, and base's level was 59–67 ns/op
// in 3 comparisons alternated with 3 of the former.
const minProbeShare = 0.75

// joinDurations lists the lengths of m in ascending order: "10ms and 100ms".
func joinDurations(m map[time.Duration][]float64) string {
	ds := slices.Sorted(maps.Keys(m))
	var s []string
	for _, d := range ds {
		s = append(s, d.String())
	}
	return strings.Join(s, " and ")
}

// shareText is the range of the shares in m, in percent: "12–40%".
func shareText(m map[time.Duration][]float64) string {
	var all []float64
	for _, v := range m {
		all = append(all, v...)
	}
	lo, hi := slices.Min(all), slices.Max(all)
	if fmt.Sprintf("%.0f", 100*lo) == fmt.Sprintf("%.0f", 100*hi) {
		return fmt.Sprintf("%.0f%%", 100*lo)
	}
	return fmt.Sprintf("%.0f–%.0f%%", 100*lo, 100*hi)
}

// leakFaults is the page faults per op above which a run that does not fault less per op when 4×
// or more longer is taken to grow its state: a page every 100 ops.
const leakFaults = 0.01

// leaking reports whether the fewest page faults per op of the probes at long are still above
// leakFaults and at least half of those at short: a process's start-up and its heap's growth to
// the benchmark's working size are spread over more iterations in a longer run, so their share per
// op falls with the length; a benchmark that keeps touching fresh pages (its state grows with b.N,
// or it leaks) faults about as much per op at any length.
func leaking(faults map[time.Duration]float64, short, long time.Duration) (atShort, atLong float64, ok bool) {
	fs, ok1 := faults[short]
	fl, ok2 := faults[long]
	if !ok1 || !ok2 || long < 4*short {
		return 0, 0, false
	}
	return fs, fl, fl > leakFaults && fl >= fs/2
}

// steadyLength returns the shortest run length, from short up ×4 at a time, at which perOp (the
// fastest of a few runs of that length in fresh processes) lies within tol (a fraction) of its
// value at long; long when none does, short when the probe at long fails. It also returns how far
// the per-op time at short was off (perOp/ref − 1), 0 when it was not measured. It runs nothing
// itself, so that tests drive it with synthetic numbers.
func steadyLength(perOp func(time.Duration) (float64, bool), short, long time.Duration, tol float64) (
	time.Duration, float64) {
	ref, ok := perOp(long)
	if !ok || !(ref > 0) {
		return short, 0
	}
	first := 0.0
	for d := short; d < long; d *= 4 {
		x, ok := perOp(d)
		if !ok {
			return long, first
		}
		off := x/ref - 1
		if d == short {
			first = off
		}
		if math.Abs(off) <= tol {
			return d, first
		}
	}
	return long, first
}
