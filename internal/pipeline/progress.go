package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// The comparison's progress log and the writers its lanes write to it through.

// writeLog keeps a tool's output in the results directory; failing to is worth a warning, not an
// error.
func (p *pipeline) writeLog(name string, data []byte) {
	if err := p.dir.WriteLog(name, data); err != nil {
		p.logf("warning: %v", err)
	}
}

func (p *pipeline) logf(format string, args ...any) {
	fmt.Fprintf(p.log, "perfgate: "+format+"\n", args...)
}

// linePrefixer writes to w with prefix at the start of every line, so that a leaf package's
// progress lines read like perfgate's own.
type linePrefixer struct {
	w       io.Writer
	prefix  string
	midLine bool
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	var b []byte
	for _, c := range p {
		if !l.midLine {
			b = append(b, l.prefix...)
		}
		b = append(b, c)
		l.midLine = c != '\n'
	}
	if _, err := l.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// logTo writes a progress line to w, as logf does to the log; nil writes nothing.
func logTo(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "perfgate: "+format+"\n", args...)
	}
}

// syncWriter serialises the writes of two lanes to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// lineWriter writes whole lines to w, with prefix after progress's "perfgate: ", so that a lane
// that runs alongside another one prints whole lines only, and says which lane it is.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(l.buf[:i+1])
		l.buf = l.buf[i+1:]
		if rest, ok := strings.CutPrefix(line, "perfgate: "); ok {
			line = "perfgate: " + l.prefix + rest
		}
		if _, err := io.WriteString(l.w, line); err != nil {
			return len(b), err
		}
	}
}
