package bench

import (
	"math"
	"slices"

	"github.com/perfgate/perfgate/record"
)

// Geomeans returns the geometric-mean row of each unit, as benchstat prints one under each table:
// the geometric mean of base's centers, of head's centers, and their ratio, over the benchmarks of
// the unit whose centers are positive on both sides (a failed benchmark, or one not timed because
// it runs the same machine code, has none). A unit with fewer than two such benchmarks has no row,
// since its one benchmark already says it. The rows are in the order of record.UnitRank.
//
// Over a set of benchmarks the ratio of the geometric means is the geometric mean of the
// per-benchmark ratios, so no benchmark weighs more for being slower, and a change of x% in every
// benchmark moves the row by x%.
func Geomeans(bs []record.Benchmark) []record.Geomean {
	type acc struct {
		logBase, logHead float64
		n                int
	}
	byUnit := map[string]*acc{}
	var units []string
	for _, b := range bs {
		if !(b.Base.Center > 0 && b.Head.Center > 0) || math.IsInf(b.Base.Center+b.Head.Center, 0) {
			continue
		}
		a := byUnit[b.Unit]
		if a == nil {
			a = &acc{}
			byUnit[b.Unit] = a
			units = append(units, b.Unit)
		}
		a.logBase += math.Log(b.Base.Center)
		a.logHead += math.Log(b.Head.Center)
		a.n++
	}
	slices.SortStableFunc(units, func(x, y string) int {
		if rx, ry := record.UnitRank(x), record.UnitRank(y); rx != ry {
			return rx - ry
		}
		if x < y {
			return -1
		}
		return 1
	})
	var out []record.Geomean
	for _, u := range units {
		a := byUnit[u]
		if a.n < 2 {
			continue
		}
		n := float64(a.n)
		base, head := math.Exp(a.logBase/n), math.Exp(a.logHead/n)
		out = append(out, record.Geomean{Unit: u, Base: base, Head: head, Ratio: math.Exp((a.logHead - a.logBase) / n),
			N: a.n})
	}
	return out
}
