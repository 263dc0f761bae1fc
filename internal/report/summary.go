package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// This file holds what the Markdown and text renderers share: the parts of the verdict line, the
// counting of benchmark classes, and the grouping of benchmarks by unit.

// ClassRank orders classes by how notable they are, for counting a benchmark measured in several
// units once.
var ClassRank = map[record.Class]int{
	record.ClassFailed:       5,
	record.ClassSlower:       4,
	record.ClassFaster:       3,
	record.ClassInconclusive: 2,
	record.ClassUnchanged:    1,
}

// tally counts benchmarks by their class in the gated unit (sec/op), the one the verdict reads; the
// other units are in the tables. Should a name appear twice in sec/op, the more notable class
// counts: failed, then slower, faster, inconclusive, unchanged.
type tally struct {
	classes map[record.Class]int // benchmark names per class
	acked   int                  // slower benchmarks marked acknowledged
	same    int                  // unchanged ones that were not timed: same machine code
	// inconclusive ones whose one-sided bound rules out a slowdown beyond the threshold
	// (Benchmark.RuledOut)
	ruledOut int
}

// inconclusive is "2 inconclusive", or "2 inconclusive (1 not blocking)" when the gate found a
// slowdown beyond the threshold ruled out for some.
func inconclusive(t tally) string {
	s := plural0(t.classes[record.ClassInconclusive], "inconclusive")
	if t.ruledOut > 0 {
		s += fmt.Sprintf(" (%d not blocking)", t.ruledOut)
	}
	return s
}

// unchanged is "3 unchanged", or "3 unchanged (2 same machine code)" when some were answered
// without timing.
func unchanged(t tally) string {
	s := plural0(t.classes[record.ClassUnchanged], "unchanged")
	if t.same > 0 {
		s += fmt.Sprintf(" (%d same machine code)", t.same)
	}
	return s
}

func countClasses(bs []record.Benchmark, metric string) tally {
	best := map[string]record.Class{}
	var order []string
	acked, same, ruledOut := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, b := range bs {
		if !gate.IsLaneUnit(metric, b.Unit) {
			// the gate reads sec/op (or instructions/op); B/s, B/op and allocs/op are reported, not
			// counted
			continue
		}
		name := record.Qualified(b.Package, b.Name)
		cur, seen := best[name]
		if !seen {
			order = append(order, name)
		}
		if !seen || ClassRank[b.Class] > ClassRank[cur] {
			best[name] = b.Class
		}
		if b.Acknowledged && b.Class == record.ClassSlower {
			acked[name] = true
		}
		if sameUntimed(b) {
			same[b.Name] = true
		}
		if b.RuledOut {
			ruledOut[name] = true
		}
	}
	t := tally{classes: map[record.Class]int{}}
	for _, name := range order {
		t.classes[best[name]]++
		if acked[name] && best[name] == record.ClassSlower {
			t.acked++
		}
		if same[name] && best[name] == record.ClassUnchanged {
			t.same++
		}
		if ruledOut[name] && best[name] == record.ClassInconclusive {
			t.ruledOut++
		}
	}
	return t
}

