package shard

import (
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/record"
)

// Combine puts the Results of parts that ran apart — one package each (a comparison of several
// packages), or one shard each (perfgate merge) — into one Result without a verdict. Rows without a
// package get their part's Package; the Holm correction runs again over all benchmarks
// (bench.Rejudge with opt), so the classes are those of one comparison of everything. Staged runs
// (Method.Budget) spent alpha within each package; their correction is widened over the packages
// instead (bench.RejudgeFamilies). A part whose differential status is "" did not run the checks
// (another shard did): its differential, sizes and tests count for nothing.
//
// Base, Head, Env and Method come from the first part; the caller sets Package, Packages and what
// else it knows.
func Combine(parts []record.Result, opt bench.StatsOptions) record.Result {
	r := record.Result{Schema: record.Schema, Benchmarks: []record.Benchmark{}}
	if len(parts) > 0 {
		r.Base, r.Head, r.Env, r.Method, r.Policy = parts[0].Base, parts[0].Head, parts[0].Env, parts[0].Method,
			parts[0].Policy
	}
	r.Method.TimedPhase, r.Method.BinariesSame = 0, len(parts) > 0
	var diffs []record.Differential
	var sizes []record.Sizes
	var tested []record.Result
	var cts []*record.ConstantTime
	for _, part := range parts {
		l := labelsOf(part)
		addRows(&r, part, l)
		if part.Differential.Status == "" {
			continue
		}
		d, s, f := l.checks(part)
		diffs, sizes = append(diffs, d), append(sizes, s)
		if part.ConstantTime != nil {
			cts = append(cts, part.ConstantTime)
		}
		part.Functional = f
		tested = append(tested, part)
	}
	r.Differential = combineDifferential(diffs)
	r.ConstantTime = combineConstantTime(cts)
	r.Sizes = combineSizes(sizes)
	r.Functional = combineFunctional(tested)
	r.Sandbox = weakestSandbox(parts)
	if err := rejudge(r.Benchmarks, r.Method.Budget > 0, opt); err != nil {
		r.Notes = append(r.Notes, "statistics: "+err.Error())
	}
	sort.SliceStable(r.Benchmarks, func(i, j int) bool {
		a, b := r.Benchmarks[i], r.Benchmarks[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return record.UnitRank(a.Unit) < record.UnitRank(b.Unit)
	})
	var noise, mde []float64
	for _, b := range r.Benchmarks {
		if b.Unit == record.UnitTime && b.Class != record.ClassFailed {
			noise, mde = append(noise, b.NoisePct), append(mde, b.MDEPct)
		}
	}
	r.Method.NoiseFloor, r.Method.MedianMDE = bench.Median(noise), bench.Median(mde)
	r.Geomeans = bench.Geomeans(r.Benchmarks)
	return r
}

// labels names a part's rows and messages in the combined result.
type labels struct {
	pkg   string
	named bool // the part gated several packages (or none is known): its messages name theirs
}

func labelsOf(part record.Result) labels {
	return labels{pkg: part.Package, named: len(part.Packages) > 0 || part.Package == ""}
}

// own is a row's package: a part that gated one package names it in Package and its rows have none;
// a shard's rows have theirs.
func (l labels) own(s string) string {
	if s == "" {
		return l.pkg
	}
	return s
}

// label prefixes a message with the part's package when the message cannot name it itself.
func (l labels) label(s string) string {
	if l.named {
		return s
	}
	return l.pkg + ": " + s
}

// addRows adds part's benchmarks, failures, explanations (Why), notes and timings to r.
func addRows(r *record.Result, part record.Result, l labels) {
	for _, b := range part.Benchmarks {
		b.Package = l.own(b.Package)
		r.Benchmarks = append(r.Benchmarks, b)
	}
	for _, f := range part.Failures {
		f.Package = l.own(f.Package)
		r.Failures = append(r.Failures, f)
	}
	for _, w := range part.Why {
		w.Package = l.own(w.Package)
		r.Why = append(r.Why, w)
	}
	for _, n := range part.Notes {
		// every shard notes what it found on the common trees
		if n = l.label(n); !slices.Contains(r.Notes, n) {
			r.Notes = append(r.Notes, n)
		}
	}
	r.Incomplete = r.Incomplete || part.Incomplete
	r.HeadBuildFailed = r.HeadBuildFailed || part.HeadBuildFailed
	r.Method.TimedPhase += part.Method.TimedPhase
	if b := part.Method.BenchTime; b > 0 && (r.Method.BenchTime == 0 || b < r.Method.BenchTime) {
		r.Method.BenchTime = b
	}
	r.Method.BenchIters = max(r.Method.BenchIters, part.Method.BenchIters)
	if len(part.Benchmarks) > 0 {
		r.Method.BinariesSame = r.Method.BinariesSame && part.Method.BinariesSame
	}
	if r.Started.IsZero() || !part.Started.IsZero() && part.Started.Before(r.Started) {
		r.Started = part.Started
	}
	r.Duration = max(r.Duration, part.Duration)
}

// checks returns copies of part's differential, sizes and tests with their rows and messages
// labelled; part's own slices are not changed.
func (l labels) checks(part record.Result) (record.Differential, record.Sizes, record.Functional) {
	d := part.Differential
	d.Ciphers = slices.Clone(d.Ciphers)
	for i := range d.Ciphers {
		d.Ciphers[i].Package = l.own(d.Ciphers[i].Package)
	}
	if d.Reason != "" {
		d.Reason = l.label(d.Reason)
	}
	d.Added, d.Removed = labelAll(d.Added, l.label), labelAll(d.Removed, l.label)
	s := part.Sizes
	s.Sections, s.Tests = slices.Clone(s.Sections), slices.Clone(s.Tests)
	for i := range s.Sections {
		s.Sections[i].Package = l.own(s.Sections[i].Package)
	}
	for i := range s.Tests {
		s.Tests[i].Package = l.own(s.Tests[i].Package)
	}
	s.Notes = labelAll(s.Notes, l.label)
	if s.Error != "" {
		s.Error = l.label(s.Error)
	}
	f := part.Functional
	for _, t := range []*record.TestRun{&f.Base, &f.Head} {
		if t.Output != "" {
			t.Output = l.label(t.Output)
		}
	}
	return d, s, f
}

// rejudge runs the Holm correction again over all benchmarks. Staged runs (staged) spent alpha
// within each package: their correction is widened over the packages instead.
func rejudge(bs []record.Benchmark, staged bool, opt bench.StatsOptions) error {
	if !staged {
		return bench.Rejudge(bs, opt)
	}
	families := map[string]bool{}
	for _, b := range bs {
		if b.Tested {
			families[b.Package] = true
		}
	}
	return bench.RejudgeFamilies(bs, len(families), opt)
}

func labelAll(ss []string, label func(string) string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, label(s))
	}
	return out
}

