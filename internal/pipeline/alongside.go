package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/record"
)

// The constant-time trace beside the timing. Under metric auto with a CPU to spare, the count lane
// runs on one CPU while the timed children run on another (runLanes), and the count is usually in
// long before the timing ends: on this repository's gate after 28 s of a 95 s timing phase. The
// trace, the longest check that is not timed (40 s on two CPUs for cipher/des's five constructors),
// then takes the count's CPU instead of running before the tests with both. The whole of perfgate
// is pinned to that CPU meanwhile (abba.PinProcess), so that the trace's valgrind, the parsing of
// its output and this process's garbage collector stay off the timed child's CPU, as the count
// did; when the timing ends, the rest of the trace may use every CPU, the valgrind it is running
// too (abba.WidenDescendants). When the count is not in before the timing ends, or nothing is
// timed, the trace runs after the benchmarks.

// traceBesideTiming reports whether the constant-time trace waits for the count lane's CPU: the
// configuration runs the count alongside the timing when there is a CPU for it (countCPU decides
// that at the time; otherwise the trace runs after the benchmarks, which costs nothing).
func (p *pipeline) traceBesideTiming() bool {
	return p.cfg.TimesBenchmarks() && p.cfg.Metric == record.MetricAuto && p.cfg.CountsInstructions() &&
		!p.cfg.NoPin
}

// ctAlongside is the constant-time trace running beside the timing.
type ctAlongside struct {
	done  chan struct{}
	unpin func() // gives the process back every CPU; safe to call more than once
	ct    *record.ConstantTime
	err   error
	wall  time.Duration
	// artifacts the trace read from the store: the store's count of hits from start to the end
	// (nothing else reads the store while the timing runs)
	startHits, hits int64
}

// storeHits is what the trace has read from the store so far.
func (a *ctAlongside) storeHits(st *store.Store) int64 {
	select {
	case <-a.done:
		return a.hits
	default:
		return st.Hits() - a.startHits
	}
}

// startConstantTimeBeside starts the trace p.ctLater holds on cpu, the count lane's, with the whole
// process pinned there. It runs from the count lane's goroutine once the count is in; a process
// that cannot be pinned leaves the trace for after the benchmarks.
func (p *pipeline) startConstantTimeBeside(ctx context.Context, cpu int) {
	prep := p.ctLater
	if prep == nil || ctx.Err() != nil {
		return
	}
	restore, err := abba.PinProcess(cpu)
	if err != nil {
		p.logf("constant time: not traced beside the timing (%v); it runs after the benchmarks", err)
		return
	}
	p.ctLater = nil
	a := &ctAlongside{done: make(chan struct{}), unpin: sync.OnceFunc(restore), startHits: p.store.Hits()}
	p.ctAlong = a
	p.logf("constant time: tracing on cpu %d beside the timing, now that the count is in", cpu)
	start := time.Now()
	go func() {
		defer close(a.done)
		defer a.unpin()
		a.ct, a.err = p.traceConstantTime(ctx, prep)
		a.wall, a.hits = time.Since(start).Round(time.Millisecond), p.store.Hits()-a.startHits
	}()
}

// finishConstantTime waits for the trace beside the timing and records it as a phase of its own
// beside the lanes' (timePhase leaves what the trace read from the store out of theirs), or runs
// the trace now when it did not start. It does nothing the second time.
func (p *pipeline) finishConstantTime(ctx context.Context) error {
	if a := p.ctAlong; a != nil {
		p.ctAlong = nil
		select {
		case <-a.done:
		default:
			p.logf("constant time: waiting for the trace that began beside the timing")
			stop := p.heartbeat("constant time", time.Now())
			<-a.done
			stop()
		}
		p.ct = a.ct
		p.recordBeside(record.Phase{Name: "constant time", Wall: a.wall, FromStore: int(a.hits)}, p.lanesPhase())
		return a.err
	}
	if p.ctLater == nil {
		return nil
	}
	prep := p.ctLater
	p.ctLater = nil
	return p.timePhase("constant time", func() (err error) {
		p.ct, err = p.traceConstantTime(ctx, prep)
		return err
	})
}

// recordBeside records ph as a phase that ran beside the phase named beside.
func (p *pipeline) recordBeside(ph record.Phase, beside string) {
	ph.Alongside = beside
	if p.phases == nil {
		return
	}
	p.phases.list = append(p.phases.list, ph)
	if ph.FromStore > 0 {
		p.logf("phase %s: %v beside %s (%d from the store)", ph.Name, ph.Wall.Round(100*time.Millisecond), beside,
			ph.FromStore)
	} else {
		p.logf("phase %s: %v beside %s", ph.Name, ph.Wall.Round(100*time.Millisecond), beside)
	}
}
