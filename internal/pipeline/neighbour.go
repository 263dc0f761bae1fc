package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/proc"
)

// What a neighbour does to the timed CPU. On a 2-core cloud VM a valgrind on CPU 0 added 2–4% to a
// single-block benchmark pinned on CPU 1 (79.0 → 81.7–83.1 µs/op): the two CPUs share a core, or
// its caches, or its memory bandwidth, and A–B–B–A does not cancel a neighbour that starts or stops
// mid-run. So the scheduler lets nothing run beside the timing unless this host measured it
// harmless: a short probe, timed pinned on the timed CPU alone and beside a valgrind on the spare
// CPU, interleaved A B B A.

// NeighbourProbe is what a valgrind on NeighbourCPU did to a timed probe on TimedCPU.
type NeighbourProbe struct {
	TimedCPU, NeighbourCPU int
	Rounds                 int          // rounds of alone, beside, beside, alone
	Kinds                  []ProbeTimes // the probe's loops
	// Beside is the larger of the kinds' ratios: the probe's time beside the valgrind over its time
	// alone (the median of the rounds' ratios)
	Beside float64
	Wall   time.Duration // the probe's own wall time, the valgrind's start included
}

// ProbeTimes is one loop of the probe: its time per iteration alone and beside the neighbour (the
// medians over rounds), and the median of the rounds' ratios of the two.
type ProbeTimes struct {
	Name          string
	Alone, Beside time.Duration // per 1,000 iterations
	Ratio         float64
	// NoisePct is the median over rounds of how far the two alone slots (A–A) and the two beside
	// slots (B–B) differ, percent of their mean: what the probe cannot tell from nothing
	NoisePct float64
}

// Pct is the probe's slowdown beside the neighbour, percent.
func (n NeighbourProbe) Pct() float64 { return 100 * (n.Beside - 1) }

// UncertaintyPct is what the probe cannot resolve, percent: the larger of its loops' A–A and B–B
// noise over the square root of the rounds. A busy host cannot vouch for a small effect.
func (n NeighbourProbe) UncertaintyPct() float64 {
	var u float64
	for _, k := range n.Kinds {
		u = max(u, k.NoisePct/math.Sqrt(float64(max(n.Rounds, 1))))
	}
	return u
}

// effect is what the scheduler's plan reads of the probe.
func (n NeighbourProbe) effect() neighbourEffect {
	return neighbourEffect{Measured: n.Beside > 0, Pct: n.Pct(), UncertaintyPct: n.UncertaintyPct()}
}

// Harmless reports whether the neighbour moved the probe by at most a quarter of thresholdPct, its
// uncertainty included: then the scheduler runs the count lane and the constant-time trace beside
// the timing.
func (n NeighbourProbe) Harmless(thresholdPct float64) bool {
	return n.effect().harmless(thresholdPct)
}

// String says what the probe found, as perfgate doctor prints it.
func (n NeighbourProbe) String() string {
	var kinds []string
	for _, k := range n.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %+.1f%%", k.Name, 100*(k.Ratio-1)))
	}
	return fmt.Sprintf("a valgrind on CPU %d moves a timed probe on CPU %d by %+.1f%% ±%.1f%% (alone 1.00, beside "+
		"%.3f; %s; %d rounds of A–B–B–A in %v)", n.NeighbourCPU, n.TimedCPU, n.Pct(), n.UncertaintyPct(), n.Beside,
		strings.Join(kinds, ", "), n.Rounds, n.Wall.Round(time.Millisecond))
}

// NeighbourCPUs returns the CPU the timed children are pinned to by default and the one a lane
// would run on beside them; ok is false when there is no second CPU, or no pinning.
func NeighbourCPUs() (timed, neighbour int, ok bool) {
	pin, err := abba.Choose(-1, false)
	if err != nil || !pin.Pinned {
		return -1, -1, false
	}
	in := planInput{Times: true, Counts: true, Auto: true, Valgrind: true, Pinned: true, TimedCPU: pin.CPU}
	in.CPUs, _ = abba.AllowedCPUs()
	if s := in.spare(); s >= 0 {
		return pin.CPU, s, true
	}
	return pin.CPU, -1, false
}

