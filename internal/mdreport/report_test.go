package mdreport

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *record.Result
	}{{"pass", reportfixture.Pass()}, {"fail", reportfixture.Fail()}} {
		t.Run(tc.name, func(t *testing.T) {
			md := Markdown(tc.r, report.Options{})
			if problems := lintMarkdown(md); len(problems) > 0 {
				t.Errorf("markdown problems:\n%s", strings.Join(problems, "\n"))
			}
			reportfixture.Golden(t, tc.name+".md.golden", md, *update)
		})
	}
}

func TestVerdictLine(t *testing.T) {
	// The first two lines are what a maintainer reads: the marker, then the verdict.
	for _, tc := range []struct {
		r    *record.Result
		want string
	}{
		{reportfixture.Pass(), "**perfgate: PASS** — 0 slower, 4 faster, 1 unchanged, 1 inconclusive · " +
			"differential: identical (5 block ciphers) · size: +1.7 KiB (.noptrdata +2,048 B)"},
		{reportfixture.Fail(), "**perfgate: FAIL** — **2 slower**, acknowledged by label perf-regression-ok, 4 faster, 0 unchanged, " +
			"0 inconclusive, **1 failed** · differential: **mismatch (2 of 7: 5 block ciphers, 1 AEAD, 1 hash)** · size: +1.7 KiB (.noptrdata +2,048 B)"},
		// The headline says which checks did not run, and why.
		{skipped(), "**perfgate: PASS** — 0 slower, 4 faster, 1 unchanged, 1 inconclusive · " +
			"differential: skipped (no cipher constructor) · size: +1.7 KiB (.noptrdata +2,048 B)"},
		{nothingChecked(), "**perfgate: ERROR** — nothing was checked (benchmarks: no benchmarks; differential: " +
			"disabled by configuration; size: no max-size-growth set (sizes are reported only))"},
		{diffError(), "**perfgate: ERROR** — 0 slower, 4 faster, 1 unchanged, 1 inconclusive · " +
			"differential: **error (perfgate could not run it)** · size: +1.7 KiB (.noptrdata +2,048 B)"},
		{errorResult(), "**perfgate: ERROR** — base does not build: cipher/des/block.go:12: undefined: \\\\\\_sbox"},
		{incomplete(), "**perfgate: PASS (incomplete)** — 0 slower, 4 faster, 1 unchanged, 1 inconclusive · " +
			"differential: skipped · size: not measured"},
	} {
		lines := strings.SplitN(Markdown(tc.r, report.Options{}), "\n", 3)
		if lines[0] != Marker {
			t.Errorf("first line = %q, want the marker", lines[0])
		}
		if lines[1] != tc.want {
			t.Errorf("verdict line:\n got %s\nwant %s", lines[1], tc.want)
		}
	}
}

// skipped is a passing run of a package without cipher constructors.
func skipped() *record.Result {
	r := reportfixture.Pass()
	r.Differential = record.Differential{Status: record.DiffSkipped, Ciphers: []record.Cipher{},
		Reason: "no cipher constructor in ./cipher/des on both sides (looked for …)"}
	r.Verdict.Checks[1] = record.Check{Name: record.CheckDifferential, Detail: "no cipher constructor"}
	return r
}

// nothingChecked is a package without benchmarks, its differential check turned off.
func nothingChecked() *record.Result {
	r := reportfixture.Pass()
	r.Benchmarks = []record.Benchmark{}
	r.Differential = record.Differential{Status: record.DiffSkipped, Ciphers: []record.Cipher{},
		Reason: "disabled by configuration"}
	r.Verdict = record.Verdict{Status: record.StatusError, ExitCode: record.ExitCannotRun,
		Reasons: []string{"nothing was checked (benchmarks: no benchmarks; differential: disabled by configuration; " +
			"size: no max-size-growth set (sizes are reported only))"},
		Checks: []record.Check{{Name: record.CheckBenchmarks, Detail: "no benchmarks"},
			{Name: record.CheckDifferential, Detail: "disabled by configuration"},
			{Name: record.CheckSize, Detail: "no max-size-growth set (sizes are reported only)"}}}
	return r
}

// diffError is a run whose differential check perfgate could not run.
func diffError() *record.Result {
	r := reportfixture.Pass()
	r.Differential = record.Differential{Status: record.DiffError, Ciphers: []record.Cipher{},
		Reason: "the generated harness does not compile in base's module: harness main.go:19:6: type alias requires go1.9"}
	r.Verdict.Status, r.Verdict.ExitCode = record.StatusError, record.ExitCannotRun
	r.Verdict.Reasons = []string{"perfgate could not run the differential check: " + r.Differential.Reason}
	r.Verdict.Checks[1] = record.Check{Name: record.CheckDifferential, Detail: "could not run"}
	return r
}

