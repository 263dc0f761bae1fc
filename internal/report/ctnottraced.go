package report

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/record"
)

// CTNotTracedText says why a constructor has no traced operations: "same code: not traced" or the
// budget's.
func CTNotTracedText(n record.CTNotTraced) string {
	if n.Reason == record.CTSameCode {
		return "same code: not traced"
	}
	return "not traced: budget ran out"
}

// CTCost is what the check cost and was allowed: " · 12.3 s of CPU, both sides (budget 30s per
// side)", "" when it traced nothing.
func CTCost(ct *record.ConstantTime) string {
	if ct.CPU == 0 {
		return ""
	}
	s := fmt.Sprintf(" · %.1f s of CPU, both sides", ct.CPU.Seconds())
	if ct.Budget > 0 {
		s += fmt.Sprintf(" (budget %v per side)", ct.Budget.Round(time.Second))
	}
	return s
}
