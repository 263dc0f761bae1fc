package report

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// This file turns the numbers of a Result into short human strings. It only formats: every value it
// prints was computed by the pipeline; the most it does is re-express an interval as ±percent or
// sum section sizes.

const minus = "−" // U+2212, as in "−37.9%"

// Value formats v in the benchmark unit: sec/op as ns/µs/ms/s, B/s as MB/s, B/op as bytes,
// allocs/op as a count.
func Value(unit string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	switch unit {
	case "sec/op":
		return duration(v)
	case "B/s":
		return Sig4(v/1e6) + " MB/s"
	case "B/op":
		return count(v) + " B"
	case "allocs/op":
		return count(v)
	case record.UnitInstructions, record.UnitEstCycles:
		return instructions(v)
	case record.UnitInstructionsPerByte, record.UnitEstCyclesPerByte:
		return Sig4(v)
	case "peak-RSS-B": // a benchmark process's own peak resident set size (package bench)
		return strconv.FormatFloat(v/(1<<20), 'f', 1, 64) + " MiB"
	}
	return Sig4(v) + " " + unit
}

// duration formats seconds as ns, µs, ms or s with four significant digits.
func duration(sec float64) string {
	ns := sec * 1e9
	switch a := math.Abs(ns); {
	case a < 1e3:
		return Sig4(ns) + " ns"
	case a < 1e6:
		return Sig4(ns/1e3) + " µs"
	case a < 1e9:
		return Sig4(ns/1e6) + " ms"
	}
	return Sig4(sec) + " s"
}

// Sig4 formats v with four significant digits and no exponent; values of 10,000 and more are whole
// numbers with thousands separators.
func Sig4(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return minus + "∞"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e4 {
		return signed(text.Commas(int64(math.Round(a))), v < 0, false)
	}
	digits := max(0, 3-int(math.Floor(math.Log10(a))))
	return signed(strconv.FormatFloat(a, 'f', digits, 64), v < 0, false)
}

// count formats a count: a whole number with separators, or four significant digits when it has a
// fraction (a median of an even number of samples can fall between two counts).
func count(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return signed(text.Commas(int64(math.Abs(v))), v < 0, false)
	}
	return Sig4(v)
}

// NoteOf is the note a table shows for b: its own note, the warnings it does not already repeat
// (why an interval is missing), whether an inconclusive row blocks the merge, and the disagreement
// of the two lanes when there is one.
func NoteOf(b record.Benchmark) string {
	parts := OwnNotes(b)
	if b.MetricNote != "" {
		parts = append(parts, b.MetricNote)
	}
	return strings.Join(parts, "; ")
}

// intervalNote matches the note package bench writes for an inconclusive benchmark.
var intervalNote = regexp.MustCompile(`^interval .* exceeds ±.*%$`)

// OwnNotes are the parts of noteOf but the lanes' disagreement.
func OwnNotes(b record.Benchmark) []string {
	var parts []string
	for part := range strings.SplitSeq(b.Note, "; ") {
		// classify's "interval … exceeds ±2%" says less than inconclusiveWhy, which the report
		// shows instead.
		if part != "" && !(b.Class == record.ClassInconclusive && intervalNote.MatchString(part)) {
			parts = append(parts, part)
		}
	}
	for _, w := range b.Warnings {
		if !strings.Contains(b.Note, w) {
			parts = append(parts, w)
		}
	}
	if b.RuledOut && b.Paired != nil {
		parts = append(parts, fmt.Sprintf("a slowdown beyond the threshold is ruled out (one-sided bound %+.1f%%): "+
			"does not block", 100*(b.Paired.Bound-1)))
	}
	return parts
}

// instructions formats an instruction count per op whole, with thousands separators, and with one
// decimal when it has a fraction (the lane's counts are differences of two runs divided by N):
// "12,345" or "2,176.5".
func instructions(v float64) string {
	if math.Abs(v) >= 1e15 {
		return Sig4(v)
	}
	r := math.Round(math.Abs(v) * 10)
	s := text.Commas(int64(r / 10))
	if d := int64(r) % 10; d != 0 {
		s += "." + strconv.FormatInt(d, 10)
	}
	return signed(s, v < 0, false)
}

// signed prefixes s (a magnitude) with − when neg, or + when plus is asked for and s is not zero.
func signed(s string, neg, plus bool) string {
	if strings.Trim(s, "0.,") == "" {
		return s
	}
	if neg {
		return minus + s
	}
	if plus {
		return "+" + s
	}
	return s
}

// percent formats a signed percentage with one decimal: "+3.1%", "−37.9%", "0.0%".
func percent(p float64) string {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return "—"
	}
	return signed(strconv.FormatFloat(math.Abs(p), 'f', 1, 64), p < 0, true) + "%"
}

// Spread formats a summary as benchstat does: "150.0 µs ± 1%", the interval given as the larger
// distance from the center to either end, in percent of the center. A summary without an interval
// (too few samples: Lo and Hi 0, and the benchmark's warnings say why) is its center alone, never
// "± 100%".
func Spread(unit string, s record.Summary) string {
	c := Value(unit, s.Center)
	if s.N == 0 {
		return "—"
	}
	if s.Center == 0 || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) || (s.Lo == 0 && s.Hi == 0) {
		return c
	}
	d := math.Max(math.Abs(s.Center-s.Lo), math.Abs(s.Hi-s.Center)) / math.Abs(s.Center) * 100
	if math.IsInf(d, 0) {
		return c + " ± ∞"
	}
	return c + " ± " + strconv.FormatFloat(d, 'f', 0, 64) + "%"
}

