package pipeline

import (
	"fmt"
	"io"
)

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
