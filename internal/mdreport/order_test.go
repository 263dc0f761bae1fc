package mdreport

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// outsideDetails is md without its <details> sections: what a reader sees before expanding
// anything.
func outsideDetails(md string) string {
	var b strings.Builder
	depth := 0
	for _, l := range strings.SplitAfter(md, "\n") {
		switch strings.TrimSpace(l) {
		case "<details>":
			depth++
			continue
		case "</details>":
			depth--
			continue
		}
		if depth == 0 {
			b.WriteString(l)
		}
	}
	return b.String()
}

// screen is how many lines a reviewer sees of a comment without scrolling far: the verdict, the
// reasons and what failed must be within it.
const screen = 70

// TestFailFirstScreen: on a FAIL, the reasons, the panic and the failing test's output come before
// any collapsed section and within the first screen.
func TestFailFirstScreen(t *testing.T) {
	md := Markdown(reportfixture.Fail(), report.Options{})
	lines := strings.Split(md, "\n")
	first := strings.Join(lines[:min(screen, len(lines))], "\n")
	for _, want := range []string{
		"- Decrypt/3des-eee3/single panicked on head",
		"panic: runtime error: index out of range [64] with length 64",
		"--- FAIL: TestEEE3",
		"NewTripleEEE3  key size 24",
	} {
		i := strings.Index(md, want)
		if i < 0 || !strings.Contains(first, want) {
			t.Errorf("%q is not within the first %d lines", want, screen)
		}
		if d := strings.Index(md, "<details>"); d >= 0 && i > d {
			t.Errorf("%q comes after a collapsed section", want)
		}
	}
	// Said in the verdict, once for the benchmarks it names, and in the forest's footnote; the
	// collapsed tables mark their rows.
	if n := strings.Count(strings.ToLower(outsideDetails(md)), "acknowledged"); n > 3 {
		t.Errorf("\"acknowledged\" %d times outside collapsed sections", n)
	}
}

// TestPassCollapsed: a PASS shows the verdict, the forest of the benchmarks that moved and why the
// inconclusive one stayed open; the tables, differential, sizes and method are collapsed, and what
// shows fits one screen.
func TestPassCollapsed(t *testing.T) {
	md := Markdown(reportfixture.Pass(), report.Options{})
	open := outsideDetails(md)
	if n := strings.Count(open, "\n"); n > 40 {
		t.Errorf("%d lines outside <details>, want at most 40:\n%s", n, open)
	}
	for _, want := range []string{"**perfgate: PASS**", "NewTripleEDE3                                ├●┤",
		"Unchanged (1): `NewCipher/des`", "**Why inconclusive:**"} {
		if !strings.Contains(open, want) {
			t.Errorf("%q not shown uncollapsed", want)
		}
	}
	for _, hidden := range []string{"| Benchmark |", "| Constructor |", "| Section |", "**Environment:**",
		"NewCipher/des                                ░●░"} {
		if strings.Contains(open, hidden) {
			t.Errorf("%q shown outside a collapsed section", hidden)
		}
	}
	for _, summary := range []string{"<summary>Every benchmark, per unit</summary>",
		"<summary>Differential: identical (5 block ciphers)</summary>", "<summary>Method and environment</summary>",
		"<summary>Size: +1.7 KiB (.noptrdata +2,048 B)</summary>"} {
		if !strings.Contains(md, summary) {
			t.Errorf("no collapsed section %q", summary)
		}
	}
}

// TestMethodNotes: a note that does not change how the numbers read (valgrind hides CPU features
// neither binary uses) goes to the method section; one that does (a dirty head) stays under the
// verdict.
func TestMethodNotes(t *testing.T) {
	r := reportfixture.Pass()
	hidden := "metric auto: valgrind-3.19.0 hides x86.avx512f, but neither test binary has an instruction of them, " +
		"so the instruction counts are of the code the host runs"
	r.Notes = []string{hidden, "head is the working tree with uncommitted changes"}
	md := Markdown(r, report.Options{})
	open := outsideDetails(md)
	if strings.Contains(open, "hides x86") {
		t.Error("the hidden-features note is shown under the verdict")
	}
	if !strings.Contains(md, "- **Note:** "+text.Markdown(hidden)) {
		t.Error("the hidden-features note is not in the method section")
	}
	if !strings.Contains(open, "- Note: head is the working tree with uncommitted changes") {
		t.Error("the dirty-head note is not under the verdict")
	}
}

