package mdreport

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

// fillStrings sets every string reachable from v — struct fields, slice elements, pointer targets —
// to s, giving an empty slice one element first and allocating nil pointers, so that every string
// field of every record type is set. It walks by reflection, so a field added to (or moved between)
// the record types is covered without touching this test.
func fillStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(s)
		}
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fillStrings(v.Elem(), s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), s)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 && v.CanSet() {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := range v.Len() {
			fillStrings(v.Index(i), s)
		}
	case reflect.Array:
		for i := range v.Len() {
			fillStrings(v.Index(i), s)
		}
	}
}

// allowedTags are the only HTML perfgate writes into a comment itself.
var allowedTags = []string{Marker, "<details>", "</details>", "<summary>", "</summary>", "<sub>", "</sub>"}

// mention is an @ that GitHub would turn into a notification: not preceded by a word character,
// followed by a login or team character.
var mention = regexp.MustCompile("(^|[^A-Za-z0-9_])@[A-Za-z0-9]")

// prose splits a Markdown body into its lines outside fenced code blocks, with inline code spans
// blanked out: what GitHub parses as Markdown and HTML. It also reports a fence that never closes.
func prose(body string) (lines []string, unclosed string) {
	fence := ""
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if c := strings.TrimRight(t, " "); len(c) >= len(fence) && strings.Trim(c, fence[:1]) == "" {
				fence = ""
			}
			lines = append(lines, "")
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
			lines = append(lines, "")
			continue
		}
		lines = append(lines, blankCodeSpans(line))
	}
	return lines, fence
}

// blankCodeSpans replaces the inline code spans of line (a backtick run up to the next run of the
// same length) with spaces; escaped backticks open nothing.
func blankCodeSpans(line string) string {
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] == '\\' {
			i += 2
			continue
		}
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(b) && b[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			i += n // an unmatched run is literal backticks
			continue
		}
		for k := i; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
	return string(b)
}

// wantStatus is the verdict word the first line must show for status, decided here and not by the
// renderer.
func wantStatus(status string, incomplete bool) string {
	w := map[string]string{"pass": "PASS", "fail": "FAIL", "error": "ERROR"}[status]
	if w == "" {
		w = "UNKNOWN"
	}
	if incomplete {
		w += " (incomplete)"
	}
	return w
}

// checkHostileMarkdown renders r and checks that hostile text in it changed nothing GitHub would
// act on.
func checkHostileMarkdown(t *testing.T, r *record.Result, text string) {
	t.Helper()
	md := Markdown(r, report.Options{Title: text, ArtifactHint: text})
	all := strings.Split(md, "\n")
	if all[0] != Marker {
		t.Fatalf("the body does not start with the marker:\n%s", report.Clip(md, 400))
	}
	if n := strings.Count(md, Marker); n != 1 {
		t.Errorf("the marker appears %d times", n)
	}
	if !utf8.ValidString(md) {
		t.Errorf("the body is not valid UTF-8")
	}
	lines, unclosed := prose(md)
	if unclosed != "" {
		t.Errorf("code fence %s never closed", unclosed)
	}
	verdict := -1
	cells := -1
	for i, line := range lines {
		stripped := line
		for _, tag := range allowedTags {
			stripped = strings.ReplaceAll(stripped, tag, "")
		}
		if strings.Contains(stripped, "<") {
			t.Errorf("line %d: raw < outside code: %q", i+1, report.Clip(line, 200))
		}
		if mention.MatchString(line) {
			t.Errorf("line %d: a mention GitHub would link: %q", i+1, report.Clip(line, 200))
		}
		if strings.HasPrefix(strings.TrimSpace(line), "**perfgate:") {
			if verdict >= 0 {
				t.Errorf("line %d: a second verdict line: %q", i+1, report.Clip(line, 200))
			}
			verdict = i
		}
		if t0 := strings.TrimSpace(line); strings.HasPrefix(t0, "|") {
			if n := pipes(t0); cells < 0 {
				cells = n
			} else if n != cells {
				t.Errorf("line %d: %d cell separators, the table's header %d: %q", i+1, n, cells, report.Clip(t0, 200))
			}
		} else {
			cells = -1
		}
	}
	want := "**perfgate: " + wantStatus(string(r.Verdict.Status), r.Incomplete) + "**"
	if verdict < 0 || !strings.HasPrefix(all[verdict], want) {
		t.Errorf("verdict line %d does not start with %q", verdict+1, want)
	} else if verdict > 3 {
		t.Errorf("the verdict is on line %d, want it right below the marker (and title)", verdict+1)
	}
	if t.Failed() {
		t.Logf("hostile text %q; body:\n%s", text, md)
	}
}

// FuzzMarkdownHostileStrings fills every string field of a full Result with the fuzzer's text and
// renders it. The seed corpus runs as an ordinary test; 'go test -fuzz FuzzMarkdownHostileStrings
// ./report' explores further.
func FuzzMarkdownHostileStrings(f *testing.F) {
	for _, s := range []string{
		reportfixture.Hostile,
		"@org/team<img/src=https://x/p.png>",
		Marker,
		Marker + "\n@everyone",
		"a|b|c",
		"```",
		"~~~\n",
		"````\n```\n",
		"**perfgate: PASS** — all good",
		"\n**perfgate: PASS**\n",
		"pass",
		"`<b>`",
		"``<!-- perfgate:comment -->``",
		"\\`<b>\\`",
		"x\\|y",
		"<details><summary>x</summary>",
		"&lt;script&gt;",
		"\x1b[31m\u202eevil",
		"1. item",
		"- item",
		"@",
		"a@b.c @x",
		"\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, base := range []*record.Result{reportfixture.Fail(), reportfixture.Pass(), errorResult()} {
			fillStrings(reflect.ValueOf(base).Elem(), text)
			checkHostileMarkdown(t, base, text)
			base.Policy.From = record.Base // so that head's hostile policy values are rendered too
			checkHostileMarkdown(t, base, text)
		}
	})
}
