package consttime

import (
	"sort"

	"github.com/perfgate/perfgate/record"
)

// A group is the runs of one operation of one constructor: runs[0] the warm-up, runs[1..secrets]
// one per secret, and runs[secrets+1] the re-run of the first secret.
type group struct {
	ctor, op string
	segs     []segLine
	runs     []*run
}

// regions of an address, for comparing accesses across runs.
const (
	regionStatic = iota // a section of the binary: compared by 64-byte line
	regionObject        // the constructor's value: compared by 64-byte line of the offset into it
	regionOther         // elsewhere (heap, stacks): compared by 64-byte line
)

// loc is where an access went, as runs are compared: a region and a line in it.
type loc struct {
	region int
	line   uint64
}

// analyzer compares the runs of one group.
type analyzer struct {
	b *binary
	g *group
}

func (a *analyzer) locate(r int, addr uint64) loc {
	if a.b.static.Find(addr) != nil {
		return loc{regionStatic, addr >> 6}
	}
	if s := a.g.segs[r]; s.Obj != 0 && addr >= s.Obj && addr < s.Obj+s.ObjSize {
		return loc{regionObject, (addr - s.Obj) >> 6}
	}
	return loc{regionOther, addr >> 6}
}

// divergence returns the first index at which x and y differ, or -1 if they are equal.
func divergence(x, y []uint64) int {
	n := len(x)
	if len(y) < n {
		n = len(y)
	}
	for i := 0; i < n; i++ {
		if x[i] != y[i] {
			return i
		}
	}
	if len(x) != len(y) {
		return n
	}
	return -1
}

type edge struct{ from, to uint64 }

func edges(insns []uint64) map[edge]int {
	m := map[edge]int{}
	for i := range insns {
		var to uint64
		if i+1 < len(insns) {
			to = insns[i+1]
		}
		m[edge{insns[i], to}]++
	}
	return m
}

