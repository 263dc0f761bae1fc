package pipeline

import (
	"strings"
	"testing"
	"time"
)

// TestHeartbeat checks that a phase whose work logs nothing gets "still working" lines, that a
// progress line written meanwhile puts the next one off, and that none comes after the phase ends.
func TestHeartbeat(t *testing.T) {
	if quietAfter+heartbeatTick > 5*time.Second {
		t.Errorf("quietAfter %v and heartbeatTick %v allow more than 5s of silence", quietAfter, heartbeatTick)
	}
	defer func(q, tick time.Duration) { quietAfter, heartbeatTick = q, tick }(quietAfter, heartbeatTick)
	quietAfter, heartbeatTick = 40*time.Millisecond, 5*time.Millisecond
	var out syncBuffer
	p := &pipeline{log: &progressLog{w: &out, last: time.Now()}}
	stop := p.heartbeat("build", time.Now())
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "still working") < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(out.String(), "perfgate: build: still working, "); n < 2 {
		t.Fatalf("%d heartbeat lines in 10s of silence; log:\n%s", n, out.String())
	}
	// A line of the phase's own resets the silence: the heartbeat waits quietAfter after it.
	p.logf("building head test binary")
	if l := p.log.(*progressLog); l.quiet() >= quietAfter {
		t.Fatalf("the log is quiet for %v right after a line", l.quiet())
	}
	stop()
	after := out.String()
	time.Sleep(4 * quietAfter)
	if out.String() != after {
		t.Errorf("heartbeat lines after stop:\n%s", strings.TrimPrefix(out.String(), after))
	}
}
