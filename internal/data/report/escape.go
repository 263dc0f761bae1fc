package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Everything that comes from the pull request — benchmark names, panic messages, test output,
// commit subjects, symbol names, refs — goes through one of the helpers in this file before it
// reaches a renderer's output: EscapeMarkdown for table cells and inline text, codeSpan for short
// opaque values such as digests, codeBlock for multi-line text, and plain for the terminal.

// EscapeMarkdown makes s inert inline Markdown: safe in a table cell, a list item or a paragraph.
// It backslash-escapes the characters GitHub Flavored Markdown gives meaning to inline (\ ` * _ [ ]
// | # ~ ! $ { }), turns < > & into HTML entities so no tag or entity survives, escapes a leading
// list or heading marker, and folds newlines, tabs and other control characters into spaces or
// U+FFFD, so the result is always a single line. Invalid UTF-8 becomes U+FFFD.
//
// It does not stop GitHub from linking @mentions, #123 references or bare URLs that appear in s.
func EscapeMarkdown(s string) string {
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

// cell escapes untrusted s for a table cell, first shortening it to at most max runes.
func cell(s string, max int) string {
	return EscapeMarkdown(clip(s, max))
}

// clip shortens s to at most max runes, ending it with "…" when it cut.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// plain makes untrusted s safe for one line of a terminal or a fenced code block: control
// characters (including the ESC that starts a colour sequence) and bidirectional overrides become
// U+FFFD, newlines and tabs become spaces, and an HTML comment opener gets a zero-width space (see
// noMarker).
func plain(s string) string {
	return noMarker(strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unsafeRune(r):
			return utf8.RuneError
		}
		return r
	}, s))
}

// noMarker breaks every "<!--" in untrusted s with a zero-width space, so that text shown in a code
// span or block never carries perfgate's hidden marker (or any HTML comment) verbatim: the comment
// body holds the marker once, at its start.
func noMarker(s string) string {
	return strings.ReplaceAll(s, "<!--", "<!\u200b--")
}

// plainLines is plain for multi-line text: it keeps newlines (normalising \r\n) and tabs.
func plainLines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return noMarker(strings.Map(func(r rune) rune {
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

// codeSpan renders untrusted one-line s as an inline code span that is also safe in a table cell:
// the backtick delimiter is longer than any backtick run inside, and | is escaped (GFM splits cells
// before it parses code spans).
func codeSpan(s string) string {
	s = plain(s)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + strings.ReplaceAll(s, "|", `\|`) + fence
}

// codeBlock renders untrusted multi-line s as a fenced code block whose fence is longer than any
// backtick run in s, so nothing inside can close it; HTML such as </details> inside is shown, not
// parsed.
func codeBlock(s string) string {
	s = strings.TrimRight(plainLines(s), "\n ")
	if s == "" {
		s = "(no output)"
	}
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "text\n" + s + "\n" + fence
}

// clipHead keeps the first maxLines lines and at most maxBytes bytes of s, cutting at a line (or
// rune) boundary and saying what it left out. It suits panic messages, whose first lines matter
// most.
func clipHead(s string, maxBytes, maxLines int) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	cut := len(s)
	if n := nthIndex(s, '\n', maxLines); n >= 0 {
		cut = n
	}
	if cut > maxBytes {
		cut = maxBytes
		if i := strings.LastIndexByte(s[:cut], '\n'); i > 0 {
			cut = i
		}
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	if cut >= len(s) {
		return s
	}
	rest := strings.TrimPrefix(s[cut:], "\n")
	return s[:cut] + fmt.Sprintf("\n… %d more lines (%s bytes) omitted", strings.Count(strings.TrimSuffix(rest, "\n"),
		"\n")+1, commas(int64(len(rest))))
}

// clipTail keeps the last maxLines lines and at most maxBytes bytes of s. It suits test output,
// whose end says what failed.
func clipTail(s string, maxBytes, maxLines int) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	start := 0
	lines := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			lines++
			if lines == maxLines {
				start = i + 1
				break
			}
		}
	}
	if len(s)-start > maxBytes {
		start = len(s) - maxBytes
		if i := strings.IndexByte(s[start:], '\n'); i >= 0 && i < len(s)-start-1 {
			start += i + 1
		}
		for start < len(s) && !utf8.RuneStart(s[start]) {
			start++
		}
	}
	if start == 0 {
		return s
	}
	head := s[:start]
	return fmt.Sprintf("… %d earlier lines (%s bytes) omitted\n", strings.Count(head, "\n"), commas(int64(len(head)))) +
		s[start:]
}

// nthIndex returns the index of the n-th occurrence of c in s, or -1.
func nthIndex(s string, c byte, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n--
			if n == 0 {
				return i
			}
		}
	}
	return -1
}