// branches returns the instructions after which run r's instruction sequence differs from the
// reference run's (run 1): each that has several successors (a conditional branch or an indirect
// jump) taken a different number of times, and the last instruction before the first difference.
// The count is how many times its successors differ, summed over them. It also returns the index of
// the first difference, -1 for none.
func (a *analyzer) branches(r int, ref map[edge]int) (map[uint64]int, int) {
	x, y := a.g.runs[1].insns, a.g.runs[r].insns
	d := divergence(x, y)
	if d < 0 {
		return nil, -1
	}
	out := map[uint64]int{}
	switch {
	case d > 0:
		out[x[d-1]]++
	case len(x) > 0:
		out[x[0]]++
	}
	other := edges(y)
	succ := map[uint64]map[uint64]bool{} // the successors of every instruction, in either run
	for _, m := range []map[edge]int{ref, other} {
		for e := range m {
			if succ[e.from] == nil {
				succ[e.from] = map[uint64]bool{}
			}
			succ[e.from][e.to] = true
		}
	}
	for from, tos := range succ {
		if len(tos) < 2 {
			continue
		}
		for to := range tos {
			if n := abs(other[edge{from, to}] - ref[edge{from, to}]); n > 0 {
				out[from] += n
			}
		}
	}
	return out, d
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// accesses compares run r's memory accesses with the reference run's, position by position, up to
// the first instruction at which their sequences differ (limit, -1 for none), and counts the
// differing positions per instruction.
func (a *analyzer) accesses(r, limit int) map[uint64]int {
	x, y := a.g.runs[1], a.g.runs[r]
	out := map[uint64]int{}
	for k := 0; k < len(x.acc) && k < len(y.acc); k++ {
		ax, ay := x.acc[k], y.acc[k]
		if ax.pos != ay.pos || (limit >= 0 && int(ax.pos) >= limit) {
			break
		}
		if a.locate(1, ax.addr) != a.locate(r, ay.addr) {
			out[x.insns[ax.pos]]++
		}
	}
	return out
}

// side compares the group's runs and returns what they show.
func (a *analyzer) side(secrets int) *record.CTSide {
	g := a.g
	s := &record.CTSide{KeySize: g.segs[0].KeySize, Input: g.segs[0].Input, Runs: secrets + 1,
		Branches: []record.CTSite{}, Loads: []record.CTSite{}}
	for _, sg := range g.segs {
		if sg.Err != "" {
			s.Error = sg.Err
			return s
		}
	}
	ref := g.runs[1]
	s.Instructions, s.Accesses = len(ref.insns), len(ref.acc)
	refEdges := edges(ref.insns)
	rerun := secrets + 1
	unstableB, dRe := a.branches(rerun, refEdges)
	unstableL := a.accesses(rerun, dRe)
	branches, loads := map[uint64]int{}, map[uint64]int{}
	for r := 2; r <= secrets; r++ {
		br, d := a.branches(r, refEdges)
		add(branches, br, unstableB)
		add(loads, a.accesses(r, d), unstableL)
	}
	s.Unstable = len(unstableB) + len(unstableL)
	for _, pc := range sortedKeys(branches) {
		s.Branches = append(s.Branches, a.site(pc, branches[pc]))
	}
	lines, lookup := a.lines(loads, secrets)
	for _, pc := range sortedKeys(loads) {
		site := a.site(pc, loads[pc])
		site.Lines, site.LinesPerLookup = len(lines[pc]), lookup[pc]
		a.describeAccess(&site, pc)
		s.Loads = append(s.Loads, site)
	}
	return s
}

// add adds the counts of from to into, except for the instructions in skip.
func add(into, from, skip map[uint64]int) {
	for pc, n := range from {
		if _, ok := skip[pc]; !ok {
			into[pc] += n
		}
	}
}

func sortedKeys(m map[uint64]int) []uint64 {
	out := make([]uint64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// lines returns, for each instruction in sites, the distinct lines it touched over the runs of the
// secrets and the re-run, and the most distinct lines one of its dynamic accesses (the k-th access
// of the runs) touched.
func (a *analyzer) lines(sites map[uint64]int, secrets int) (map[uint64]map[loc]bool, map[uint64]int) {
	all := map[uint64]map[loc]bool{}
	for pc := range sites {
		all[pc] = map[loc]bool{}
	}
	per := map[int]map[loc]bool{} // by access index
	for r := 1; r <= secrets+1; r++ {
		ru := a.g.runs[r]
		for k, ac := range ru.acc {
			m, ok := all[ru.insns[ac.pos]]
			if !ok {
				continue
			}
			l := a.locate(r, ac.addr)
			m[l] = true
			if per[k] == nil {
				per[k] = map[loc]bool{}
			}
			per[k][l] = true
		}
	}
	lookup := map[uint64]int{}
	ref := a.g.runs[1]
	for k, m := range per {
		if k < len(ref.acc) {
			if pc := ref.insns[ref.acc[k].pos]; len(m) > lookup[pc] {
				lookup[pc] = len(m)
			}
		}
	}
	return all, lookup
}

func (a *analyzer) site(pc uint64, n int) record.CTSite {
	fn, off, inl, file, line := a.b.site(pc)
	return record.CTSite{Function: fn, Offset: off, Inlined: inl, File: file, Line: line, Positions: n}
}

// describeAccess fills in the kind of access of the instruction at pc and the table it reads, from
// the reference run.
func (a *analyzer) describeAccess(site *record.CTSite, pc uint64) {
	ref := a.g.runs[1]
	for _, ac := range ref.acc {
		if ref.insns[ac.pos] != pc {
			continue
		}
		site.Kind = map[byte]string{'L': "load", 'S': "store", 'M': "modify"}[ac.kind]
		switch a.locate(1, ac.addr).region {
		case regionStatic:
			site.Table, site.TableSize = a.b.table(ac.addr)
		case regionObject:
			site.Table, site.TableSize = "object", int(a.g.segs[1].ObjSize)
		default:
			site.Table = "heap"
		}
		return
	}
}
