package gate

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// constantTime fails, under record.CTFailNew, on every operation that base traced clean and in which head shows
// secret-dependent branches or memory accesses. A check that did not run (valgrind missing, an error) is a note in
// every mode: it is never counted as passed.
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
	for _, o := range ct.NewlyNotConstantTime() {
		var what []string
		if n := len(o.Head.Branches); n > 0 {
			s := o.Head.Branches[0]
			what = append(what, fmt.Sprintf("%s (first at %s)",
				count(n, "secret-dependent branch", "secret-dependent branches"), where(s)))
		}
		if n := len(o.Head.Loads); n > 0 {
			s := o.Head.Loads[0]
			what = append(what, fmt.Sprintf("%s (first at %s, reading %s)",
				count(n, "secret-indexed load site", "secret-indexed load sites"),
				where(s), s.Table))
		}
		d.fail("constant time: head adds %s in %s %s, where base had none", strings.Join(what, " and "),
			o.Constructor, o.Operation)
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

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
