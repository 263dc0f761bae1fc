package text

import (
	"strings"
	"testing"
)

func TestPlain(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Encrypt/des/single", "Encrypt/des/single"},
		{"a\tb\r\nc", "a b  c"},
		{"esc\x1b[31mred", "esc\uFFFD[31mred"},
		{"bidi\u202eevil\u2066x\u2069\u200f", "bidi\uFFFDevil\uFFFDx\uFFFD\uFFFD"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"del\x7f c1\u0085", "del\uFFFD c1\uFFFD"},
		{"<!-- perfgate:comment -->", "<!\u200b-- perfgate:comment -->"},
		{"µs −3% `x` |", "µs −3% `x` |"},
	} {
		if got := Plain(tc.in); got != tc.want {
			t.Errorf("Plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := Lines("a\r\nb\tc\rd\x1b\n<!--"), "a\nb\tc d\uFFFD\n<!\u200b--"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Encrypt/des/single", "Encrypt/des/single"},
		{"<b>x</b>|*y*", `&lt;b&gt;x&lt;/b&gt;\|\*y\*`},
		{"a_b `c` [d](e) ~f~ #g !h $i$ {j}", "a\\_b \\`c\\` \\[d\\](e) \\~f\\~ \\#g \\!h \\$i\\$ \\{j\\}"},
		{`back\slash`, `back\\slash`},
		{"&lt; & &#60;", "&amp;lt; &amp; &amp;\\#60;"},
		{"line1\r\nline2\nline3\ttab", "line1 line2 line3 tab"},
		{"- item", `\- item`},
		{"+ item", `\+ item`},
		{"=== ", `\=== `},
		{"-x 6.8.0-1", "-x 6.8.0-1"},
		{"1.5", "1.5"},
		{"12. ordered", `12\. ordered`},
		{"3) ordered", `3\) ordered`},
		{"v1.2 (x)", "v1.2 (x)"},
		{"esc\x1b[31mred", "esc\uFFFD\\[31mred"},
		{"bidi\u202eevil", "bidi\uFFFDevil"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"µs −3%", "µs −3%"},
		{"<!-- perfgate:comment -->", "&lt;\\!-- perfgate:comment --&gt;"},
		{"ping @octocat and @org/team", "ping @\u200boctocat and @\u200borg/team"},
	} {
		if got := Markdown(tc.in); got != tc.want {
			t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBlockAndCodeSpan(t *testing.T) {
	for _, tc := range []struct {
		in    string
		fence string
	}{
		{"plain", "```"},
		{"one ` two `` three", "```"},
		{"has ``` inside", "````"},
		{"has `````` six", "```````"},
	} {
		got := Block(tc.in)
		if !strings.HasPrefix(got, tc.fence+"text\n") || !strings.HasSuffix(got, "\n"+tc.fence) {
			t.Errorf("Block(%q) = %q, want fence %s", tc.in, got, tc.fence)
		}
		if f := Fence(tc.in); f != tc.fence {
			t.Errorf("Fence(%q) = %q, want %s", tc.in, f, tc.fence)
		}
	}
	if got, want := Block(" \n"), "```text\n(no output)\n```"; got != want {
		t.Errorf("Block(blank) = %q, want %q", got, want)
	}
	if got, want := Block("x\n</details>\n<!--"), "```text\nx\n</details>\n<!\u200b--\n```"; got != want {
		t.Errorf("Block = %q, want %q", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"a`b|c", "``a`b\\|c``"},
		{"`x", "`` `x ``"},
		{"", ""},
		{"x\x1b\u202e", "`x\uFFFD\uFFFD`"},
	} {
		if got := CodeSpan(tc.in); got != tc.want {
			t.Errorf("CodeSpan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestInert(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a::b", "a::b"}, // not at the start of a line: the runner ignores it
		{"::add-mask::ghs_x", `\::add-mask::ghs_x`},
		{"  \t::warning::x", "  \t\\::warning::x"},
		{"first\n::error::x\nlast", "first\n\\::error::x\nlast"},
		{"\r\n::debug::x", "\r\n\\::debug::x"},
		{`repository "m/x ##[add-mask]ghs ##[error]forged"`, `repository "m/x ##\[add-mask]ghs ##\[error]forged"`},
		{"###[group]x", `###\[group]x`},
	} {
		got := Inert(c.in)
		if got != c.want {
			t.Errorf("Inert(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, l := range strings.Split(got, "\n") {
			if IsCommand(l) {
				t.Errorf("Inert(%q): the runner would still obey %q", c.in, l)
			}
		}
	}
	if !IsCommand("x ##[error]y") || !IsCommand(" ::warning::y") || IsCommand("x::y") {
		t.Errorf("IsCommand misses a form")
	}
	if got, want := InertLegacy("::x:: ##[error]y"), `::x:: ##\[error]y`; got != want {
		t.Errorf("InertLegacy = %q, want %q", got, want)
	}
}

func TestPluralAndCommas(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Plural(0, "commit"), "0 commits"},
		{Plural(1, "commit"), "1 commit"},
		{Plural(1234, "benchmark"), "1234 benchmarks"},
		{PluralOf(1, "branch", "branches"), "1 branch"},
		{PluralOf(3, "branch", "branches"), "3 branches"},
		{PluralCommas(1, "cipher"), "1 cipher"},
		{PluralCommas(1234, "cipher"), "1,234 ciphers"},
		{Commas(0), "0"},
		{Commas(999), "999"},
		{Commas(1000), "1,000"},
		{Commas(1234567), "1,234,567"},
		{Commas(-1234), "−1,234"},
		{Commas(-12), "−12"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""}, {[]int{8}, "8"}, {[]int{1, 2, 3, 5, 7, 8}, "1–3, 5, 7–8"}, {[]int{0, 1, 2, 64}, "0–2, 64"},
	} {
		if got := Ranges(tc.in); got != tc.want {
			t.Errorf("Ranges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
