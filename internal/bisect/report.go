package bisect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// ReportSchema is the version of bisect.json; a change to a field scripts may rely on (status,
// culprit.sha, candidates, steps[].outcome) bumps it.
const ReportSchema = 1

// FileName is the bisection's record in its results directory.
const FileName = "bisect.json"

// Status is how a bisection ended.
type Status string

// The statuses.
const (
	StatusCulprit  Status = "culprit"   // the first commit slower than GOOD was found
	StatusNoChange Status = "no-change" // BAD is not slower than GOOD: nothing to find
	// BAD or the commits around the culprit could not be tested or told
	StatusUndecided   Status = "undecided"
	StatusInterrupted Status = "interrupted" // the bisection could not go on; Notes say why
)

// Role is what a step is for.
type Role string

// The roles.
const (
	RoleBad     Role = "bad"     // BAD against GOOD: is there anything to find?
	RoleSearch  Role = "search"  // a commit of the path against GOOD
	RoleConfirm Role = "confirm" // the culprit against its parent
)

// Report is what a bisection found, and every comparison it made: bisect.json.
type Report struct {
	Schema  int    `json:"schema"`
	Check   string `json:"check"` // CheckTime or CheckDifferential
	Status  Status `json:"status"`
	Good    Commit `json:"good"`
	Bad     Commit `json:"bad"`
	Commits int    `json:"commits"` // commits on the first-parent path after GOOD, BAD included
	// Culprit is the first commit slower than GOOD (StatusCulprit), nil otherwise.
	Culprit *Culprit `json:"culprit,omitempty"`
	// Candidates are the commits the culprit is among when skipped commits keep it from being
	// isolated.
	Candidates []Commit `json:"candidates,omitempty"`
	// BadChange is BAD's change against GOOD.
	BadChange   *Change       `json:"bad_change,omitempty"`
	Steps       []Step        `json:"steps"`
	Comparisons int           `json:"comparisons"`
	Notes       []string      `json:"notes,omitempty"`
	Duration    time.Duration `json:"duration_ns"`
}

// Culprit is the commit a bisection names.
type Culprit struct {
	Commit
	Index  int    `json:"index"` // its place on the path: 1 is the first commit after GOOD
	Parent Commit `json:"parent"`
	// Change is its change against GOOD; ParentChange against its parent (the confirmation).
	Change       *Change `json:"change,omitempty"`
	ParentChange *Change `json:"parent_change,omitempty"`
	// Confirmed is true when the comparison with its parent found it slower too.
	Confirmed bool `json:"confirmed"`
}

// Step is one comparison of the bisection.
type Step struct {
	N     int    `json:"n"`
	Role  Role   `json:"role"`
	Index int    `json:"index"` // Head's place on the path
	Head  Commit `json:"head"`
	Base  Commit `json:"base"`
	Try   int    `json:"try"` // 2 and more for the re-runs of an inconclusive step
	// Outcome is the oracle's; Word names it for the check ("differs" for a differential Slower).
	Outcome  Outcome       `json:"outcome"`
	Word     string        `json:"word"`
	Change   *Change       `json:"change,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	Dir      string        `json:"dir,omitempty"` // the comparison's results directory
	Duration time.Duration `json:"duration_ns"`
}

// ExitCode is the command's exit code for r: 0 when a culprit was found or there was nothing to
// find, 3 when the bisection could not say.
func (r *Report) ExitCode() int {
	switch r.Status {
	case StatusCulprit, StatusNoChange:
		return record.ExitPass
	}
	return record.ExitCannotRun
}

// WriteFile writes r as dir/bisect.json.
func WriteFile(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bisect results: %w", err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("bisect results: %w", err)
	}
	return nil
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadFile reads dir/bisect.json.
func ReadFile(dir string) (*Report, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileName), err)
	}
	return &r, nil
}

// WriteText prints r for a terminal: the answer first (the culprit with its change, or why there is
// none), then the notes, then one line per step. Subjects, notes, reasons and benchmark names come
// from the repository: control characters, bidirectional overrides and "<!--" are neutralised
// (text.Lines), and workflow commands made inert.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	first, notChanged := "slower than GOOD", "is not slower than GOOD"
	if r.Check == CheckDifferential {
		first, notChanged = "whose outputs differ from GOOD's", "has the same outputs as GOOD"
	}
	switch r.Status {
	case StatusCulprit:
		c := r.Culprit
		fmt.Fprintf(&b, "culprit %s %s\n", c.SHA, quote(c.Subject))
		fmt.Fprintf(&b, "  the first commit %s (%s), %d of %d after it\n", first, r.Good.Short(), c.Index, r.Commits)
		if c.ParentChange != nil {
			fmt.Fprintf(&b, "  against its parent %s: %s\n", c.Parent.Short(), c.ParentChange)
		}
		if c.Change != nil && c.Index > 1 {
			fmt.Fprintf(&b, "  against GOOD: %s\n", c.Change)
		}
		if c.Confirmed {
			fmt.Fprintf(&b, "  confirmed against its parent\n")
		} else {
			fmt.Fprintf(&b, "  not confirmed against its parent (see the notes)\n")
		}
	case StatusNoChange:
		fmt.Fprintf(&b, "no change: BAD %s %s %s", r.Bad.Short(), notChanged, r.Good.Short())
		if r.BadChange != nil {
			fmt.Fprintf(&b, " (%s)", r.BadChange)
		}
		b.WriteString("\n")
	case StatusUndecided:
		fmt.Fprintf(&b, "no culprit: the bisection could not decide\n")
		if len(r.Candidates) > 0 {
			fmt.Fprintf(&b, "  the first commit %s is one of:\n", first)
			for _, c := range r.Candidates {
				fmt.Fprintf(&b, "    %s %s\n", c.SHA, quote(c.Subject))
			}
		}
	default:
		fmt.Fprintf(&b, "bisection interrupted after %d comparisons\n", r.Comparisons)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "\n%d comparisons over %d commits in %s:\n", r.Comparisons, r.Commits, r.Duration.Round(time.Second))
	for _, s := range r.Steps {
		role := string(s.Role)
		if s.Try > 1 {
			role += fmt.Sprintf(" (run %d)", s.Try)
		}
		base := "GOOD"
		if s.Base.SHA != r.Good.SHA {
			base = s.Base.Short()
		}
		line := fmt.Sprintf("%3d  %-15s %s vs %-12s  %-14s", s.N, role, s.Head.Short(), base, s.Word)
		if s.Change != nil {
			line += " " + s.Change.String()
		} else if s.Reason != "" {
			line += " " + s.Reason
		}
		fmt.Fprintf(&b, "%s  %s  %s\n", strings.TrimRight(line, " "), s.Duration.Round(time.Second), quote(s.Head.Subject))
	}
	_, err := io.WriteString(w, text.Inert(text.Lines(b.String())))
	return err
}

// quote prints an untrusted subject on one line.
func quote(s string) string { return fmt.Sprintf("%q", s) }
