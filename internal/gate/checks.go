package gate

import (
	"fmt"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// gateCheck is one of the checks the gate decides on: its name in Verdict.Checks and how to tell,
// from the result and the policy, whether it ran and what it covered. row's false leaves the check
// out of the list: a check that was never asked for (constant time off).
type gateCheck struct {
	name string
	row  func(r record.Result, p Policy) (record.Check, bool)
}

// gateChecks are the gate's checks in the order Verdict.Checks lists them. Every rule of Decide
// that can fail the gate belongs to one of them; a new check adds its name in package record and
// one entry here, and TestChecksListEveryCheck fails until it does.
var gateChecks = []gateCheck{
	{record.CheckBenchmarks, benchmarksCheck},
	{record.CheckDifferential, differentialCheck},
	{record.CheckSize, sizeCheck},
	{record.CheckConstantTime, constantTimeCheck},
}

// checks says which of the gate's checks ran on r and which did not, and why (gateChecks), and,
// last, whether they ran guarded (record.CheckSandbox).
func checks(r record.Result, p Policy) []record.Check {
	var cs []record.Check
	for _, gc := range gateChecks {
		if c, ok := gc.row(r, p); ok {
			c.Name = gc.name
			cs = append(cs, c)
		}
	}
	if r.Sandbox != nil {
		cs = append(cs, record.Check{Name: record.CheckSandbox, Ran: r.Sandbox.Guarded, Detail: r.Sandbox.String()})
	}
	return cs
}

// constantTimeCheck says whether the constant-time check ran: when both sides were traced, or every
// constructor's code was found the same on both sides. It is listed whenever p asks for it (report
// or fail-new), ran or not, and when the default (empty: report where valgrind is installed) ran it
// (ct.Mode); with constant-time off it is not listed.
func constantTimeCheck(r record.Result, p Policy) (record.Check, bool) {
	ct := r.ConstantTime
	mode := p.ConstantTime
	if mode == "" && ct != nil {
		mode = ct.Mode
	}
	if ct == nil || mode == "" || mode == record.CTOff {
		return record.Check{}, false
	}
	c := record.Check{Name: record.CheckConstantTime}
	switch ct.Status {
	case record.CTChecked:
		c.Ran, c.Detail = true, text.Plural(len(ct.Operations), "operation")
		if n := len(ct.LeftOut(record.CTSameCode)); n > 0 {
			c.Detail += fmt.Sprintf("; %s with the same code not traced", text.Plural(n, "constructor"))
		}
		if n := len(ct.LeftOut(record.CTBudget)); n > 0 {
			c.Detail += fmt.Sprintf("; %s left out by the budget", text.Plural(n, "constructor"))
		}
	case record.CTSkipped:
		c.Detail = "skipped"
	case record.CTUnavailable:
		c.Detail = "valgrind not available"
	default:
		c.Detail = "could not run"
	}
	return c, true
}
