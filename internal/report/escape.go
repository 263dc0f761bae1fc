package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/text"
)

// Cell escapes untrusted s for a table cell, first shortening it to at most max runes.
func Cell(s string, max int) string {
	return text.Markdown(Clip(s, max))
}

// Clip shortens s to at most max runes, ending it with "…" when it cut.
func Clip(s string, max int) string {
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

// ClipHead keeps the first maxLines lines and at most maxBytes bytes of s, cutting at a line (or
// rune) boundary and saying what it left out. It suits panic messages, whose first lines matter
// most.
func ClipHead(s string, maxBytes, maxLines int) string {
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
		"\n")+1, text.Commas(int64(len(rest))))
}

// ClipTail keeps the last maxLines lines and at most maxBytes bytes of s. It suits test output,
// whose end says what failed.
func ClipTail(s string, maxBytes, maxLines int) string {
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
	return fmt.Sprintf("… %d earlier lines (%s bytes) omitted\n", strings.Count(head, "\n"), text.Commas(int64(len(head)))) +
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