// The probe's size: rounds of A–B–B–A, each slot running each loop for about probeSlot. With the
// valgrind's start, well under a second.
const (
	probeRounds = 5
	probeSlot   = 5 * time.Millisecond
	// how long the valgrind may take to start running its guest's loop
	probeStartLimit = 2 * time.Second
)

// ProbeNeighbour times the probe's loops pinned on timedCPU, alone and beside a valgrind
// (callgrind, as the count lane runs it) of a busy loop pinned on neighbourCPU, in rounds of A B B
// A; the valgrind is stopped (SIGSTOP) while the probe runs alone, so that it starts only once.
func ProbeNeighbour(ctx context.Context, valgrind string, timedCPU, neighbourCPU int) (NeighbourProbe, error) {
	start := time.Now()
	n := NeighbourProbe{TimedCPU: timedCPU, NeighbourCPU: neighbourCPU, Rounds: probeRounds}
	cmd := proc.Command(ctx, "", nil, valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null",
		"/bin/sh", "-c", "while :; do :; done")
	err := proc.Start(cmd, func() error {
		_, err := abba.Start(cmd, abba.Pinning{Pinned: true, CPU: neighbourCPU})
		return err
	})
	if err != nil {
		return n, fmt.Errorf("starting a valgrind on cpu %d: %w", neighbourCPU, err)
	}
	pid := cmd.Process.Pid
	defer func() {
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // it may be gone
		proc.Wait(cmd)                     //nolint:errcheck // killed
	}()
	type result struct {
		kinds []ProbeTimes
		err   error
	}
	done := make(chan result, 1)
	go func() {
		// The thread stays locked and pinned: it ends with the goroutine, and its mask with it.
		runtime.LockOSThread()
		if err := abba.PinThread(timedCPU); err != nil {
			done <- result{err: err}
			return
		}
		loops := probeLoops()
		iters := make([]int, len(loops))
		for i, l := range loops {
			iters[i] = calibrate(l.time)
		}
		if err := waitBusy(pid, probeStartLimit); err != nil {
			done <- result{err: err}
			return
		}
		// per loop, per round: the slots' times in the order A B B A
		times := make([][][4]time.Duration, len(loops))
		for i := range times {
			times[i] = make([][4]time.Duration, probeRounds)
		}
		for r := range probeRounds {
			for slot, beside := range [4]bool{false, true, true, false} {
				sig := syscall.SIGSTOP
				if beside {
					sig = syscall.SIGCONT
				}
				if err := syscall.Kill(pid, sig); err != nil {
					done <- result{err: fmt.Errorf("the valgrind beside the probe exited: %w", err)}
					return
				}
				time.Sleep(time.Millisecond) // let the signal take effect on the other CPU
				for i, l := range loops {
					times[i][r][slot] = l.time(iters[i])
				}
			}
		}
		kinds := make([]ProbeTimes, len(loops))
		for i, l := range loops {
			kinds[i] = probeTimes(l.name, iters[i], times[i])
		}
		done <- result{kinds: kinds}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return n, ctx.Err()
	}
	if r.err != nil {
		return n, r.err
	}
	n.Kinds = r.kinds
	for _, k := range n.Kinds {
		n.Beside = max(n.Beside, k.Ratio)
	}
	n.Wall = time.Since(start)
	return n, nil
}

