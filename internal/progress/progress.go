// Package progress reports a benchmark run's progress on standard error: one line updated in
// place with "\r" on a terminal, plain lines (one per calibrated benchmark, failure, warning and
// finished round) elsewhere, such as a CI log.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/record"
)

// Reporter reports a run's progress. On a terminal it keeps one line up to date with "\r"
// (benchmark, side, round, runs done, ETA); elsewhere, such as a CI log, it prints a plain line per
// finished round. Failures and warnings are whole lines on both. A nil writer reports nothing.
type Reporter struct {
	w    io.Writer
	tty  bool
	open bool // a terminal line is on screen without its newline
	// Deadline is the end of a budgeted run's time budget, zero without one: the lines then show
	// the time left.
	Deadline time.Time
}

// left returns ", 1m3s of budget left" for a budgeted run, "" otherwise.
func (p *Reporter) left() string {
	if p.Deadline.IsZero() {
		return ""
	}
	return fmt.Sprintf(", %s of budget left", max(time.Until(p.Deadline), 0).Round(time.Second))
}

// ttyWidth bounds the updating line so that it never wraps, which would break the "\r" update.
const ttyWidth = 79

// New returns a Reporter writing to w; a nil w reports nothing.
func New(w io.Writer) *Reporter {
	return &Reporter{w: w, tty: isTerminal(w)}
}

// isTerminal reports whether w is a character device, the check a terminal needs and a log file or
// pipe fails.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// line prints a whole line, first clearing an updating line.
func (p *Reporter) line(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.clear()
	fmt.Fprintf(p.w, "perfgate: "+format+"\n", args...)
}

// status replaces the updating line (terminal only).
func (p *Reporter) status(format string, args ...any) {
	if p.w == nil || !p.tty {
		return
	}
	s := fmt.Sprintf(format, args...)
	if r := []rune(s); len(r) > ttyWidth {
		s = string(r[:ttyWidth-1]) + "…"
	}
	fmt.Fprintf(p.w, "\r\033[K%s", s)
	p.open = true
}

// clear erases an updating line.
func (p *Reporter) clear() {
	if p.open {
		fmt.Fprint(p.w, "\r\033[K")
		p.open = false
	}
}

// Stop ends an updating line that is still open, e.g. after a cancelled run.
func (p *Reporter) Stop() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// Calibrating announces the calibration of the top-level benchmark top.
func (p *Reporter) Calibrating(top string) {
	if p.tty {
		p.status("calibrating %s", top)
		return
	}
	p.line("calibrating %s", top)
}

// Calibrated reports that calibration found leaves benchmarks in d.
func (p *Reporter) Calibrated(leaves int, d time.Duration) {
	p.line("calibrated %s in %s", nouns(leaves, "benchmark"), d.Round(time.Millisecond))
}

// Fitted reports the run length a budget chose for leaves benchmarks, when it shortened their runs;
// floored says that the rounds a budget should allow do not fit it even so.
func (p *Reporter) Fitted(leaves, rounds int, runTime, benchTime time.Duration, floored bool) {
	switch {
	case floored:
		p.line("runs of %s; fewer than %d rounds of %d benchmarks fit the budget: a longer budget (or fewer "+
			"benchmarks, -bench) would settle more", runTime, rounds, leaves)
	case runTime < benchTime:
		p.line("runs shortened from %s to %s: short runs settle more per second of budget", benchTime, runTime)
	}
}

// Running announces run i (0-based) of total: leaf name on side in round (0-based) of rounds, with
// eta left.
func (p *Reporter) Running(name string, side record.Side, round, rounds, i, total int, eta time.Duration) {
	p.status("[%d/%d] round %d/%d %s %s, ETA %s%s", i+1, total, round+1, rounds, side, name, eta.Round(time.Second),
		p.left())
}

// RoundDone reports a finished round on a log (a terminal shows it on the updating line already).
func (p *Reporter) RoundDone(round, rounds int, elapsed, eta time.Duration) {
	if p.tty {
		return
	}
	p.line("round %d/%d done after %s, ETA %s%s", round+1, rounds, elapsed.Round(time.Millisecond), max(eta,
		0).Round(time.Second), p.left())
}

// Looked reports the look after stage k of a budgeted run: settled benchmarks stop, the others go
// on.
func (p *Reporter) Looked(k, rounds, settled, unsettled int, left time.Duration) {
	p.line("stage %d (%d rounds): %s settled, %d still timed, %s of budget left",
		k, rounds, nouns(settled, "more benchmark"), unsettled, max(left, 0).Round(time.Second))
}

// Failed reports a Failure by its first line.
func (p *Reporter) Failed(f record.Failure) {
	where := "calibration"
	if f.Round > 0 {
		where = fmt.Sprintf("round %d slot %d", f.Round, f.Slot)
	}
	first, _, _ := strings.Cut(f.Message, "\n")
	p.line("%s failed on %s (%s, %s): %s", f.Name, f.Side, where, f.Kind, first)
}

// Warn reports a warning.
func (p *Reporter) Warn(msg string) {
	p.line("warning: %s", msg)
}

// Done reports the end of a run: its samples and failures, and how long it took.
func (p *Reporter) Done(samples, failures int, elapsed time.Duration) {
	p.line("%s, %s in %s", nouns(samples, "sample"), nouns(failures, "failure"), elapsed.Round(time.Millisecond))
}

// nouns is "1 sample" or "n samples".
func nouns(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
