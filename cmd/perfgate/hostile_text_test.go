package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/bisect"
	"github.com/perfgate/perfgate/internal/history"
	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/sarif"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// hostileName is what a pull request can put in a benchmark name, a commit subject, a file or
// symbol name or a panic: a terminal colour escape, bidirectional overrides and isolates (the
// Trojan Source trick), backticks and a pipe that would break a code span or a table cell, a
// forged perfgate marker, a script tag, and a workflow command on a line of its own.
const hostileName = "Enc\x1b[31m\u202eevil\u2066x\u2069\u200f\u200e`|" + mdreport.Marker +
	"<script>\r\n::warning::forged\u0085\u007f"

// hostileRune reports the characters of hostileName that must never reach an output as they are.
func hostileRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r):
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f':
		return true
	}
	return false
}

// TestHostileNamesInEveryOutput drives every output that carries repository text — the terminal
// text, the Markdown comment and job summary, report.html, SARIF, bisect's text and perfgate
// history's text, Markdown, HTML and Bencher JSON — with hostileName in every field a pull request
// controls, and checks that none of its dangerous parts comes out as it went in.
func TestHostileNamesInEveryOutput(t *testing.T) {
	h := hostileName
	r := hostileResult(h)
	outputs := map[string]string{}

	var txt bytes.Buffer
	if err := report.Text(&txt, r, report.Options{Unicode: true}); err != nil {
		t.Fatal(err)
	}
	outputs["text"] = txt.String()
	outputs["markdown"] = mdreport.Markdown(r, report.Options{Title: h, ArtifactHint: h})
	var page bytes.Buffer
	samples := []benchtxt.Sample{{Name: h, Side: record.Base, Values: []benchtxt.Value{{Value: 1e-7,
		Unit: "sec/op"}}}, {Name: h, Side: record.Head, Round: 0, Slot: 1,
		Values: []benchtxt.Value{{Value: 2e-7, Unit: "sec/op"}}}}
	if err := htmlreport.HTML(&page, r, samples, report.Options{Title: h}); err != nil {
		t.Fatal(err)
	}
	outputs["html"] = page.String()
	sf, err := sarif.ConstantTime(r.ConstantTime, sarif.Options{Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	outputs["sarif"] = string(sf)
	failed, err := sarif.ConstantTime(&record.ConstantTime{Status: record.CTUnavailable, Reason: h}, sarif.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outputs["sarif (not checked)"] = string(failed)

	var bis bytes.Buffer
	if err := bisect.WriteText(&bis, hostileBisect(h)); err != nil {
		t.Fatal(err)
	}
	outputs["bisect text"] = bis.String()

	hist := hostileHistory(h)
	var ht, hm bytes.Buffer
	if err := hist.Text(&ht, false); err != nil {
		t.Fatal(err)
	}
	outputs["history text"] = ht.String()
	if err := hist.Markdown(&hm, false); err != nil {
		t.Fatal(err)
	}
	outputs["history markdown"] = hm.String()
	hh, err := hist.HTML(h)
	if err != nil {
		t.Fatal(err)
	}
	outputs["history html"] = string(hh)
	for commit, b := range hist.Bencher() {
		outputs["bencher "+commit] = string(b)
	}

	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			checkHostile(t, name, out)
		})
	}
}

// withoutFences is Markdown md without its fenced code blocks, whose text is shown, not parsed.
func withoutFences(md string) string {
	var b strings.Builder
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(l, "```"):
			fence = l[:len(l)-len(strings.TrimLeft(l, "`"))]
		case fence != "":
			if strings.TrimRight(l, " ") == fence {
				fence = ""
			}
		default:
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// checkHostile fails when out holds a dangerous part of hostileName as it went in.
func checkHostile(t *testing.T, name, out string) {
	t.Helper()
	if !strings.Contains(out, "Enc") {
		t.Fatalf("the hostile name did not reach %s at all: the test checks nothing:\n%s", name, out)
	}
	for i, r := range out {
		if hostileRune(r) {
			t.Errorf("%s holds %U at byte %d: …%q…", name, r, i, out[max(0, i-40):min(len(out), i+40)])
			break
		}
	}
	isJSON := strings.HasPrefix(name, "sarif") || strings.HasPrefix(name, "bencher")
	if isJSON {
		// JSON escapes control characters, so look at the strings as a reader of the file sees
		// them.
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var strs []string
		collectStrings(v, &strs)
		out = strings.Join(strs, "\n")
		for _, s := range strs {
			if i := strings.IndexFunc(s, hostileRune); i >= 0 {
				t.Errorf("%s holds the string %q", name, s)
			}
		}
	}
	markers := strings.Count(out, "<!--")
	switch {
	case name == "markdown":
		if !strings.HasPrefix(out, mdreport.Marker) || markers != 1 {
			t.Errorf("the comment holds %d HTML comments; want only its own marker, first", markers)
		}
		prose := withoutFences(out)
		if i := strings.Index(prose, "`|"); i >= 0 {
			t.Errorf("the comment holds a raw backtick and pipe outside a code block: …%s…",
				prose[max(0, i-60):min(len(prose), i+40)])
		}
	case markers > 0:
		i := strings.Index(out, "<!--")
		t.Errorf("%s holds a raw <!--: …%q…", name, out[max(0, i-40):min(len(out), i+40)])
	}
	if name == "history markdown" {
		prose := withoutFences(out)
		if strings.Contains(prose, "`|") {
			t.Errorf("the history's Markdown holds a raw backtick and pipe outside a code block:\n%s", out)
		}
	}
	if strings.Contains(name, "html") && strings.Contains(out, "<script") {
		t.Errorf("%s holds a <script> tag", name)
	}
	if name == "bisect text" {
		for _, l := range strings.Split(out, "\n") {
			if text.IsCommand(l) {
				t.Errorf("bisect's text holds a workflow command: %q", l)
			}
		}
	}
}

func collectStrings(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, x := range v {
			collectStrings(x, out)
		}
	case map[string]any:
		for k, x := range v {
			*out = append(*out, k)
			collectStrings(x, out)
		}
	}
}

