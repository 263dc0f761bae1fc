package ghaction

import (
	"strings"
	"testing"
)

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
}
