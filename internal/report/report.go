// Package report renders a perfgate.Result as aligned text for the terminal and indented JSON for
// result.json, and holds what every rendering shares: the formatting of values, deltas and
// p-values, the verdict's parts, the forest plot of the paired ratios (forest.go, drawn in
// monospace), why a benchmark changed, and the method and environment lines. Package mdreport
// renders the same Result as the Markdown comment, and htmlreport as report.html.
//
// The Result is the only input. Rendering formats numbers the pipeline already computed (medians,
// intervals, deltas, p-values, the paired estimate) and at most counts benchmarks by class; it
// never computes statistics. Every string that can come from the pull request — benchmark names,
// panic messages, test output, commit subjects, refs, symbol names — goes through package text
// (text.Plain on a terminal, text.Markdown or a fenced text.Block in Markdown) before it reaches an
// output.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	benchtxt "github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// Options adjust rendering. The zero value is usable.
type Options struct {
	// Text: colour slower red and faster green with ANSI escapes (the CLI decides: isatty,
	// NO_COLOR)
	Color bool
	// Text: draw the forest plot with Unicode box drawing, not ASCII (the CLI decides: a UTF-8
	// terminal)
	Unicode bool
	Title   string // an optional heading, e.g. the package name when one job gates several
	// where the full results live, e.g. a link to the run's artifacts; used in omission notes
	ArtifactHint string
	// RepoURL is the repository's web address, "https://github.com/OWNER/NAME" (the Action:
	// GITHUB_SERVER_URL and GITHUB_REPOSITORY); when set, Markdown links "why it changed"'s lines
	// to head's commit. "" for no links.
	RepoURL string
}

// JSON writes r as indented JSON, fields in struct order, ending with a newline. It fails on values
// JSON cannot hold, such as NaN.
func JSON(w io.Writer, r *record.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing result json: %w", err)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "valgrind"
	}
	return s
}

// MethodLines describes how the numbers were obtained and where, as label/text pairs; esc is
// applied to every string taken from the Result.
func MethodLines(r *record.Result, esc func(string) string) [][2]string {
	m := r.Method
	var lines [][2]string
	if metric := metricText(m.Metric); metric != "" {
		lines = append(lines, [2]string{"Metric", metric})
	}
	if m.Metric != record.MetricInstructions {
		method := timedMethod(m, esc)
		same := allSameUntimed(r.Benchmarks)
		if same {
			method = "not timed: every benchmark runs the same machine code on both sides (threshold ±" +
				strconv.FormatFloat(m.Threshold, 'f', -1, 64) + "% for any that would be)"
		}
		lines = append(lines, [2]string{"Method", method})
		if len(r.Benchmarks) > 0 && !same {
			noise := fmt.Sprintf("%s%% (median across benchmarks); median smallest detectable effect %s%%",
				strconv.FormatFloat(m.NoiseFloor, 'f', 1, 64), strconv.FormatFloat(m.MedianMDE, 'f', 1, 64))
			lines = append(lines, [2]string{"Noise floor", noise})
		}
	}
	if m.Metric == record.MetricInstructions || m.Metric == record.MetricBoth || m.Metric == record.MetricAuto {
		godebug := strings.Join(append([]string{"asyncpreemptoff=1"}, r.Env.ValgrindGODEBUG...), ",")
		counted := "instructions/op under " + orDash(esc(r.Env.Valgrind)) + " (callgrind, GOMAXPROCS=1, " +
			"GODEBUG=" + esc(godebug) + "): (count at 2N − count at N) / N per A–B–B–A slot, of the instructions the " +
			"benchmark timer measured, the Go runtime's and the testing package's left out; counts of one binary " +
			"must agree within " + strconv.FormatFloat(100*benchtxt.RepeatTolerance, 'f', -1, 64) + "%; threshold ±" +
			strconv.FormatFloat(m.InstrThreshold, 'f', -1, 64) + "%, no statistical test"
		lines = append(lines, [2]string{"Instructions", counted})
	}
	if m.Schedule != "" {
		lines = append(lines, [2]string{"Schedule", esc(Clip(m.Schedule, 500))})
	}
	if builds := BuildsLine(r, esc); builds != "" {
		lines = append(lines, [2]string{"Builds", builds})
	}
	if sb := r.Sandbox; sb != nil {
		what := esc(Clip(sb.String(), 300)) + " — for the tests, benchmarks, calibration, instruction counts and " +
			"harnesses of both sides; binaries hashed after the build and checked before each run"
		if !sb.Guarded {
			what = "unguarded, " + what + "; the repository's code could have touched the evidence"
		}
		lines = append(lines, [2]string{"Sandbox", what})
	}
	return append(lines, [2]string{"Environment", envText(r.Env, esc)}, [2]string{"Run", runText(r)})
}

// metricText says which metric gates; "" for time alone.
func metricText(metric string) string {
	switch metric {
	case record.MetricInstructions:
		return "instructions/op gates (time was not measured)"
	case record.MetricBoth:
		return "sec/op and instructions/op both gate: a slower in either fails, acknowledged alike"
	case record.MetricAuto:
		return "auto: one class per benchmark from both lanes, the sec/op row's, which gates; " +
			"a conclusive time class stands; equal instruction counts and allocations settle an inconclusive one as " +
			"unchanged, and counts moved the way its interval lies, beyond half the threshold, as that way"
	}
	return ""
}

