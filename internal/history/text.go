package history

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/internal/text"
)

// FormatValue formats v in unit as tables show it: times scaled to ns, µs, ms or s, other units
// with four significant digits.
func FormatValue(v float64, unit string) string {
	if unit == "sec/op" {
		switch a := math.Abs(v); {
		case a == 0:
			return "0s"
		case a < 1e-6:
			return fmt.Sprintf("%.4gns", v*1e9)
		case a < 1e-3:
			return fmt.Sprintf("%.4gµs", v*1e6)
		case a < 1:
			return fmt.Sprintf("%.4gms", v*1e3)
		}
		return fmt.Sprintf("%.4gs", v)
	}
	return fmt.Sprintf("%.4g %s", v, unit)
}

// summary is the one-line account of what h holds.
func (h *History) summary() string {
	s := text.Plural(len(h.Path), "recorded commit") + " on the branch"
	if h.Unrecorded > 0 {
		s += fmt.Sprintf(" (%s between them not recorded)", text.Plural(h.Unrecorded, "commit"))
	}
	s += fmt.Sprintf(", %d series", len(h.Series))
	if len(h.Orphans) > 0 {
		s += fmt.Sprintf(", %s (commits no longer on the branch)", text.Plural(len(h.Orphans), "orphaned record"))
	}
	return s
}

// Text writes the change points of h as a table for a terminal, each followed by the command that
// bisects it, and the orphaned records after it. onlyNew keeps the change points that the newest
// commit brought.
func (h *History) Text(w io.Writer, onlyNew bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "perfgate history: %s\n\n", h.summary())
	changes := h.Changes(onlyNew)
	if len(changes) == 0 {
		if onlyNew {
			b.WriteString("No new change point.\n")
		} else {
			b.WriteString("No change point.\n")
		}
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BENCHMARK\tCHANGED AT\tBEFORE → AFTER\tCHANGE\tP\tRANGE TO BISECT")
		for _, c := range changes {
			fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%+.1f%%\t%.3f\t%s..%s\n", text.Plain(c.Series.Label()), Short(c.Commit),
				FormatValue(c.Before, c.Series.Unit), FormatValue(c.After, c.Series.Unit), 100*c.ChangePoint.Change,
				c.P, Short(c.Good), Short(c.Bad))
		}
		tw.Flush()
		b.WriteString("\nTo find the commit:\n")
		for _, c := range changes {
			if args := c.BisectArgs(); args != nil {
				fmt.Fprintf(&b, "  perfgate %s\n", text.Plain(ShellQuote(args)))
			}
		}
	}
	if len(h.Orphans) > 0 {
		b.WriteString("\nOrphaned records (not on the branch's first-parent path, left out of the series):\n")
		for _, o := range h.Orphans {
			fmt.Fprintf(&b, "  %s %s\n", Short(o.Commit), text.Plain(o.Subject))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes the change points of h for a job summary or an issue: a table, then the commands
// in a code block. Names and subjects from the repository are escaped.
func (h *History) Markdown(w io.Writer, onlyNew bool) error {
	var b strings.Builder
	changes := h.Changes(onlyNew)
	title := "Change points on the branch"
	if onlyNew {
		title = "New change points on the branch"
	}
	fmt.Fprintf(&b, "### perfgate history: %s\n\n%s.\n\n", title, h.summary())
	if len(changes) == 0 {
		b.WriteString("No change point found.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("| benchmark | changed at | before → after | change | p | range to bisect |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | --- |\n")
	var cmds []string
	for _, c := range changes {
		fmt.Fprintf(&b, "| %s | `%s` | %s → %s | %+.1f%% | %.3f | `%s..%s` |\n", text.Markdown(c.Series.Label()),
			Short(c.Commit), text.Markdown(FormatValue(c.Before, c.Series.Unit)),
			text.Markdown(FormatValue(c.After, c.Series.Unit)), 100*c.ChangePoint.Change, c.P, Short(c.Good),
			Short(c.Bad))
		if args := c.BisectArgs(); args != nil {
			cmds = append(cmds, "perfgate "+text.Plain(ShellQuote(args)))
		}
	}
	if len(cmds) > 0 {
		body := strings.Join(cmds, "\n")
		fence := text.Fence(body)
		fmt.Fprintf(&b, "\nTo find the commit that made each change:\n\n%ssh\n%s\n%s\n", fence, body, fence)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
