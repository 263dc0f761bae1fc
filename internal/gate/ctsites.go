package gate

import (
	"sort"

	"github.com/perfgate/perfgate/record"
)

// The sites of an operation compared between the sides: which of head's secret-dependent branches
// and loads base already had, which are new, which touch more cache lines per lookup, and which
// base had and head lost. The gate's fail-new rule (NewSites) and package sarif's log read this;
// sarif compares no sites by itself. result.json carries the sites (record.CTSide), not their
// comparison, which is computed again from them.

// CTSiteKind says what a site does under different secrets.
type CTSiteKind string

// Site kinds.
const (
	CTBranch CTSiteKind = "branch" // control flow diverges after it (record.CTSide.Branches)
	// it touches a different line (record.CTSide.Loads; a store or modify too, see
	// record.CTSite.Kind)
	CTLoad CTSiteKind = "load"
)

// CTSiteState is how a site compares with the other side.
type CTSiteState string

// Site states. Head's sites are new, grew, shrank or unchanged; base's sites that head lacks are
// absent.
const (
	// head has it, base does not (or base did not trace the operation)
	CTSiteNew       CTSiteState = "new"
	CTSiteGrew      CTSiteState = "grew"      // both have it, and head's lookups touch more lines
	CTSiteShrank    CTSiteState = "shrank"    // both have it, and head's lookups touch fewer lines
	CTSiteUnchanged CTSiteState = "unchanged" // both have it, with as many lines per lookup
	CTSiteAbsent    CTSiteState = "absent"    // base has it, head does not
)

// CTSiteDelta is one site of one operation, compared with the other side.
type CTSiteDelta struct {
	Constructor string
	Operation   string
	Kind        CTSiteKind
	State       CTSiteState
	// Site is head's site, or base's for an absent one; Base is base's match of a head site (nil
	// for new and absent).
	Site record.CTSite
	Base *record.CTSite
	// Gates is true when the operation was traced without error on both sides, so that a new or
	// grown site is a change head made; an operation only head has (a new constructor) has no
	// baseline, and its sites are new but do not gate.
	Gates bool
	// Package and Dir are the operation's (record.CTOperation.Package and Dir), when several
	// packages are gated.
	Package string
	Dir     string
}

// siteKey is what identifies a site across the sides apart from its position: code moves, so
// offsets and lines change while the source function (the inlined function when the site lies in an
// inlined copy: a function inlined on one side and not on the other is the same source), file and
// access kind stay. The table is not part of it: a lookup whose table was renamed or re-laid out is
// the same lookup, compared by its lines.
type siteKey struct {
	fn, file, kind string
}

func keyOf(s record.CTSite) siteKey {
	fn := s.Function
	if s.Inlined != "" {
		fn = s.Inlined
	}
	return siteKey{fn, s.File, s.Kind}
}

// OperationSiteDeltas compares the operation o's sites on the two sides: branches with branches,
// loads with loads. A head site matches a base site of the same source function (siteKey), file and
// access kind, on the same line when there is one, else the first unmatched in order of offset: so
// a site keeps its match when code above it moves, and the i-th of several lookups of one table in
// a function stays the i-th. Head's sites come first, in head's order, then base's absent ones.
func OperationSiteDeltas(o *record.CTOperation) []CTSiteDelta {
	var out []CTSiteDelta
	gates := o.Base != nil && o.Base.Error == "" && o.Head != nil && o.Head.Error == ""
	sites := func(s *record.CTSide, k CTSiteKind) []record.CTSite {
		switch {
		case s == nil || s.Error != "":
			return nil
		case k == CTBranch:
			return s.Branches
		}
		return s.Loads
	}
	for _, k := range []CTSiteKind{CTBranch, CTLoad} {
		head, base := sites(o.Head, k), sites(o.Base, k)
		match := matchSites(base, head)
		used := make([]bool, len(base))
		for i, h := range head {
			d := CTSiteDelta{Constructor: o.Constructor, Operation: o.Operation, Kind: k, Site: h, Gates: gates,
				State: CTSiteNew, Package: o.Package, Dir: o.Dir}
			if j := match[i]; j >= 0 {
				used[j] = true
				b := base[j]
				d.Base = &b
				switch {
				case h.LinesPerLookup > b.LinesPerLookup:
					d.State = CTSiteGrew
				case h.LinesPerLookup < b.LinesPerLookup:
					d.State = CTSiteShrank
				default:
					d.State = CTSiteUnchanged
				}
			}
			out = append(out, d)
		}
		for j, b := range base {
			if !used[j] && o.Head != nil && o.Head.Error == "" {
				out = append(out, CTSiteDelta{Constructor: o.Constructor, Operation: o.Operation, Kind: k, Site: b,
					Gates: gates, State: CTSiteAbsent, Package: o.Package, Dir: o.Dir})
			}
		}
	}
	return out
}

// matchSites returns, for each head site, the index of its base match or -1: first on the same key
// and line, then on the same key in order of offset.
func matchSites(base, head []record.CTSite) []int {
	match := make([]int, len(head))
	used := make([]bool, len(base))
	for i, h := range head {
		match[i] = -1
		for j, b := range base {
			if !used[j] && keyOf(b) == keyOf(h) && b.Line == h.Line && b.Line != 0 {
				match[i], used[j] = j, true
				break
			}
		}
	}
	order := func(s []record.CTSite) []int {
		idx := make([]int, len(s))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]].Offset < s[idx[b]].Offset })
		return idx
	}
	bo := order(base)
	for _, i := range order(head) {
		if match[i] >= 0 {
			continue
		}
		for _, j := range bo {
			if !used[j] && keyOf(base[j]) == keyOf(head[i]) {
				match[i], used[j] = j, true
				break
			}
		}
	}
	return match
}

// SiteDeltas returns the site deltas of every operation of ct, in the order of Operations; none
// unless the check ran.
func SiteDeltas(ct *record.ConstantTime) []CTSiteDelta {
	if ct == nil || ct.Status != record.CTChecked {
		return nil
	}
	var out []CTSiteDelta
	for i := range ct.Operations {
		out = append(out, OperationSiteDeltas(&ct.Operations[i])...)
	}
	return out
}

// NewSites returns what fails under record.CTFailNew: the sites of head, in operations both sides
// traced, that base lacks (new) or whose lookups touch more 64-byte lines (grew). Nothing fails
// unless the check ran.
func NewSites(ct *record.ConstantTime) []CTSiteDelta {
	var out []CTSiteDelta
	for _, d := range SiteDeltas(ct) {
		if d.Gates && (d.State == CTSiteNew || d.State == CTSiteGrew) {
			out = append(out, d)
		}
	}
	return out
}
