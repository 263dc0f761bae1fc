package pipeline

import (
	"io"
	"sync"
	"time"

	"github.com/perfgate/perfgate/record"
)

// Phase timing: each phase's wall time and what it read from the store (timePhase, recordBeside),
// for the method's phases record, and the heartbeat that keeps the log from going quiet meanwhile.

// phases records each phase's wall time and how many of its artifacts came from the store.
type phases struct {
	list []record.Phase
}

func (ph *phases) get() []record.Phase {
	if ph == nil {
		return nil
	}
	return ph.list
}

// timePhase runs f as the phase name and records it; f's return is passed through.
func (p *pipeline) timePhase(name string, f func() error) error {
	hits := p.store.Hits()
	start := time.Now()
	stop := p.heartbeat(name, start)
	err := f()
	stop()
	ph := record.Phase{Name: name, Wall: time.Since(start).Round(time.Millisecond), FromStore: int(p.store.Hits() - hits)}
	if j := p.sched.running(); j != nil && name == p.lanesPhase() {
		// the constant-time trace beside the lanes read these; its own phase counts them
		ph.FromStore = max(ph.FromStore-int(j.storeHits(p.store)), 0)
	}
	if p.phases == nil {
		return err
	}
	p.phases.list = append(p.phases.list, ph)
	if ph.FromStore > 0 {
		p.logf("phase %s: %v (%d from the store)", name, ph.Wall.Round(100*time.Millisecond), ph.FromStore)
	} else {
		p.logf("phase %s: %v", name, ph.Wall.Round(100*time.Millisecond))
	}
	return err
}

// lanesPhase names the phase of the benchmarks' lanes: the timing, and the counting when it runs
// beside it.
func (p *pipeline) lanesPhase() string {
	switch {
	case !p.cfg.CountsInstructions():
		return "timing"
	case !p.cfg.TimesBenchmarks():
		return "counting"
	}
	return "timing and counting"
}

// quietAfter is how long the progress log may stay silent during a phase before perfgate says it is
// still working, and heartbeatTick how often it looks: no stretch of a run goes more than their
// sum, 5 s, without a progress line. Variables for the test.
var (
	quietAfter    = 4 * time.Second
	heartbeatTick = time.Second
)

// progressLog is the comparison's progress log, which remembers when it was last written to.
type progressLog struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time
}

func (l *progressLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = time.Now()
	return l.w.Write(b)
}

func (l *progressLog) quiet() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Since(l.last)
}

// heartbeat writes a line whenever the log has been silent for quietAfter while the phase name
// runs, so that no stretch of a run goes without a progress line; the returned function stops it.
func (p *pipeline) heartbeat(name string, start time.Time) (stop func()) {
	l, ok := p.log.(*progressLog)
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(heartbeatTick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if l.quiet() >= quietAfter {
					p.logf("%s: still working, %v so far", name, time.Since(start).Round(time.Second))
				}
			}
		}
	}()
	return func() { close(done); <-finished }
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
