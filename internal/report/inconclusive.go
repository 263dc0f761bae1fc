package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// Why an inconclusive benchmark stayed open. The class comes from three numbers the pipeline
// computed: the paired 95% interval (not corrected for the number of benchmarks), the p-value of
// the test that the change lies beyond half the threshold, corrected across the benchmarks of its
// unit (PHolm), and the threshold. An interval can lie wholly on the faster side and the benchmark
// still be inconclusive: the corrected test decides, not the interval. These lines say which of the
// three kept it open, in words; they compute nothing but which case applies.

// InconclusiveLines are one line per inconclusive benchmark of the gating units, at most most of
// them and then a count of the rest: its name and what kept it open.
func InconclusiveLines(r *record.Result, most int) []string {
	var out []string
	n := 0
	for _, b := range r.Benchmarks {
		if b.Class != record.ClassInconclusive || b.Paired == nil ||
			!(b.Unit == record.UnitTime || b.Unit == record.UnitInstructions) {
			continue
		}
		if n++; n > most {
			continue
		}
		line := text.CodeSpan(Clip(record.Qualified(b.Package, b.Name), 200)) + ": " + inconclusiveWhy(r, b)
		if b.RuledOut {
			line += fmt.Sprintf("; a slowdown beyond the threshold is ruled out (one-sided bound %+.1f%%), so it "+
				"does not block", 100*(b.Paired.Bound-1))
		}
		out = append(out, line)
	}
	if n > most {
		out = append(out, fmt.Sprintf("… %d more inconclusive; the tables below give each one's interval", n-most))
	}
	return out
}

// inconclusiveWhy says what kept b open: the correction for the other benchmarks, the margin of
// half the threshold, or an interval that reaches both sides; and the rounds left out as disturbed,
// the bursts and the changes of the host's state the estimate saw (bench.RoundsNote).
func inconclusiveWhy(r *record.Result, b record.Benchmark) string {
	p := b.Paired
	th := r.Method.Threshold / 100
	if b.Unit == record.UnitInstructions && r.Method.InstrThreshold > 0 {
		th = r.Method.InstrThreshold / 100
	}
	alpha := AlphaOf(r.Method)
	interval := fmt.Sprintf("interval %s to %s", pct(p.Lo-1), pct(p.Hi-1))
	side := ""
	switch {
	case p.Hi < 1:
		side = "faster"
	case p.Lo > 1:
		side = "slower"
	}
	n := testedIn(r, b.Unit)
	var s string
	switch {
	case side != "" && (p.Hi < 1-th/2 || p.Lo > 1+th/2):
		s = fmt.Sprintf("%s lies wholly on the %s side, but the test corrected for %s (%s) did not reach "+
			"α = %s: corrected p = %s", interval, side, text.PluralCommas(n, "benchmark"), correctionOf(r.Method),
			strconv.FormatFloat(alpha, 'g', -1, 64), pText(b.PHolm))
	case side != "":
		s = fmt.Sprintf("%s lies on the %s side but reaches within half the threshold (±%s) of no change, which "+
			"slower and faster must rule out", interval, side, bare(th/2))
	case p.Lo >= 1-th && p.Hi <= 1+th:
		s = fmt.Sprintf("%s lies within ±%s, but not within half of it with corrected p < α", interval, bare(th))
	default:
		s = fmt.Sprintf("%s reaches both sides of no change and beyond ±%s: too wide to tell; more rounds or a "+
			"quieter machine would narrow it", interval, bare(th))
	}
	if rounds := bench.RoundsNote(*p); rounds != "" {
		s += "; " + rounds
	}
	return s
}

// testedIn counts the benchmarks of unit whose test took part in the correction (all with a paired
// estimate, in results that predate Tested).
func testedIn(r *record.Result, unit string) int {
	n, paired := 0, 0
	for _, b := range r.Benchmarks {
		if b.Unit != unit {
			continue
		}
		if b.Tested {
			n++
		}
		if b.Paired != nil {
			paired++
		}
	}
	if n == 0 {
		return paired
	}
	return n
}

// correctionOf names the correction across benchmarks: Holm for fixed rounds, Bonferroni over the
// looks and the benchmarks with a time budget.
func correctionOf(m record.Method) string {
	if m.Budget > 0 {
		return "Bonferroni over looks and benchmarks"
	}
	return "Holm"
}

// pct writes a fraction as a signed percentage with one decimal: "−12.6%", "+2.0%".
func pct(f float64) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
	if strings.HasPrefix(s, "-") {
		return "−" + s[1:]
	}
	return "+" + s
}

// bare writes a fraction as a percentage without a sign: "2%", "0.5%".
func bare(f float64) string { return strconv.FormatFloat(100*f, 'g', 4, 64) + "%" }

// pText writes a p-value to 3 decimals, "below 0.001" below that (no "<": the text goes into
// Markdown as it is).
func pText(p float64) string {
	if p < 0.001 {
		return "below 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}