// VerdictParts returns the pieces of the one-line verdict after the status: the class counts, the
// differential and the size delta. esc makes untrusted text safe for the output format; strong
// marks text that needs attention.
func VerdictParts(r *record.Result, esc, strong func(string) string) []string {
	if r.Verdict.Status == record.StatusError && len(r.Benchmarks) == 0 {
		// Nothing was compared: the first reason is the news.
		if len(r.Verdict.Reasons) > 0 {
			return []string{esc(Clip(r.Verdict.Reasons[0], 200))}
		}
		return []string{"could not run"}
	}
	bench, benchKnown := checkOf(r, record.CheckBenchmarks)
	if benchKnown && !bench.Ran {
		parts := []string{"benchmarks: none (" + esc(bench.Detail) + ")"}
		parts = append(parts, "differential: "+DiffSummary(r, esc, strong))
		return append(parts, "size: "+SizeSummary(r.Sizes, esc))
	}
	t := countClasses(r.Benchmarks, r.Method.Metric)
	slower := plural0(t.classes[record.ClassSlower], "slower")
	if t.classes[record.ClassSlower] > 0 {
		slower = strong(slower)
	}
	if ack := r.Verdict.Acknowledged; len(ack) > 0 {
		n := t.acked
		if n == 0 {
			n = len(ack)
		}
		if n < t.classes[record.ClassSlower] {
			slower += ", " + text.Commas(int64(n)) + " acknowledged"
		} else {
			slower += ", acknowledged"
		}
		if reason := CommonReason(ack); reason != "" {
			slower += " " + esc(strings.TrimPrefix(reason, "acknowledged "))
		}
	}
	counts := []string{
		slower,
		plural0(t.classes[record.ClassFaster], "faster"),
		unchanged(t),
		inconclusive(t),
	}
	if n := t.classes[record.ClassFailed]; n > 0 {
		counts = append(counts, strong(plural0(n, "failed")))
	}
	parts := []string{strings.Join(counts, ", ")}
	parts = append(parts, "differential: "+DiffSummary(r, esc, strong))
	parts = append(parts, "size: "+SizeSummary(r.Sizes, esc))
	if sb := r.Sandbox; sb != nil && !sb.Guarded {
		parts = append(parts, strong("unguarded")+" (sandbox "+esc(Clip(sb.String(), 120))+")")
	}
	return parts
}

func plural0(n int, word string) string { return text.Commas(int64(n)) + " " + word }

// CommonReason returns the reason shared by every acknowledgement of the form "NAME: REASON", or
// "".
func CommonReason(ack []string) string {
	reason := ""
	for i, a := range ack {
		_, r, ok := strings.Cut(a, ": ")
		if !ok || (i > 0 && r != reason) {
			return ""
		}
		reason = r
	}
	return reason
}

// StatusWord is the verdict status in capitals.
func StatusWord(r *record.Result) string {
	var s string
	switch r.Verdict.Status {
	case record.StatusPass, record.StatusFail, record.StatusError, record.StatusInconclusive:
		s = strings.ToUpper(string(r.Verdict.Status))
	default:
		s = "UNKNOWN" // never echo a status the pipeline did not write: it could be anything
	}
	if r.Incomplete {
		s += " (incomplete)"
	}
	return s
}

// checkOf returns the verdict's record of the check named name, and whether the verdict has one
// (results written before Verdict.Checks existed have none).
func checkOf(r *record.Result, name string) (record.Check, bool) {
	for _, c := range r.Verdict.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return record.Check{}, false
}

// DiffSummary is "identical (5 ciphers)", "mismatch (1 of 5 ciphers)", "skipped (no cipher
// constructor)", ….
func DiffSummary(r *record.Result, esc, strong func(string) string) string {
	d := r.Differential
	status := string(d.Status)
	if status == "" {
		status = "not run"
	}
	bad := 0
	for _, c := range d.Ciphers {
		if c.Mismatches > 0 {
			bad++
		}
	}
	switch d.Status {
	case record.DiffIdentical:
		return status + " (" + CountFamilies(d.Ciphers) + ")"
	case record.DiffMismatch:
		s := status
		if bad > 0 {
			s += " (" + text.Commas(int64(bad)) + " of " + ofFamilies(d.Ciphers) + ")"
		}
		return strong(s)
	case record.DiffError:
		return strong("error (perfgate could not run it)")
	}
	if c, ok := checkOf(r, record.CheckDifferential); ok && !c.Ran && c.Detail != "" {
		return esc(status) + " (" + esc(Clip(c.Detail, 100)) + ")"
	}
	return esc(status)
}

