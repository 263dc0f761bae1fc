package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// runTests runs the package's own tests (-test.short) from each side's test binary.
func (p *pipeline) runTests(ctx context.Context) functionalRecord {
	var rec functionalRecord
	for _, s := range []*side{&p.base, &p.head} {
		p.logf("running %s tests", s.name)
		out, errb, err := p.runTestBinary(ctx, s)
		all := append(out, errb...)
		p.writeLog("test-"+string(s.name)+".log", all)
		run := record.TestRun{Ran: true, Passed: err == nil}
		if err != nil {
			run.Output = proc.Tail(all, 40)
			if pe := (*proc.Error)(nil); errors.As(err, &pe) && pe.Limit > 0 {
				run.Output += fmt.Sprintf("\n(killed after %s)", p.cfg.Timeout)
			}
		}
		if s.name == record.Base {
			rec.functional.Base = run
			if !run.Passed {
				rec.notes = append(rec.notes, "base's tests fail; this does not block the gate")
			}
		} else {
			rec.functional.Head = run
		}
	}
	return rec
}
