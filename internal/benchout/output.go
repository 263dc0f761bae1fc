// Package benchout reads what a Go test binary prints when it runs benchmarks: the result lines
// (through x/perf's benchfmt), the benchmarks -test.v announced and those that failed (Parse), the
// fastest of a leaf's sub-runs (Fastest), a panic's message (PanicMessage) and a failure's log
// (FailBlock); and it writes the -test.bench patterns that select one benchmark exactly (Pattern,
// SkipPattern).
package benchout

import (
	"bufio"
	"bytes"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"golang.org/x/perf/benchfmt"
)

// Pattern returns the -test.bench pattern that selects exactly the benchmark name (as in
// Sample.Name, without the "Benchmark" prefix) and none of its siblings: every '/'-separated level
// quoted and anchored, as in ^BenchmarkEncrypt$/^des$/^single$. The testing package splits a
// pattern on '/' outside brackets and parentheses and skips the character after a backslash, so the
// quoted levels never split; names are matched after the testing package rewrote them (spaces to
// '_', "#01" suffixes for duplicates), which is the form benchmark output prints and this function
// receives.
func Pattern(name string) string {
	levels := strings.Split("Benchmark"+name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// Output is what one run of a test binary printed, parsed.
type Output struct {
	Results []Result
	Header  map[string]string // goos, goarch, pkg, cpu
	Started []string          // names announced by -test.v, in order (calibration only)
	Failed  []string          // names of "--- FAIL: " lines
}

// Result is one result line: the benchmark (as in Sample.Name), its iterations and its values.
type Result struct {
	Name   string
	Iters  int
	Values []benchtxt.Value
}

// Parse parses a test binary's standard output: result lines through benchfmt (which
// normalises ns/op to sec/op and MB/s to B/s), and the lines benchfmt skips that say which
// benchmark started or failed.
func Parse(stdout []byte) Output {
	var out Output
	r := benchfmt.NewReader(bytes.NewReader(stdout), "output")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if out.Header == nil {
			out.Header = map[string]string{}
			for _, c := range res.Config {
				if c.File {
					out.Header[c.Key] = string(c.Value)
				}
			}
		}
		br := Result{Name: Name(res.Name.String()), Iters: res.Iters}
		for _, v := range res.Values {
			if !benchtxt.ValidUnit(v.Unit) {
				// chosen by the code under test (b.ReportMetric): never let it carry markup
				continue
			}
			br.Values = append(br.Values, benchtxt.Value{Value: v.Value, Unit: v.Unit})
		}
		out.Results = append(out.Results, br)
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if name, ok := strings.CutPrefix(line, "Benchmark"); ok && !strings.ContainsAny(name, " \t") {
			out.Started = append(out.Started, Name("Benchmark"+name))
		}
		if _, rest, ok := strings.Cut(line, "--- FAIL: Benchmark"); ok {
			out.Failed = append(out.Failed, Name("Benchmark"+rest))
		}
	}
	return out
}

// Name turns a printed benchmark name into a Sample.Name: without "Benchmark" and without a
// "-N" GOMAXPROCS suffix. Children run with -test.cpu=1, for which the testing package prints no
// suffix, so a name that ends in "-8" keeps it: that is part of the name (b.Run("size-8", …)), not
// a GOMAXPROCS.
func Name(printed string) string {
	return strings.TrimPrefix(strings.TrimSpace(printed), "Benchmark")
}

// Unfinished returns the benchmark that was running when a calibration child died: the last name
// -test.v announced that printed no result, or "" when every announced benchmark finished.
func (o Output) Unfinished() string {
	done := map[string]bool{}
	for _, r := range o.Results {
		done[r.Name] = true
	}
	for i := len(o.Started) - 1; i >= 0; i-- {
		if !done[o.Started[i]] {
			return o.Started[i]
		}
	}
	return ""
}

// FailedLeaves returns the names of "--- FAIL:" lines that are not the parent of another failed
// name: a failing sub-benchmark also fails its parents, but only the sub-benchmark is to blame.
func (o Output) FailedLeaves() []string {
	var out []string
	for _, f := range o.Failed {
		parent := false
		for _, g := range o.Failed {
			if strings.HasPrefix(g, f+"/") {
				parent = true
				break
			}
		}
		if !parent {
			out = append(out, f)
		}
	}
	return out
}

// SkipPattern returns a -test.skip pattern that skips each of names exactly (an alternation of
// Pattern values), or "" for none.
func SkipPattern(names []string) string {
	pats := make([]string, len(names))
	for i, n := range names {
		pats[i] = Pattern(n)
	}
	return strings.Join(pats, "|")
}

// Fastest returns the result of name with the least sec/op among results, the sub-runs of one run
// (SubRuns); nil when there is none. A result without sec/op is taken only when no other is there.
// The exact units (allocs/op, B/op) are the first sub-run's instead, whichever was Fastest: a
// one-time cost such as a lazy initialisation shows in the first sub-run only, and taking it from
// whichever sub-run happened to be Fastest would make the exact counts of identical code differ
// from slot to slot.
func Fastest(results []Result, name string, exact []string) *Result {
	var best, first *Result
	bestSec := math.Inf(1)
	for i := range results {
		res := &results[i]
		if res.Name != name {
			continue
		}
		if first == nil {
			first = res
		}
		if sec, ok := ValueOf(res.Values, "sec/op"); ok && sec < bestSec || best == nil {
			best = res
			if ok {
				bestSec = sec
			}
		}
	}
	if best == nil || best == first {
		return best
	}
	out := *best
	out.Values = slices.Clone(best.Values)
	for i, v := range out.Values {
		if slices.Contains(exact, v.Unit) {
			if w, ok := ValueOf(first.Values, v.Unit); ok {
				out.Values[i].Value = w
			}
		}
	}
	return &out
}

// ValueOf returns the value of unit in vs.
func ValueOf(vs []benchtxt.Value, unit string) (float64, bool) {
	for _, v := range vs {
		if v.Unit == unit {
			return v.Value, true
		}
	}
	return 0, false
}

// panicLines is how many lines after "panic: …" a Failure keeps: the goroutine header and the top
// frames.
const panicLines = 6

// PanicMessage returns the first "panic: " or "fatal error: " line of out and the panicLines lines
// after it, or "".
func PanicMessage(out []byte) string {
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			end := min(i+1+panicLines, len(lines))
			return strings.TrimRight(strings.Join(lines[i:end], "\n"), "\n ")
		}
	}
	return ""
}

// FailBlock returns the "--- FAIL: Benchmark<name>" line of out with the indented log lines around
// it: -test.v streams them before the FAIL line, plain output prints them after.
func FailBlock(out []byte, name string) string {
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "--- FAIL: Benchmark"+name) {
			lo, hi := i, i+1
			for lo > 0 && strings.HasPrefix(lines[lo-1], " ") {
				lo--
			}
			for hi < len(lines) && strings.HasPrefix(lines[hi], " ") {
				hi++
			}
			return strings.Join(slices.Concat([]string{l}, lines[lo:i], lines[i+1:hi]), "\n")
		}
	}
	return "--- FAIL: Benchmark" + name
}