// diffRank orders differential statuses by how much they say: the combined status is the part's
// with the highest.
var diffRank = map[record.DiffStatus]int{record.DiffSkipped: 1, record.DiffIdentical: 2, record.DiffNotComparable: 3,
	record.DiffError: 4, record.DiffMismatch: 5}

// combineDifferential is the differential check of several packages: every cipher, and the status
// that says the most (a mismatch anywhere is a mismatch, then perfgate's own error), with the
// reasons of the parts that have it. None: status "".
func combineDifferential(ds []record.Differential) record.Differential {
	out := record.Differential{Ciphers: []record.Cipher{}}
	var reasons []string
	for _, d := range ds {
		out.Seed = d.Seed
		out.Ciphers = append(out.Ciphers, d.Ciphers...)
		out.Added = append(out.Added, d.Added...)
		out.Removed = append(out.Removed, d.Removed...)
		out.HeadFailed = out.HeadFailed || d.HeadFailed
		out.BuildTime += d.BuildTime
		out.CheckTime += d.CheckTime
		if diffRank[d.Status] > diffRank[out.Status] {
			out.Status, reasons = d.Status, nil
		}
		if d.Status == out.Status && d.Reason != "" && !slices.Contains(reasons, d.Reason) {
			reasons = append(reasons, d.Reason)
		}
	}
	out.Reason = strings.Join(reasons, "; ")
	return out
}

// combineSizes lists the sizes of several packages: every section row with its package, every
// symbol.
func combineSizes(ss []record.Sizes) record.Sizes {
	out := record.Sizes{Sections: []record.SectionSize{}, Symbols: []record.SymbolSize{}}
	var errs []string
	for _, s := range ss {
		out.Sections = append(out.Sections, s.Sections...)
		out.Packages = append(out.Packages, s.Packages...)
		out.Tests = append(out.Tests, s.Tests...)
		out.Symbols = append(out.Symbols, s.Symbols...)
		out.Notes = append(out.Notes, s.Notes...)
		if s.Error != "" {
			errs = append(errs, s.Error)
		}
	}
	out.Error = strings.Join(errs, "; ")
	return out
}

// weakestSandbox is the guarantee every part had: the first unguarded part's, else the first
// part's; nil when a part recorded none, so that a merge never claims more confinement than its
// weakest shard had.
func weakestSandbox(parts []record.Result) *record.Sandbox {
	var weakest *record.Sandbox
	for _, p := range parts {
		switch {
		case p.Sandbox == nil:
			return nil
		case weakest == nil || weakest.Guarded && !p.Sandbox.Guarded:
			weakest = p.Sandbox
		}
	}
	return weakest
}

// combineFunctional is the tests of several packages: a side ran if any package's tests ran on it,
// and passed if every run passed; the outputs of the failures follow each other.
func combineFunctional(parts []record.Result) record.Functional {
	var f record.Functional
	for _, side := range []struct {
		out *record.TestRun
		get func(record.Functional) record.TestRun
	}{{&f.Base, func(x record.Functional) record.TestRun { return x.Base }}, {&f.Head,
		func(x record.Functional) record.TestRun { return x.Head }}} {
		var outs []string
		side.out.Passed = true
		for _, p := range parts {
			t := side.get(p.Functional)
			if !t.Ran {
				continue
			}
			side.out.Ran = true
			side.out.Passed = side.out.Passed && t.Passed
			if t.Output != "" {
				outs = append(outs, t.Output)
			}
		}
		side.out.Passed = side.out.Passed && side.out.Ran
		side.out.Output = strings.Join(outs, "\n")
	}
	return f
}