// errorResult is a run that could not compare anything: the base does not build.
func errorResult() *record.Result {
	return &record.Result{
		Schema: record.Schema, Package: "./cipher/des",
		Verdict: record.Verdict{Status: record.StatusError, ExitCode: record.ExitCannotRun,
			Reasons: []string{"base does not build: cipher/des/block.go:12: undefined: \\_sbox"}},
		Differential: record.Differential{Status: record.DiffNotComparable},
	}
}

// incomplete is a passing run cut short before the differential and size phases.
func incomplete() *record.Result {
	r := reportfixture.Pass()
	r.Incomplete = true
	r.Differential = record.Differential{Status: record.DiffSkipped, Reason: "cancelled"}
	r.Sizes = record.Sizes{}
	return r
}

func TestTitleAndHint(t *testing.T) {
	md := Markdown(reportfixture.Pass(), report.Options{Title: "cipher/des <b>", ArtifactHint: "https://example.com/run/1"})
	if !strings.HasPrefix(md, Marker+"\n### cipher/des &lt;b&gt;\n\n**perfgate: PASS**") {
		t.Errorf("title not rendered after the marker:\n%s", md[:200])
	}
	if !strings.Contains(md, "<sub>Full results: https://example.com/run/1</sub>") {
		t.Error("artifact hint missing")
	}
}

func TestMarkdownEscapesUntrustedText(t *testing.T) {
	md := Markdown(reportfixture.HostileResult(), report.Options{})
	if problems := lintMarkdown(md); len(problems) > 0 {
		t.Fatalf("hostile text broke the structure:\n%s\n\n%s", strings.Join(problems, "\n"), md)
	}
	// Outside code blocks the raw markup must not appear; inside them it is shown, not parsed.
	prose := stripFences(md)
	for _, raw := range []string{"<b>", "|*y*", "*y*", "<img", "<script", "\x1b", "[l](", "$x$"} {
		if strings.Contains(prose, raw) {
			t.Errorf("raw %q outside code blocks", raw)
		}
	}
	if !strings.Contains(prose, `&lt;b&gt;x&lt;/b&gt;\|\*y\*`) {
		t.Error("escaped benchmark name missing")
	}
	// The panic message is in the body, inside a fence longer than its longest backtick run (4).
	if !strings.Contains(md, "`````text\npanic: ```` backticks ```` and </details> and <script>") {
		t.Error("panic message not fenced with five backticks")
	}
}

// stripFences removes fenced code blocks, leaving the prose.
func stripFences(md string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.Trim(t, "`") == "" && len(t) >= len(fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"):
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func TestNilResult(t *testing.T) {
	md := Markdown(nil, report.Options{})
	if !strings.HasPrefix(md, Marker+"\n**perfgate: ERROR**") {
		t.Errorf("nil result: %.80q", md)
	}
	if err := report.Text(&bytes.Buffer{}, nil, report.Options{}); err == nil {
		t.Error("Text(nil) did not fail")
	}
}

// TestSizesInlined: a package none of whose code is in either binary (its functions all inlined
// into the benchmarks) is not "unchanged" at 0 → 0: every format says that it has no code of its
// own.
func TestSizesInlined(t *testing.T) {
	r := reportfixture.Pass()
	r.Sizes = record.Sizes{Sections: []record.SectionSize{{Name: ".text"}, {Name: ".rodata"},
		{Name: ".noptrbss", Base: 8, Head: 8}}}
	var txt bytes.Buffer
	if err := report.Text(&txt, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := Markdown(r, report.Options{})
	for name, out := range map[string]string{"text": txt.String(), "markdown": md} {
		if !strings.Contains(out, "no code of its own on either side") {
			t.Errorf("%s does not say the package has no code:\n%s", name, out)
		}
		if strings.Contains(out, "size: unchanged") {
			t.Errorf("%s calls 0 → 0 unchanged:\n%s", name, out)
		}
	}
	r.Sizes.Sections[2].Head = 16
	if got := report.SizeSummary(r.Sizes, text.Plain); got != "+8 B (.noptrbss +8 B); no code of its own on either side "+
		"(its functions are inlined into their callers)" {
		t.Errorf("with data grown: %q", got)
	}
}