// Delta formats a benchmark's change as benchstat does: the signed percentage when p ≤ alpha, "~"
// otherwise.
func Delta(b record.Benchmark, alpha float64) string {
	if sameUntimed(b) {
		return "0 (same machine code)"
	}
	if b.Base.N == 0 || b.Head.N == 0 || math.IsNaN(b.P) || b.P > alpha {
		return "~"
	}
	return percent(b.DeltaPct)
}

// PValue formats p with n: "p=0.000 n=10", or "n=10+9" when the sides differ.
func PValue(b record.Benchmark) string {
	n := strconv.Itoa(b.Base.N)
	if b.Head.N != b.Base.N {
		n += "+" + strconv.Itoa(b.Head.N)
	}
	if math.IsNaN(b.P) || b.Base.N == 0 || b.Head.N == 0 {
		return "n=" + n
	}
	return fmt.Sprintf("p=%.3f n=%s", b.P, n)
}

// Paired formats the paired estimate: "0.621× [0.618, 0.624]", or "—" without one.
func Paired(p *record.Paired) string {
	if p == nil {
		return "—"
	}
	f := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "—"
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return f(p.Ratio) + "× [" + f(p.Lo) + ", " + f(p.Hi) + "]"
}

// RoundsOf is " · 12 rounds" after the paired estimate of a run with a time budget, where each
// benchmark got as many rounds as it needed to settle; "" for a run of fixed rounds.
func RoundsOf(m record.Method, b record.Benchmark) string {
	if m.Budget <= 0 || b.Rounds == 0 {
		return ""
	}
	return " · " + text.PluralCommas(b.Rounds, "round")
}

// AlphaOf returns the run's significance level, defaulting to benchstat's 0.05.
func AlphaOf(m record.Method) float64 {
	if m.Alpha > 0 {
		return m.Alpha
	}
	return 0.05
}

// BytesDelta formats a signed byte difference exactly: "+2,048 B", "−315 B", "0 B".
func BytesDelta(d int64) string {
	if d == 0 {
		return "0 B"
	}
	if d < 0 {
		return minus + text.Commas(-d) + " B"
	}
	return "+" + text.Commas(d) + " B"
}

// bytesDeltaShort formats a signed byte difference compactly: "+1.5 KiB", "−315 B".
func bytesDeltaShort(d int64) string {
	a := math.Abs(float64(d))
	var s string
	switch {
	case a < 1024:
		return BytesDelta(d)
	case a < 1<<20:
		s = strconv.FormatFloat(a/1024, 'f', 1, 64) + " KiB"
	default:
		s = strconv.FormatFloat(a/(1<<20), 'f', 1, 64) + " MiB"
	}
	return signed(s, d < 0, true)
}

// SizePercent formats the relative change of a section: "+12.0%", "new" when it was empty, "gone"
// when it is.
func SizePercent(base, head int64) string {
	switch {
	case base == head:
		return "0.0%"
	case base == 0:
		return "new"
	case head == 0:
		return "gone"
	}
	return percent((float64(head)/float64(base) - 1) * 100)
}

// ShortHash shortens a commit or digest to 12 characters.
func ShortHash(s string) string {
	if len(s) > 12 && IsHex(s) {
		return s[:12]
	}
	return Clip(s, 13)
}

func IsHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// sameUntimed reports whether b is unchanged because its machine code is the same on both sides,
// without timing.
func sameUntimed(b record.Benchmark) bool {
	return b.SameCode && b.Rounds == 0 && b.Base.N == 0 && b.Head.N == 0
}

// NoPaired is what a forest row without a paired estimate says instead.
func NoPaired(b record.Benchmark) string {
	if sameUntimed(b) {
		return "same machine code, not timed"
	}
	return "no paired estimate"
}

// Scope says what a result covers beyond its package: the packages of a comparison of several, and
// the shard of a partial result. "" for one package, whole.
func Scope(r *record.Result) string {
	var s string
	if n := len(r.Packages); n > 0 {
		shown := r.Packages[:min(n, 10)]
		s = fmt.Sprintf(" (%s: %s", text.PluralCommas(n, "package"), Clip(strings.Join(shown, ", "), 400))
		if n > len(shown) {
			s += fmt.Sprintf(", and %d more", n-len(shown))
		}
		s += ")"
	}
	if sh := r.Shard; sh != nil {
		s += fmt.Sprintf(" · shard %d of %d, a partial result: perfgate merge combines the shards", sh.Index, sh.Count)
	}
	return s
}

// GeomeanRow is the formatted geometric-mean row of unit in r: base, head and the change ("+3.1%");
// ok is false when r has no row for unit (fewer than two benchmarks in it).
func GeomeanRow(r *record.Result, unit string) (base, head, change string, n int, ok bool) {
	for _, g := range r.Geomeans {
		if g.Unit == unit {
			return Value(unit, g.Base), Value(unit, g.Head), percent(100 * (g.Ratio - 1)), g.N, true
		}
	}
	return "", "", "", 0, false
}