// timedMethod describes the timed lane: its rounds or stages, the threshold and the test's α.
func timedMethod(m record.Method, esc func(string) string) string {
	method := fmt.Sprintf("%d rounds of A–B–B–A", m.Rounds)
	correction := "with Holm correction"
	if m.Budget > 0 {
		method = fmt.Sprintf("A–B–B–A in %s within a budget of %s, %d rounds first, settled benchmarks stopping (%d settled)",
			text.PluralCommas(m.Stages, "stage"), m.Budget, m.Rounds, m.Settled)
		correction = "spent across the looks and benchmarks (Bonferroni)"
	}
	if m.BenchIters > 0 {
		method += ", benchtime " + strconv.Itoa(m.BenchIters) + "x (" + text.PluralCommas(m.BenchIters, "iteration") +
			" a run, not calibrated)"
	} else if m.BenchTime > 0 {
		method += ", benchtime " + m.BenchTime.String() + " per run"
	}
	method += fmt.Sprintf(", threshold ±%s%%, α = %s %s",
		strconv.FormatFloat(m.Threshold, 'f', -1, 64), strconv.FormatFloat(AlphaOf(m), 'f', -1, 64), correction)
	if m.Estimator != "" {
		method += "; paired estimator: " + esc(Clip(m.Estimator, 300))
	}
	return method + steadyText(m.Steady)
}

// steadyText says how the timed processes were warmed up and what they still paid for memory per
// op (record.Steady); "" when the run did not keep it.
func steadyText(st *record.Steady) string {
	if st == nil {
		return ""
	}
	out := "; each process warmed up first"
	if st.WarmUp > 0 {
		out = fmt.Sprintf("; each process ran %s at the run's iteration count first, discarded (warm-up)",
			text.PluralCommas(st.WarmUp, "sub-run"))
	}
	out += "; per op, medians across benchmarks: " + span(st.FaultsLo, st.FaultsHi) + " page faults"
	if st.GCsLo >= 0 {
		out += ", " + span(st.GCsLo, st.GCsHi) + " collections"
	}
	return out + " (bench.txt: faults/op, gcs/op)"
}

// span is lo–hi in 3 significant digits, or one number when they print alike.
func span(lo, hi float64) string {
	a, b := strconv.FormatFloat(lo, 'g', 3, 64), strconv.FormatFloat(hi, 'g', 3, 64)
	if a == b {
		return a
	}
	return a + "–" + b
}

// envText describes the machine the numbers were taken on, its facts joined by " · ".
func envText(e record.Env, esc func(string) string) string {
	env := []string{esc(e.Go) + " " + esc(e.GOOS) + "/" + esc(e.GOARCH)}
	if e.GOAMD64 != "" {
		env[0] += " (GOAMD64=" + esc(e.GOAMD64) + ")"
	}
	if e.CPU != "" {
		env = append(env, esc(Clip(e.CPU, 100)))
	}
	env = append(env, text.PluralCommas(e.CPUs, "CPU"))
	if e.Pinned {
		env = append(env, fmt.Sprintf("pinned to CPU %d", e.PinnedCPU))
	} else {
		env = append(env, "not pinned")
	}
	for _, kv := range [][2]string{{"governor", e.Governor}, {"turbo", e.Turbo}, {"SMT", e.SMT}, {"kernel", e.Kernel}} {
		if kv[1] != "" {
			env = append(env, kv[0]+" "+esc(Clip(kv[1], 80)))
		}
	}
	env = append(env, "load "+strconv.FormatFloat(e.Load1, 'f', 2, 64))
	return strings.Join(env, " · ")
}

// runText says when the run started and how long it and its timed phase took.
func runText(r *record.Result) string {
	m := r.Method
	run := ""
	if !r.Started.IsZero() {
		run = "started " + r.Started.UTC().Format("2006-01-02 15:04 UTC") + ", "
	}
	run += "took " + r.Duration.Round(time.Second).String()
	if ph := phasesText(m.Phases); ph != "" {
		run += " (" + ph + ")"
	} else if m.TimedPhase > 0 {
		run += " (timed phase " + m.TimedPhase.Round(time.Second).String() + ")"
	}
	if m.BinariesSame {
		run += "; base and head test binaries are identical"
	}
	return run
}

// phasesText says where the time went: each phase of at least half a second by its wall time, in
// the order they ran, and how many of its artifacts came from the store ("tests 1s, 2 from the
// store"); the shorter ones together. A phase that ran beside another says so ("constant time 40s
// beside timing and counting"): its time is not added to the run's.
func phasesText(phases []record.Phase) string {
	var parts []string
	var rest time.Duration
	for _, ph := range phases {
		if ph.Wall < 500*time.Millisecond && ph.FromStore == 0 {
			if ph.Alongside == "" {
				rest += ph.Wall
			}
			continue
		}
		t := ph.Name + " " + ph.Wall.Round(100*time.Millisecond).String()
		if ph.Alongside != "" {
			t += " beside " + ph.Alongside
		}
		if ph.FromStore > 0 {
			t += " with " + text.PluralCommas(ph.FromStore, "artifact") + " from the store"
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return ""
	}
	if rest > 0 {
		parts = append(parts, "the rest "+rest.Round(100*time.Millisecond).String())
	}
	return strings.Join(parts, ", ")
}

// allSameUntimed reports whether bs has benchmarks and every one was answered by same machine code,
// untimed.
func allSameUntimed(bs []record.Benchmark) bool {
	for _, b := range bs {
		if !sameUntimed(b) {
			return false
		}
	}
	return len(bs) > 0
}
