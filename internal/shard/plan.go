package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
)

// A Unit is one indivisible part of the work: a package's checks (top "") or one top-level
// benchmark.
type Unit struct {
	pkg, top string
	cost     float64
	shard    int // 1-based
}

func (u Unit) String() string {
	if u.top == "" {
		return u.pkg
	}
	return u.pkg + " Benchmark" + u.top
}

// Plan is the split of a comparison's work over count shards. Every shard computes it from the same
// base tree, so they agree on it without talking to each other.
type Plan struct {
	units []Unit
	count int
}

// NewPlan splits the packages' units over count shards: costliest first, each to the shard with the
// least work so far (lowest index on ties). A top-level benchmark costs its number of leaf
// benchmarks in costs (an earlier run's: every leaf takes one calibration and 4×rounds runs of
// benchtime, however fast the code is), else 1; a package's checks (one build, one test run, one
// differential check) cost 1.
func NewPlan(pkgs []bench.Package, count int, costs map[string]float64) *Plan {
	pl := &Plan{count: count}
	for _, pk := range pkgs {
		pl.units = append(pl.units, Unit{pkg: pk.Rel, cost: 1})
		for _, top := range pk.Benchmarks {
			u := Unit{pkg: pk.Rel, top: top, cost: 1}
			if c, ok := costs[u.String()]; ok {
				u.cost = c
			}
			pl.units = append(pl.units, u)
		}
	}
	order := make([]int, len(pl.units))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch ca, cb := pl.units[a].cost, pl.units[b].cost; {
		case ca > cb:
			return -1
		case ca < cb:
			return 1
		}
		return 0
	})
	load := make([]float64, count)
	for _, i := range order {
		best := 0
		for s := range load {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += pl.units[i].cost
		pl.units[i].shard = best + 1
	}
	return pl
}

// Work returns what shard does of package pkg: its checks, and which top-level benchmarks
// (non-nil).
func (pl *Plan) Work(shard int, pkg string) (checks bool, tops []string) {
	tops = []string{}
	for _, u := range pl.units {
		if u.pkg != pkg || u.shard != shard {
			continue
		}
		if u.top == "" {
			checks = true
		} else {
			tops = append(tops, u.top)
		}
	}
	return checks, tops
}

// UnitsOf names the units of shard, in plan order.
func (pl *Plan) UnitsOf(shard int) []string {
	out := []string{}
	for _, u := range pl.units {
		if u.shard == shard {
			out = append(out, u.String())
		}
	}
	return out
}

// Fingerprint is a digest of the whole plan: every unit and its
func (pl *Plan) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", pl.count)
	for _, u := range pl.units {
		fmt.Fprintf(h, "%d\t%s\n", u.shard, u)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// ReadCosts reads the cost of every top-level benchmark from an earlier run's results (a directory
// or its result.json), by Unit name: its leaf benchmarks in the gated unit, each weighted by (1 +
// head/base) / 2, since head runs base's iteration count. "" reads nothing.
func ReadCosts(path string) (map[string]float64, error) {
	if path == "" {
		return nil, nil
	}
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	r, err := results.Dir(dir).ReadResult(MaxResultFile)
	if err != nil {
		return nil, &config.Error{Key: "shard-costs", Value: path, Want: "a results directory or its result.json (" +
			err.Error() + ")"}
	}
	costs := map[string]float64{}
	for _, b := range r.Benchmarks {
		if b.Unit != record.UnitTime {
			continue
		}
		pkg := b.Package
		if pkg == "" {
			pkg = r.Package
		}
		top, _, _ := strings.Cut(b.Name, "/")
		// A leaf runs base's calibrated iteration count on both sides: half its runs last
		// benchtime, the other half benchtime × head/base.
		ratio := 1.0
		if b.Base.Center > 0 && b.Head.Center > 0 {
			ratio = b.Head.Center / b.Base.Center
		}
		costs[Unit{pkg: pkg, top: top}.String()] += (1 + ratio) / 2
	}
	return costs, nil
}
