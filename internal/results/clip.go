package results

import (
	"fmt"
	"unicode/utf8"
)

// MaxLog is how many bytes of a child's output perfgate keeps in a log of the results directory.
const MaxLog = 1 << 20

// HeadTail returns b whole when it holds at most max bytes; otherwise its first quarter and its
// last three quarters of max bytes (cut at character boundaries) around a line that says how much
// was left out. Logs keep both ends: the command line and the first error at the head, how it ended
// at the tail.
func HeadTail(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	head := max / 4
	for head > 0 && !utf8.RuneStart(b[head]) {
		head--
	}
	tail := len(b) - (max - head)
	for tail < len(b) && !utf8.RuneStart(b[tail]) {
		tail++
	}
	note := fmt.Sprintf("\n… %d bytes left out (perfgate keeps the first and last %d bytes of a log) …\n", tail-head, max)
	out := make([]byte, 0, head+len(note)+len(b)-tail)
	out = append(out, b[:head]...)
	out = append(out, note...)
	return append(out, b[tail:]...)
}
