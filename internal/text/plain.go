// Package text makes untrusted text safe to print. Everything that comes from a repository or an
// artifact — benchmark names, panic messages, test output, commit subjects, symbol names, file
// paths, refs — goes through one of its functions before it reaches an output: Plain for one line
// of a terminal, Lines for several, Markdown for a table cell or inline Markdown, CodeSpan for a
// short opaque value, Block for multi-line text in Markdown, and Inert for a GitHub Actions log.
// Plural and Commas word and group counts the same way in every output.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plain makes untrusted s safe for one line of a terminal or a fenced code block: control
// characters (including the ESC that starts a colour sequence) and bidirectional overrides become
// U+FFFD, newlines and tabs become spaces, and an HTML comment opener gets a zero-width space (see
// NoMarker).
func Plain(s string) string {
	return NoMarker(strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unsafeRune(r):
			return utf8.RuneError
		}
		return r
	}, s))
}

// Lines is Plain for multi-line text: it keeps newlines (normalising \r\n) and tabs.
func Lines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return NoMarker(strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return ' '
		case unsafeRune(r):
			return utf8.RuneError
		}
		return r
	}, s))
}

// NoMarker breaks every "<!--" in untrusted s with a zero-width space, so that text shown in a code
// span or block never carries perfgate's hidden marker (or any HTML comment) verbatim: the comment
// body holds the marker once, at its start.
func NoMarker(s string) string {
	return strings.ReplaceAll(s, "<!--", "<!\u200b--")
}

// unsafeRune reports whether r must not reach a reader verbatim: control characters (a terminal
// escape sequence starts with one) and the bidirectional overrides that make text read differently
// from how it is stored.
func unsafeRune(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return true
	case unicode.IsControl(r):
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f':
		return true
	}
	return false
}
