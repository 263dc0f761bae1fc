package benchrun

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/record"
)

// progress reports a run's progress. On a terminal it keeps one line up to date with "\r"
// (benchmark, side, round, runs done, ETA); elsewhere, such as a CI log, it prints a plain line per
// finished round. Failures and warnings are whole lines on both. A nil writer reports nothing.
type progress struct {
	w    io.Writer
	tty  bool
	open bool // a terminal line is on screen without its newline
	// deadline is the end of a budgeted run's time budget, zero without one: the lines then show
	// the time left.
	deadline time.Time
}

// left returns ", 1m3s of budget left" for a budgeted run, "" otherwise.
func (p *progress) left() string {
	if p.deadline.IsZero() {
		return ""
	}
	return fmt.Sprintf(", %s of budget left", max(time.Until(p.deadline), 0).Round(time.Second))
}

// ttyWidth bounds the updating line so that it never wraps, which would break the "\r" update.
const ttyWidth = 79

func newProgress(w io.Writer) *progress {
	return &progress{w: w, tty: isTerminal(w)}
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
func (p *progress) line(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.clear()
	fmt.Fprintf(p.w, "perfgate: "+format+"\n", args...)
}

// status replaces the updating line (terminal only).
func (p *progress) status(format string, args ...any) {
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

func (p *progress) clear() {
	if p.open {
		fmt.Fprint(p.w, "\r\033[K")
		p.open = false
	}
}

// stop ends an updating line that is still open, e.g. after a cancelled run.
func (p *progress) stop() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

func (p *progress) calibrating(top string) {
	if p.tty {
		p.status("calibrating %s", top)
		return
	}
	p.line("calibrating %s", top)
}

func (p *progress) calibrated(leaves int, d time.Duration) {
	p.line("calibrated %s in %s", nouns(leaves, "benchmark"), d.Round(time.Millisecond))
}

// fitted reports the run length a budget chose for leaves benchmarks, when it shortened their runs;
// floored says that BudgetRounds rounds of them do not fit the budget even so.
func (p *progress) fitted(leaves int, runTime, benchTime time.Duration, floored bool) {
	switch {
	case floored:
		p.line("runs of %s; fewer than %d rounds of %d benchmarks fit the budget: a longer budget (or fewer "+
			"benchmarks, -bench) would settle more", runTime, BudgetRounds, leaves)
	case runTime < benchTime:
		p.line("runs shortened from %s to %s: short runs settle more per second of budget", benchTime, runTime)
	}
}

// running announces run i (0-based) of total: leaf name on side in round (0-based) of rounds, with
// eta left.
func (p *progress) running(name string, side record.Side, round, rounds, i, total int, eta time.Duration) {
	p.status("[%d/%d] round %d/%d %s %s, ETA %s%s", i+1, total, round+1, rounds, side, name, eta.Round(time.Second),
		p.left())
}

// roundDone reports a finished round on a log (a terminal shows it on the updating line already).
func (p *progress) roundDone(round, rounds int, elapsed, eta time.Duration) {
	if p.tty {
		return
	}
	p.line("round %d/%d done after %s, ETA %s%s", round+1, rounds, elapsed.Round(time.Millisecond), max(eta,
		0).Round(time.Second), p.left())
}

// looked reports the look after stage k of a budgeted run: settled benchmarks stop, the others go
// on.
func (p *progress) looked(k, rounds, settled, unsettled int, left time.Duration) {
	p.line("stage %d (%d rounds): %s settled, %d still timed, %s of budget left",
		k, rounds, nouns(settled, "more benchmark"), unsettled, max(left, 0).Round(time.Second))
}

func (p *progress) failed(f record.Failure) {
	where := "calibration"
	if f.Round > 0 {
		where = fmt.Sprintf("round %d slot %d", f.Round, f.Slot)
	}
	first, _, _ := strings.Cut(f.Message, "\n")
	p.line("%s failed on %s (%s, %s): %s", f.Name, f.Side, where, f.Kind, first)
}

func (p *progress) warn(msg string) {
	p.line("warning: %s", msg)
}

func (p *progress) done(samples, failures int, elapsed time.Duration) {
	p.line("%s, %s in %s", nouns(samples, "sample"), nouns(failures, "failure"), elapsed.Round(time.Millisecond))
}

// nouns is "1 sample" or "n samples".
func nouns(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
