// Package history turns the results perfgate recorded for a branch's commits into one series per
// benchmark and unit, finds the change points of each (package changepoint) and names, for each
// change, the commits that perfgate bisect should search.
//
// Data flows one way:
//
//	recorded results (Entry: commit → Result) ─┐
//	the branch's first-parent path (Commit)  ──┴─ Build ─ *History
//	    (Series in path order, orphaned entries apart)
//	    └─ Detect ─ Series.Changes ─ Text / Markdown / HTML / Bencher
//
// A point of a series is the head side of the run recorded for that commit: the median (benchstat's
// center) of its samples, with its confidence interval. Sizes are series too (unit B, one per
// section). Entries of commits that are not on the path (main was rewritten by a force-push, or the
// commit was on another branch) are kept as Orphans and do not enter the series.
package history

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/changepoint"
	"github.com/perfgate/perfgate/record"
)

// Commit is a commit of the branch's first-parent path.
type Commit struct {
	SHA     string
	Subject string // untrusted text from the repository
}

// Short returns the first 12 hexadecimal digits of sha.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Entry is one recorded commit: the result of the run whose head side it was.
type Entry struct {
	Commit  string
	Subject string
	Result  *record.Result
}

// Point is one commit's value in a series.
type Point struct {
	Commit string
	Value  float64 // the median of the commit's samples, in the series' unit
	Lo, Hi float64 // the confidence interval of Value; 0, 0 when unknown
	N      int     // samples behind Value
}

// Series is one benchmark (or size section) in one unit along the path.
type Series struct {
	Package string // the package as perfgate was given it ("./cipher/des"); "." for the module root
	Name    string // "Encrypt/des/single", or "Size/section=.text" for a size
	Unit    string // "sec/op", "instructions/op", "B", …
	Points  []Point
	Changes []Change
}

// Change is a change point of a series, with the commits to bisect.
type Change struct {
	changepoint.ChangePoint        // Index indexes Series.Points
	Commit                  string // the first recorded commit at the new level
	// Good and Bad bound the commits perfgate bisect should search: the recorded commit two before
	// Commit and the one after it (as far as the series goes). The located index is off by one
	// commit in a few percent of simulated series (see package changepoint), and bisect costs one
	// step more for the wider range.
	Good, Bad string
	// New says the change point appeared with the newest point of the series: Detect without that
	// point finds none at its index or next to it.
	New bool
}

// History is what Build made of the recorded entries.
type History struct {
	Path    []Entry // the recorded commits on the branch's first-parent path, oldest first
	Orphans []Entry // recorded commits not on the path, by commit name
	Series  []*Series
	// Unrecorded counts the commits of the path after the first recorded one that have no record.
	Unrecorded int
}

// Build orders the entries along path (the branch's first-parent path, oldest first) and makes the
// series. An entry whose commit is not on the path is an orphan.
func Build(entries []Entry, path []Commit) *History {
	byCommit := map[string]Entry{}
	for _, e := range entries {
		byCommit[e.Commit] = e
	}
	h := &History{}
	onPath := map[string]bool{}
	for _, c := range path {
		e, ok := byCommit[c.SHA]
		if !ok {
			if len(h.Path) > 0 {
				h.Unrecorded++
			}
			continue
		}
		if c.Subject != "" {
			e.Subject = c.Subject
		}
		h.Path = append(h.Path, e)
		onPath[c.SHA] = true
	}
	for _, e := range entries {
		if !onPath[e.Commit] {
			h.Orphans = append(h.Orphans, e)
		}
	}
	slices.SortFunc(h.Orphans, func(a, b Entry) int { return cmp.Compare(a.Commit, b.Commit) })
	h.Series = series(h.Path)
	return h
}

type seriesKey struct{ pkg, name, unit string }

