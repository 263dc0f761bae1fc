package shard

import (
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/record"
)

// ctRank orders the constant-time statuses of several packages: the combined check has the first
// status any package has, so that one package's unavailable or failed check is never hidden by the
// others' results.
var ctRank = []record.CTStatus{record.CTError, record.CTUnavailable, record.CTChecked, record.CTSkipped}

// combineConstantTime is the constant-time check of several packages: every operation, marked with
// its package, under the worst status; nil when no package ran it.
func combineConstantTime(cts []*record.ConstantTime) *record.ConstantTime {
	if len(cts) == 0 {
		return nil
	}
	out := *cts[0]
	out.Package, out.Reason, out.Duration = "", "", 0
	out.Operations = []record.CTOperation{}
	var reasons []string
	rank := len(ctRank)
	out.CPU, out.NotTraced = 0, nil
	for _, ct := range cts {
		for _, o := range ct.Operations {
			o.Package, o.Dir = ct.Package, ct.Dir
			out.Operations = append(out.Operations, o)
		}
		for _, n := range ct.NotTraced {
			n.Package = ct.Package
			out.NotTraced = append(out.NotTraced, n)
		}
		out.CPU += ct.CPU
		out.Duration += ct.Duration
		if ct.Reason != "" {
			reasons = append(reasons, ct.Package+": "+ct.Reason)
		}
		if i := slices.Index(ctRank, ct.Status); i >= 0 && i < rank {
			rank, out.Status = i, ct.Status
		}
	}
	out.Reason = strings.Join(reasons, "; ")
	out.Duration = out.Duration.Round(time.Millisecond)
	return &out
}