// SizeSummary is the total size delta and the section that changed most: "+1.5 KiB (.noptrdata
// +2,048 B)".
func SizeSummary(s record.Sizes, esc func(string) string) string {
	if s.Error != "" {
		return "error"
	}
	if len(s.Sections) == 0 {
		return "not measured"
	}
	if NoCode(s) {
		// Nothing of the package's code was measured: not "unchanged".
		const inlined = "no code of its own on either side (its functions are inlined into their callers)"
		if sum := dataSummary(s, esc); sum != "" {
			return sum + "; " + inlined
		}
		return inlined
	}
	if sum := dataSummary(s, esc); sum != "" {
		return sum
	}
	return "unchanged"
}

// NoCode reports whether the package has no bytes of code (.text) on either side: its functions are
// all inlined into their callers, so the binaries hold none of them.
func NoCode(s record.Sizes) bool {
	for _, sec := range s.Sections {
		if sec.Name == ".text" && (sec.Base != 0 || sec.Head != 0) {
			return false
		}
	}
	return true
}

// dataSummary is the size change over the sections, as "+1.2 KiB (.noptrdata +1,504 B)": the total
// and the section that changed most; "" when none changed.
func dataSummary(s record.Sizes, esc func(string) string) string {
	var total int64
	var most record.SectionSize
	for _, sec := range s.Sections {
		d := sec.Head - sec.Base
		total += d
		if Abs64(d) > Abs64(most.Head-most.Base) {
			most = sec
		}
	}
	if most.Head == most.Base {
		return ""
	}
	return bytesDeltaShort(total) + " (" + esc(most.Name) + " " + BytesDelta(most.Head-most.Base) + ")"
}

func Abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// byUnit groups benchmarks by unit, units in order of first appearance, benchmarks in their order
// in the Result.
func byUnit(bs []record.Benchmark) (units []string, groups map[string][]record.Benchmark) {
	groups = map[string][]record.Benchmark{}
	for _, b := range bs {
		if _, ok := groups[b.Unit]; !ok {
			units = append(units, b.Unit)
		}
		groups[b.Unit] = append(groups[b.Unit], b)
	}
	return units, groups
}

// ShownUnits is byUnit for the main tables: every benchmark of the gated unit (sec/op), and of the
// other units only those whose class is not unchanged. quiet lists the other units in which every
// benchmark was unchanged, so that a table of identical zeros becomes one line.
func ShownUnits(bs []record.Benchmark, metric string) (units []string, groups map[string][]record.Benchmark,
	quiet []string) {
	all, allGroups := byUnit(bs)
	groups = map[string][]record.Benchmark{}
	for _, u := range all {
		for _, b := range allGroups[u] {
			if u == record.UnitTime || gate.IsLaneUnit(metric, u) || b.Class != record.ClassUnchanged {
				groups[u] = append(groups[u], b)
			}
		}
		if len(groups[u]) > 0 {
			units = append(units, u)
		} else {
			quiet = append(quiet, u)
		}
	}
	return units, groups, quiet
}

// Revision describes one side: `main @ 1a2b3c4d5e6f (dirty) “subject”`, with esc applied to
// untrusted parts.
func Revision(v record.Revision, esc func(string) string) string {
	ref := v.Ref
	if ref == "" {
		ref = "working tree"
	}
	s := esc(Clip(ref, 80))
	if v.Commit != "" {
		s += " @ " + esc(ShortHash(v.Commit))
	}
	if v.Dirty {
		s += " (dirty)"
	}
	if v.Subject != "" {
		s += " “" + esc(Clip(v.Subject, 100)) + "”"
	}
	if t := BuildText(v.Build); t != "" {
		s += ", built with " + esc(Clip(t, 200))
	}
	return s
}

// TestStatus is "passed", "failed" or "not run".
func TestStatus(t record.TestRun) string {
	switch {
	case !t.Ran:
		return "not run"
	case t.Passed:
		return "passed"
	}
	return "failed"
}

// ofFamilies is what a count of mismatched constructors is out of: "5 block ciphers" for one
// family, "7: 5 block ciphers, 1 AEAD, 1 hash" for several.
func ofFamilies(cs []record.Cipher) string {
	families := CountFamilies(cs)
	if !strings.Contains(families, ",") {
		return families
	}
	return strconv.Itoa(len(cs)) + ": " + families
}
