package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// The checks a bisection can search for.
const (
	CheckTime         = "time"         // the first commit slower than GOOD beyond the threshold
	CheckDifferential = "differential" // the first commit whose outputs differ from GOOD's
)

// Config is one bisection.
type Config struct {
	// Path is the first-parent path from GOOD to BAD: GOOD first, BAD last, at least two commits.
	Path []Commit
	// Oracle compares a commit with GOOD (and the culprit with its parent).
	Oracle Oracle
	// Check is CheckTime or CheckDifferential; it only names the outcomes in the report.
	Check string
	// Threshold is the threshold of the comparisons, in percent: BAD's change counts as larger than
	// the culprit's when their intervals are apart and BAD's exceeds the culprit's by more than
	// half of it.
	Threshold float64
	// Tries is how many times a step that stays inconclusive runs, each with more budget; 0 means
	// 2.
	Tries int
	// Out is the bisection's results directory: bisect.json is written there after every step. ""
	// writes nothing.
	Out string
	// Log receives progress lines ("perfgate: bisect: …") with an estimate of the time left; nil
	// discards them.
	Log io.Writer

	now clock // time.Now unless a test sets it
}

// Search runs the bisection: it checks BAD against GOOD, halves the path until the first commit
// that is slower than GOOD is next to one that is not (skipping, like git bisect skip, commits that
// do not build or cannot be compared, and re-running inconclusive steps with more budget), then
// confirms the culprit against its parent.
//
// About ⌈log₂ n⌉ + 2 comparisons for n commits after GOOD: BAD, the halvings, and the confirmation
// (none when the culprit's parent is GOOD: its step against GOOD is that comparison). Skipped
// commits and re-runs add to it.
//
// The Report says what was found; its Status is StatusUndecided when BAD cannot be tested or
// skipped commits leave several candidates. An error means the bisection could not go on (the
// oracle's error, an interruption): the Report then holds the steps so far.
func Search(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Path) < 2 {
		return nil, errors.New("bisect: the path needs GOOD and at least one commit after it")
	}
	if cfg.Tries <= 0 {
		cfg.Tries = 2
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	n := len(cfg.Path) - 1
	s := &search{cfg: cfg, started: cfg.now(), rep: &Report{
		Schema: ReportSchema, Check: cfg.Check, Good: cfg.Path[0], Bad: cfg.Path[n], Commits: n, Steps: []Step{},
	}}
	err := s.run(ctx)
	s.rep.Duration = cfg.now().Sub(s.started).Round(time.Millisecond)
	if err != nil {
		s.rep.Status = StatusInterrupted
		s.rep.Notes = append(s.rep.Notes, err.Error())
	}
	if serr := s.save(); serr != nil && err == nil {
		err = serr
	}
	return s.rep, err
}

// search is one bisection on its way.
type search struct {
	cfg     Config
	rep     *Report
	started time.Time
	spent   time.Duration // in comparisons, for the estimate of the time left
	// the last commit known not slower and the first known slower, as indexes into Path
	lo, hi  int
	skipped map[int]string
}

