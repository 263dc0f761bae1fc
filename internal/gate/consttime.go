package gate

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// constantTime fails, under record.CTFailNew, on every site that head adds to an operation both
// sides traced (a secret-dependent branch or load base lacks), and on every load site whose lookups
// touch more 64-byte lines than base's (NewSites). A check that did not run (valgrind missing, an
// error) is a note in every mode: it is never counted as passed.
func (d *decision) constantTime(ct *record.ConstantTime, mode record.ConstantTimeMode) {
	if ct == nil || mode == record.CTOff {
		return
	}
	switch ct.Status {
	case record.CTUnavailable, record.CTError:
		d.v.Notes = append(d.v.Notes, "constant-time check not run, so nothing is known about secret-dependent "+
			"branches and loads: "+ct.Reason)
		return
	}
	if mode != record.CTFailNew {
		return
	}
	// The sites fail-new fails (NewSites), one reason per operation.
	type opSites struct {
		ctor, op        string
		base            *record.CTSide
		branches, loads []record.CTSite
		grew            []CTSiteDelta
	}
	var ops []*opSites
	byOp := map[[2]string]*opSites{}
	for _, d := range NewSites(ct) {
		k := [2]string{d.Constructor, d.Operation}
		o := byOp[k]
		if o == nil {
			o = &opSites{ctor: d.Constructor, op: d.Operation}
			for i := range ct.Operations {
				if c := &ct.Operations[i]; c.Constructor == d.Constructor && c.Operation == d.Operation {
					o.base = c.Base
				}
			}
			byOp[k] = o
			ops = append(ops, o)
		}
		switch {
		case d.State == CTSiteGrew:
			o.grew = append(o.grew, d)
		case d.Kind == CTBranch:
			o.branches = append(o.branches, d.Site)
		default:
			o.loads = append(o.loads, d.Site)
		}
	}
	for _, o := range ops {
		var what []string
		if n := len(o.branches); n > 0 {
			what = append(what, fmt.Sprintf("%s (first at %s)",
				text.PluralOf(n, "secret-dependent branch", "secret-dependent branches"), where(o.branches[0])))
		}
		if n := len(o.loads); n > 0 {
			s := o.loads[0]
			what = append(what, fmt.Sprintf("%s (first at %s, reading %s)",
				text.PluralOf(n, "secret-indexed load site", "secret-indexed load sites"), where(s), s.Table))
		}
		if len(what) > 0 {
			had := ", where base had none"
			if o.base.Findings() {
				had = ", beside base's"
			}
			d.fail("constant time: head adds %s in %s %s%s", strings.Join(what, " and "), o.ctor, o.op, had)
		}
		if n := len(o.grew); n > 0 {
			g := o.grew[0]
			d.fail("constant time: in %s %s, %s whose lookups touch more 64-byte lines than base's (first at %s, "+
				"reading %s: %d → %d lines)", o.ctor, o.op, text.PluralOf(n, "secret-indexed load site", "secret-indexed "+
				"load sites"), where(g.Site), g.Site.Table, g.Base.LinesPerLookup, g.Site.LinesPerLookup)
		}
	}
}

// where names a site by function and offset, and file and line when DWARF had them.
func where(s record.CTSite) string {
	at := fmt.Sprintf("%s+%#x", s.Function, s.Offset)
	if s.File != "" {
		at += fmt.Sprintf(" %s:%d", s.File, s.Line)
	}
	return at
}