// hostileResult is the failing fixture with h in the names, subjects, refs, messages, notes and
// constant-time sites that come from the pull request.
func hostileResult(h string) *record.Result {
	r := reportfixture.Fail()
	r.Base.Ref, r.Base.Subject, r.Head.Subject = h, h, h
	for i := range r.Benchmarks {
		r.Benchmarks[i].Name = h + r.Benchmarks[i].Name
	}
	r.Benchmarks[0].Note = h
	r.Failures[0].Name = h
	r.Failures[0].Message = "panic: " + h + "\n" + h
	r.Functional.Head.Output = h + "\n```\n</details>\n"
	r.Differential.Ciphers[0].Name = h
	r.Differential.Added = []string{h}
	r.Sizes.Symbols[0].Name = h
	r.Verdict.Reasons = append(r.Verdict.Reasons, h)
	r.Notes = append(r.Notes, h)
	site := record.CTSite{Function: h, Offset: 0x20, Inlined: h, File: h + ".go", Line: 3, Kind: "load",
		Table: h, TableSize: 256, Lines: 4, LinesPerLookup: 4}
	side := &record.CTSide{Branches: []record.CTSite{site}, Loads: []record.CTSite{site}}
	r.ConstantTime = &record.ConstantTime{Status: record.CTChecked, Mode: record.CTFailNew, Tool: h, Secrets: 4,
		Dir: "cipher/des", Operations: []record.CTOperation{
			{Constructor: h, Operation: h, Base: &record.CTSide{}, Head: side},
			{Constructor: h, Operation: "Decrypt", Base: &record.CTSide{Error: h}, Head: side},
		}, NotTraced: []record.CTNotTraced{{Constructor: h, Package: h}}}
	return r
}

// hostileBisect is a bisection that found a culprit whose subject, change, notes and steps carry
// h.
func hostileBisect(h string) *bisect.Report {
	c := bisect.Commit{SHA: strings.Repeat("c", 40), Subject: h}
	change := &bisect.Change{Benchmark: h, Unit: "sec/op", Class: "slower", Lane: "time", Pct: 12, Lo: 10, Hi: 14}
	return &bisect.Report{Check: "time", Status: bisect.StatusCulprit, Good: bisect.Commit{SHA: strings.Repeat("a", 40),
		Subject: h}, Bad: c, Commits: 3, Culprit: &bisect.Culprit{Commit: c, Index: 2, Parent: c, Change: change,
		ParentChange: change, Confirmed: true}, Notes: []string{h},
		Steps: []bisect.Step{{N: 1, Role: bisect.RoleBad, Head: c, Base: c, Word: "slower", Change: change},
			{N: 2, Role: bisect.RoleSearch, Head: c, Base: c, Word: "skip", Reason: h}}, Comparisons: 2}
}

// hostileHistory is a history of one series named h with a change point, and an orphaned record
// whose subject is h.
func hostileHistory(h string) *history.History {
	s := &history.Series{Package: h, Name: h, Unit: "sec/op"}
	for i, v := range []float64{1e-7, 1e-7, 1e-7, 2e-7, 2e-7, 2e-7} {
		s.Points = append(s.Points, history.Point{Commit: strings.Repeat(string(rune('a'+i)), 40), Value: v})
	}
	s.Changes = []history.Change{{Commit: s.Points[3].Commit, Good: s.Points[1].Commit, Bad: s.Points[4].Commit}}
	s.Changes[0].Index, s.Changes[0].Change = 3, 1
	return &history.History{Series: []*history.Series{s},
		Path:    []history.Entry{{Commit: s.Points[0].Commit, Subject: h}},
		Orphans: []history.Entry{{Commit: strings.Repeat("f", 40), Subject: h}}}
}