func (s *search) run(ctx context.Context) error {
	path, n := s.cfg.Path, len(s.cfg.Path)-1
	s.lo, s.hi, s.skipped = 0, n, map[int]string{}
	bad, err := s.step(ctx, RoleBad, n, 0)
	if err != nil {
		return err
	}
	rep := s.rep
	rep.BadChange = bad.Change
	switch bad.Outcome {
	case NotSlower:
		rep.Status = StatusNoChange
		return nil
	case Inconclusive:
		rep.Status = StatusUndecided
		rep.Notes = append(rep.Notes, fmt.Sprintf("BAD against GOOD stayed inconclusive after %d runs: %s",
			s.cfg.Tries, bad.Reason))
		return nil
	case NoBuild, NoRun:
		rep.Status = StatusUndecided
		rep.Notes = append(rep.Notes, fmt.Sprintf("BAD cannot be tested (%s): %s; name a BAD that builds and runs",
			s.word(bad.Outcome), bad.Reason))
		return nil
	}

	probes := map[int]Probe{n: bad}
	for s.hi-s.lo > 1 {
		m, ok := s.pick()
		if !ok {
			break
		}
		p, err := s.step(ctx, RoleSearch, m, 0)
		if err != nil {
			return err
		}
		probes[m] = p
		switch p.Outcome {
		case Slower:
			s.hi = m
		case NotSlower:
			s.lo = m
		default:
			s.skipped[m] = fmt.Sprintf("%s: %s", s.word(p.Outcome), p.Reason)
		}
	}
	if s.hi-s.lo > 1 {
		rep.Status = StatusUndecided
		for i := s.lo + 1; i <= s.hi; i++ {
			rep.Candidates = append(rep.Candidates, path[i])
			if why, ok := s.skipped[i]; ok {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s could not be tested: %s", path[i].Short(), why))
			}
		}
		return nil
	}

	c := &Culprit{Commit: path[s.hi], Index: s.hi, Parent: path[s.lo], Change: probes[s.hi].Change}
	rep.Status, rep.Culprit = StatusCulprit, c
	if s.lo == 0 {
		// Its parent is GOOD: the step that found it slower than GOOD was the comparison with its
		// parent.
		c.ParentChange, c.Confirmed = c.Change, true
	} else {
		confirm, err := s.step(ctx, RoleConfirm, s.hi, s.lo)
		if err != nil {
			return err
		}
		c.ParentChange = confirm.Change
		switch confirm.Outcome {
		case Slower:
			c.Confirmed = true
		case NotSlower:
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s is the first commit %s than GOOD, but against its parent "+
				"it is not: the change built up over several commits, each within the threshold",
				c.Short(), s.word(Slower)))
		default:
			rep.Notes = append(rep.Notes, fmt.Sprintf("the confirmation against its parent was %s: %s",
				s.word(confirm.Outcome), confirm.Reason))
		}
	}
	rep.Notes = append(rep.Notes, s.moreThanOne(probes[s.hi], bad)...)
	return nil
}

// moreThanOne says, for each benchmark BAD is slower in, whether BAD's change against GOOD is
// larger than the culprit's: their intervals apart, by more than half the threshold. Then more than
// one commit contributed.
func (s *search) moreThanOne(culprit, bad Probe) []string {
	if s.cfg.Check != CheckTime || s.hi == len(s.cfg.Path)-1 {
		return nil
	}
	var notes []string
	for _, b := range bad.Changes {
		if b.Class != string(record.ClassSlower) {
			continue
		}
		c := culprit.changeOf(b.Benchmark)
		larger := c == nil || c.Class != string(record.ClassSlower)
		if c != nil && !larger {
			ratio := (1 + b.Pct/100) / (1 + c.Pct/100)
			larger = b.Lo > c.Hi && 100*(ratio-1) > s.cfg.Threshold/2
		}
		if !larger {
			continue
		}
		at := "not slower at the culprit"
		if c != nil && c.Class == string(record.ClassSlower) {
			at = fmt.Sprintf("%+.1f%% at the culprit", c.Pct)
		}
		notes = append(notes, fmt.Sprintf("more than one commit contributed: %s is %+.1f%% at BAD against GOOD, %s; "+
			"bisect %s..%s for the next", b.Benchmark, b.Pct, at, s.cfg.Path[s.hi].Short(), s.rep.Bad.Short()))
	}
	return notes
}

// pick chooses the next commit to test between lo and hi: the middle one, or when it was skipped
// the untested one nearest to it (the lower on a tie). It returns false when every commit between
// them was skipped.
func (s *search) pick() (int, bool) {
	mid := (s.lo + s.hi) / 2
	best, ok := 0, false
	for i := s.lo + 1; i < s.hi; i++ {
		if _, skip := s.skipped[i]; skip {
			continue
		}
		if !ok || abs(i-mid) < abs(best-mid) {
			best, ok = i, true
		}
	}
	return best, ok
}

func abs(x int) int { return max(x, -x) }

