package record

// CTNotTracedReason says why a constructor was not traced.
type CTNotTracedReason string

// Why a constructor was not traced.
const (
	// CTSameCode: the code its driver reaches is the same machine code on both sides (package
	// samecode), so its traces would be the same too.
	CTSameCode CTNotTracedReason = "same-code"
	// CTBudget: the check's budget (CPU time per side) ran out before it was traced.
	CTBudget CTNotTracedReason = "budget"
)

// CTNotTraced is a constructor the constant-time check discovered and left out.
type CTNotTraced struct {
	Constructor string            `json:"constructor"`
	Reason      CTNotTracedReason `json:"reason"`
	// as Benchmark.Package, when several packages are gated
	Package string `json:"package,omitempty"`
}

// Traced returns the constructors whose operations the check traced, in order of Operations.
func (ct *ConstantTime) Traced() []string {
	if ct == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, o := range ct.Operations {
		if !seen[o.Constructor] {
			seen[o.Constructor] = true
			out = append(out, o.Constructor)
		}
	}
	return out
}

// LeftOut returns the constructors not traced for reason r.
func (ct *ConstantTime) LeftOut(r CTNotTracedReason) []string {
	if ct == nil {
		return nil
	}
	var out []string
	for _, n := range ct.NotTraced {
		if n.Reason == r {
			out = append(out, n.Constructor)
		}
	}
	return out
}