// TestInconclusiveReason: an interval wholly on the faster side that the corrected test did not
// carry says so, not "exceeds ±2%"; an interval across 1× says it is too wide; disturbed rounds are
// counted.
func TestInconclusiveReason(t *testing.T) {
	r := reportfixture.Pass()
	r.Method.Threshold = 2
	r.Benchmarks = []record.Benchmark{
		reportfixture.Bench("Encrypt/des", "sec/op", 150e-9, 93e-9, -35, 0.02, &record.Paired{Ratio: 0.644, Lo: 0.377, Hi: 0.874,
			Rounds: 3, Disturbed: 1}, record.ClassInconclusive),
		reportfixture.Bench("Decrypt/des", "sec/op", 150e-9, 150e-9, 0, 0.5, &record.Paired{Ratio: 1.0, Lo: 0.95, Hi: 1.06,
			Rounds: 4}, record.ClassInconclusive),
	}
	r.Benchmarks[0].PHolm, r.Benchmarks[0].Tested = 0.081, true
	r.Benchmarks[0].Note = "interval -62.3% to -12.6% exceeds ±2%"
	r.Benchmarks[1].Tested = true
	md := Markdown(r, report.Options{})
	for _, want := range []string{
		"- `Encrypt/des`: interval −62.3% to −12.6% lies wholly on the faster side, but the test corrected for " +
			"2 benchmarks (Holm) did not reach α = 0.05: corrected p = 0.081; 1 of 4 rounds disturbed, left out",
		"- `Decrypt/des`: interval −5.0% to +6.0% reaches both sides of no change and beyond ±2%: too wide to tell",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if strings.Contains(md, "exceeds ±2%") {
		t.Error("the bare \"exceeds ±2%\" note is still shown")
	}
}

// TestWhyLinks: with the repository's URL, a line of "why it changed" links to that line at head's
// commit; without it, or for a dirty head, there is no link.
func TestWhyLinks(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	r := &record.Result{Package: "./xtea", ImportPath: "example.com/xtea", Verdict: record.Verdict{Status: record.StatusFail},
		Head: record.Revision{Ref: "HEAD", Commit: sha}, Why: []record.Why{whyFixture("Encrypt/single", record.ClassSlower)}}
	md := Markdown(r, report.Options{RepoURL: "https://github.com/o/xtea"})
	want := "- [xtea.go:53](https://github.com/o/xtea/blob/" + sha + "/xtea/xtea.go#L53) xtea.(\\*Cipher).Encrypt"
	if !strings.Contains(md, want) {
		t.Errorf("missing %q in\n%s", want, md)
	}
	if strings.Contains(md, "(base; removed)](") {
		t.Error("a line only base has is linked to head")
	}
	for name, opt := range map[string]report.Options{"no repository": {}, "dirty": {RepoURL: "https://github.com/o/xtea"}} {
		r := *r
		if name == "dirty" {
			r.Head.Dirty = true
		}
		if md := Markdown(&r, opt); strings.Contains(md, "/blob/") {
			t.Errorf("%s: a link in\n%s", name, md)
		}
	}
}

// TestSameFailureOnce: several runs that failed with the same output show it once.
func TestSameFailureOnce(t *testing.T) {
	r := reportfixture.Fail()
	f := r.Failures[0]
	g := f
	g.Name, g.Side = "Encrypt/3des-eee3/single", record.Base
	r.Failures = append(r.Failures, g)
	md := Markdown(r, report.Options{})
	if n := strings.Count(md, "panic: runtime error: index out of range"); n != 1 {
		t.Errorf("the same panic shown %d times", n)
	}
	if !strings.Contains(md, "**Encrypt/3des-eee3/single** — base, round 0: panic, the same output as Decrypt/3des-eee3/single") {
		t.Errorf("the second failure does not name the first:\n%s", md)
	}
}

// TestPassWhyCollapsedLanesOnce: on a PASS, "why it changed" is collapsed; a lane note shared by
// several benchmarks is said once, naming them all.
func TestPassWhyCollapsedLanesOnce(t *testing.T) {
	r := reportfixture.Pass()
	r.Why = []record.Why{whyFixture("Encrypt/des/single", record.ClassFaster)}
	note := "valgrind hides CPU features this machine has (x86.avxvnni): time gates alone"
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Unit == record.UnitTime && i < 2 {
			r.Benchmarks[i].MetricNote = note
		}
	}
	md := Markdown(r, report.Options{})
	open := outsideDetails(md)
	if strings.Contains(open, "xtea.go:53") || !strings.Contains(md, "<summary>Why it changed (1 benchmark)</summary>") {
		t.Errorf("why it changed is not collapsed on a PASS:\n%s", md)
	}
	if n := strings.Count(open, note); n != 1 ||
		!strings.Contains(open, "- `Encrypt/des/single`, `Decrypt/des/single`: "+text.Markdown(note)) {
		t.Errorf("the shared lane note is shown %d times, or not with both names:\n%s", n, open)
	}
	r.Verdict.Status = record.StatusFail
	if md := Markdown(r, report.Options{}); !strings.Contains(outsideDetails(md), "### Why it changed") {
		t.Error("why it changed is collapsed on a FAIL")
	}
}