// probeTimes summarises one loop's rounds of A B B A, iters iterations a slot.
func probeTimes(name string, iters int, rounds [][4]time.Duration) ProbeTimes {
	var ratios, alone, beside, noise []float64
	for _, s := range rounds {
		a, b := float64(s[0]+s[3]), float64(s[1]+s[2])
		ratios = append(ratios, b/a)
		alone, beside = append(alone, a/2), append(beside, b/2)
		noise = append(noise, 200*math.Abs(float64(s[0]-s[3]))/a, 200*math.Abs(float64(s[1]-s[2]))/b)
	}
	per := func(v []float64) time.Duration { return time.Duration(median(v) * 1000 / float64(iters)) }
	return ProbeTimes{Name: name, Alone: per(alone), Beside: per(beside), Ratio: median(ratios), NoisePct: median(noise)}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// probeLoop is one of the probe's loops: run does n iterations.
type probeLoop struct {
	name string
	run  func(n int)
	// the loop allocates: it runs with the garbage collector off, after a collection, so that what
	// is timed is the allocation and not when a collection happens to fall
	allocates bool
}

// time runs l for n iterations and returns how long that took.
func (l probeLoop) time(n int) time.Duration {
	if l.allocates {
		runtime.GC()
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	t0 := time.Now()
	l.run(n)
	return time.Since(t0)
}

// probeLoops are a CPU-bound loop of table lookups (a cipher's S-boxes: 16 KiB, as the L1 cache a
// neighbour on the same core shares) and one that allocates (the garbage collector's work too).
func probeLoops() []probeLoop {
	return []probeLoop{
		{"table loop", func(n int) {
			x, s := uint32(2463534242), uint32(0)
			for range n {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				s += probeTable[x%uint32(len(probeTable))]
			}
			runtime.KeepAlive(s)
		}, false},
		{"allocating loop", func(n int) {
			for i := range n {
				b := make([]byte, 64+i&127)
				b[0] = byte(i)
				runtime.KeepAlive(b)
			}
		}, true},
	}
}

var (
	probeTable = func() (t [4096]uint32) {
		for i := range t {
			t[i] = uint32(i) * 2654435761
		}
		return t
	}()
)

// calibrate returns the iterations time takes about probeSlot for.
func calibrate(time func(int) time.Duration) int {
	n := 1000
	for {
		d := time(n)
		if d >= probeSlot/4 || n > 1<<30 {
			return max(int(float64(n)*float64(probeSlot)/float64(max(d, 1))), 1)
		}
		n *= 4
	}
}

// waitBusy waits until pid has spent 50 ms of CPU time (valgrind has started its guest's loop), at
// most limit.
func waitBusy(pid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return fmt.Errorf("the valgrind beside the probe: %w", err)
		}
		// the fields after the command's closing parenthesis: state is the first, utime the 12th
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			ut, _ := strconv.Atoi(f[11])
			st, _ := strconv.Atoi(f[12])
			if (ut+st)*10 >= 50 { // clock ticks of 10 ms
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("the valgrind beside the probe did not start running within " + limit.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// neighbourHook, when set, answers for the probe: tests force a harmful or a harmless neighbour.
var neighbourHook func() neighbourEffect

// neighbourCache keeps the probe's answer for the run: several packages, one probe.
var neighbourCache struct {
	sync.Mutex
	m map[string]neighbourEffect
}

// neighbour is what a valgrind on spare does to the timed CPU, measured once a run.
func (p *pipeline) neighbour(ctx context.Context, valgrind string, timed, spare int) neighbourEffect {
	if neighbourHook != nil {
		return neighbourHook()
	}
	key := fmt.Sprint(valgrind, timed, spare)
	neighbourCache.Lock()
	defer neighbourCache.Unlock()
	if e, ok := neighbourCache.m[key]; ok {
		return e
	}
	n, err := ProbeNeighbour(ctx, valgrind, timed, spare)
	e := n.effect()
	if err != nil {
		e = neighbourEffect{Err: err.Error()}
		p.logf("schedule: %v", err)
	} else {
		p.logf("schedule: %s", n)
	}
	if ctx.Err() == nil {
		if neighbourCache.m == nil {
			neighbourCache.m = map[string]neighbourEffect{}
		}
		neighbourCache.m[key] = e
	}
	return e
}