// step compares Path[head] with Path[base], re-running it with more budget while it stays
// inconclusive, and records every run as a Step.
func (s *search) step(ctx context.Context, role Role, head, base int) (Probe, error) {
	path := s.cfg.Path
	for try := 1; ; try++ {
		req := Request{Step: len(s.rep.Steps) + 1, Head: path[head], Base: path[base], Try: try}
		s.progress(req, role)
		start := s.cfg.now()
		p, err := s.cfg.Oracle.Compare(ctx, req)
		took := s.cfg.now().Sub(start)
		s.spent += took
		if err != nil {
			return p, fmt.Errorf("step %d, %s against %s: %w", req.Step, path[head].Short(), path[base].Short(), err)
		}
		st := Step{N: req.Step, Role: role, Index: head, Head: path[head], Base: path[base], Try: try,
			Outcome: p.Outcome, Word: s.word(p.Outcome), Change: p.Change, Reason: p.Reason, Dir: p.Dir,
			Duration: took.Round(time.Millisecond)}
		s.rep.Steps = append(s.rep.Steps, st)
		s.rep.Comparisons = len(s.rep.Steps)
		fmt.Fprintf(s.cfg.Log, "perfgate: bisect: step %d: %s %s%s (%s)\n", st.N, st.Head.Short(), st.Word,
			changeSuffix(p.Change), took.Round(time.Second))
		if err := s.save(); err != nil {
			return p, err
		}
		if p.Outcome != Inconclusive || try >= s.cfg.Tries {
			return p, nil
		}
		fmt.Fprintf(s.cfg.Log, "perfgate: bisect: step %d stayed inconclusive (%s): running it again with more budget\n",
			st.N, p.Reason)
	}
}

// progress prints the step about to run, what is left to search and, after the first step, the time
// left: the mean comparison so far times the comparisons still to come.
func (s *search) progress(req Request, role Role) {
	left := s.remaining(role)
	what := fmt.Sprintf("%s between %s and %s", text.Plural(s.hi-s.lo-1, "commit"), s.cfg.Path[s.lo].Short(),
		s.cfg.Path[s.hi].Short())
	switch role {
	case RoleBad:
		what = text.Plural(len(s.cfg.Path)-1, "commit") + " after GOOD"
	case RoleConfirm:
		what = "the culprit against its parent"
	}
	eta := "time left known after the first step"
	if done := len(s.rep.Steps); done > 0 {
		eta = fmt.Sprintf("about %s left", (s.spent / time.Duration(done) * time.Duration(left)).Round(time.Second))
	}
	try := ""
	if req.Try > 1 {
		try = fmt.Sprintf(", run %d", req.Try)
	}
	fmt.Fprintf(s.cfg.Log, "perfgate: bisect: step %d (%s%s): %s against %s; %s, ~%s to go, %s\n",
		req.Step, role, try, req.Head.Short(), req.Base.Short(), what, text.Plural(left, "comparison"), eta)
}

// remaining estimates the comparisons still to run, the one about to start included: the halvings
// of what is left between lo and hi, and the confirmation.
func (s *search) remaining(role Role) int {
	switch role {
	case RoleBad:
		return 1 + halvings(len(s.cfg.Path)-1) + 1
	case RoleConfirm:
		return 1
	}
	return halvings(s.hi-s.lo) + 1
}

// halvings is ⌈log₂ n⌉: the comparisons that narrow n commits down to one.
func halvings(n int) int {
	if n <= 1 {
		return 0
	}
	return int(math.Ceil(math.Log2(float64(n))))
}

// word names an outcome for the check: "differs" and "identical" for the differential check.
func (s *search) word(o Outcome) string {
	if s.cfg.Check == CheckDifferential {
		switch o {
		case Slower:
			return "differs"
		case NotSlower:
			return "identical"
		}
	}
	return string(o)
}

func changeSuffix(c *Change) string {
	if c == nil {
		return ""
	}
	return ": " + c.String()
}

// save writes bisect.json into the results directory, when there is one.
func (s *search) save() error {
	if s.cfg.Out == "" {
		return nil
	}
	s.rep.Duration = s.cfg.now().Sub(s.started).Round(time.Millisecond)
	return WriteFile(s.cfg.Out, s.rep)
}