// series makes one series per package, benchmark and unit of path, in the order of their first
// appearance sorted by package, name and unit rank.
func series(path []Entry) []*Series {
	m := map[seriesKey]*Series{}
	add := func(k seriesKey, p Point) {
		s := m[k]
		if s == nil {
			s = &Series{Package: k.pkg, Name: k.name, Unit: k.unit}
			m[k] = s
		}
		s.Points = append(s.Points, p)
	}
	for _, e := range path {
		r := e.Result
		if r == nil {
			continue
		}
		for _, b := range r.Benchmarks {
			if b.Head.N == 0 || b.Head.Center <= 0 || b.Class == record.ClassFailed {
				continue // not timed on this commit (same machine code as its base), or failed
			}
			pkg := cmp.Or(b.Package, r.Package, ".")
			add(seriesKey{pkg, b.Name, b.Unit}, Point{Commit: e.Commit, Value: b.Head.Center, Lo: b.Head.Lo,
				Hi: b.Head.Hi, N: b.Head.N})
		}
		for _, sec := range r.Sizes.Sections {
			if sec.Head <= 0 {
				continue
			}
			add(seriesKey{cmp.Or(r.Package, "."), "Size/section=" + sec.Name, "B"},
				Point{Commit: e.Commit, Value: float64(sec.Head), N: 1})
		}
	}
	out := make([]*Series, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Series) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Name, b.Name),
			cmp.Compare(record.UnitRank(a.Unit), record.UnitRank(b.Unit)), cmp.Compare(a.Unit, b.Unit))
	})
	return out
}

// Detect finds the change points of every series with cfg.
func (h *History) Detect(cfg changepoint.Config) {
	for _, s := range h.Series {
		s.Changes = nil
		xs := make([]float64, len(s.Points))
		for i, p := range s.Points {
			xs[i] = p.Value
		}
		cps := changepoint.Detect(xs, cfg)
		var before []changepoint.ChangePoint
		if len(xs) > 1 {
			before = changepoint.Detect(xs[:len(xs)-1], cfg)
		}
		for _, cp := range cps {
			c := Change{ChangePoint: cp, Commit: s.Points[cp.Index].Commit,
				Good: s.Points[max(cp.Index-2, 0)].Commit, Bad: s.Points[min(cp.Index+1, len(xs)-1)].Commit,
				New: !slices.ContainsFunc(before, func(b changepoint.ChangePoint) bool {
					// a known change whose location moved by one is not new
					return b.Index >= cp.Index-1 && b.Index <= cp.Index+1
				})}
			s.Changes = append(s.Changes, c)
		}
	}
}

// Changes returns every change point of h with its series, in series order.
func (h *History) Changes(onlyNew bool) []SeriesChange {
	var out []SeriesChange
	for _, s := range h.Series {
		for _, c := range s.Changes {
			if !onlyNew || c.New {
				out = append(out, SeriesChange{s, c})
			}
		}
	}
	return out
}

// SeriesChange is a change point with its series.
type SeriesChange struct {
	Series *Series
	Change
}

// BenchPattern is the -bench pattern that selects exactly the benchmark name: each '/'-separated
// level anchored and quoted, as go test's -bench reads it.
func BenchPattern(name string) string {
	name = strings.TrimPrefix(name, "Benchmark")
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// BisectArgs is the perfgate bisect command line (without "perfgate") that searches the change's
// range for the series' benchmark; nil for a size series, which bisect does not measure.
func (sc SeriesChange) BisectArgs() []string {
	if strings.HasPrefix(sc.Series.Name, "Size/") {
		return nil
	}
	return []string{"bisect", "-pkg", sc.Series.Package, "-bench", BenchPattern(sc.Series.Name), sc.Good, sc.Bad}
}

// ShellQuote quotes args for a POSIX shell: plain words stay as they are, anything else goes in
// single quotes.
func ShellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// Label is the series' name as tables show it: the benchmark, with its package unless that is the
// root, and the unit.
func (s *Series) Label() string {
	if s.Package == "." || s.Package == "" {
		return fmt.Sprintf("%s (%s)", s.Name, s.Unit)
	}
	return fmt.Sprintf("%s %s (%s)", s.Package, s.Name, s.Unit)
}
