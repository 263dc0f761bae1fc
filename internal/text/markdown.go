package text

import (
	"strings"
	"unicode/utf8"
)

// Markdown makes s inert inline Markdown: safe in a table cell, a list item or a paragraph. It
// backslash-escapes the characters GitHub Flavored Markdown gives meaning to inline (\ ` * _ [ ] |
// # ~ ! $ { }), turns < > & into HTML entities so no tag or entity survives, escapes a leading list
// or heading marker, breaks @mentions with a zero-width space, and folds newlines, tabs and other
// control characters into spaces or U+FFFD, so the result is always a single line. Invalid UTF-8
// becomes U+FFFD.
//
// It does not stop GitHub from linking #123 references or bare URLs that appear in s.
func Markdown(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// \r\n is one line break: let the \n become the space.
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case strings.ContainsRune("\\`*_[]|#~!${}", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case i == 0 && r == '=', i == 0 && (r == '-' || r == '+') && spaceOrEnd(s[1:]):
			// A leading "- " or "+ " would start a list, "===" underline a heading.
			b.WriteByte('\\')
			b.WriteRune(r)
		case (r == '.' || r == ')') && i > 0 && isDigits(s[:i]) && spaceOrEnd(s[i+1:]):
			// A leading "1. " or "1) " would start an ordered list.
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '@':
			// "@name" would notify a user or team: a zero-width space after the @ keeps the text
			// and drops the ping.
			b.WriteString("@\u200b")
		case unsafeRune(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// spaceOrEnd reports whether s is empty or starts with white space.
func spaceOrEnd(s string) bool {
	return s == "" || strings.ContainsRune(" \t\r\n", rune(s[0]))
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// Fence returns the backtick fence of a code block that holds s: at least three backticks, and
// more than any run of backticks in s, so nothing inside can close the block.
func Fence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

// CodeSpan renders untrusted one-line s as an inline code span that is also safe in a table cell:
// s goes through Plain, the backtick delimiter is longer than any backtick run inside, and | is
// escaped (GFM splits cells before it parses code spans).
func CodeSpan(s string) string {
	s = Plain(s)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + strings.ReplaceAll(s, "|", `\|`) + fence
}

// Block renders untrusted multi-line s as a fenced "text" code block (see Fence) after Lines, so
// HTML such as </details> inside is shown, not parsed; empty s is shown as "(no output)".
func Block(s string) string {
	s = strings.TrimRight(Lines(s), "\n ")
	if s == "" {
		s = "(no output)"
	}
	fence := Fence(s)
	return fence + "text\n" + s + "\n" + fence
}
