package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// textConstantTime is the terminal's constant-time section: the comment's table, in columns.
func textConstantTime(w io.Writer, r *record.Result) {
	ct := r.ConstantTime
	if ct == nil {
		return
	}
	if ct.Status != record.CTChecked {
		fmt.Fprintf(w, "\nconstant time: %s — %s\n", text.Plain(string(ct.Status)), text.Plain(ct.Reason))
		return
	}
	fmt.Fprintf(w, "\nconstant time: %s, %d secrets per operation (batch methods: %d, %d blocks)%s\n", text.Plain(ct.Tool),
		ct.Secrets, ct.BatchSecrets, ct.BatchBlocks, CTCost(ct))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "constructor\toperation\tbranches\tload sites\tlines per lookup\tper site\ttables")
	quiet := 0
	for _, o := range ct.Operations {
		if !o.Changed() && !o.Base.Findings() && !o.Head.Findings() {
			quiet++
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", text.Plain(Clip(record.Qualified(o.Package, o.Constructor), 100)),
			text.Plain(Clip(o.Operation, 60)), CTPair(o, func(s *record.CTSide) int { return len(s.Branches) }),
			CTPair(o, func(s *record.CTSide) int { return len(s.Loads) }),
			CTPair(o, (*record.CTSide).MaxLinesPerLookup), CTPair(o, (*record.CTSide).MaxLines), CTBytes(o))
	}
	for _, n := range ct.NotTraced {
		fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\n", text.Plain(Clip(record.Qualified(n.Package, n.Constructor), 100)),
			CTNotTracedText(n))
	}
	tw.Flush()
	if quiet > 0 {
		fmt.Fprintln(w, QuietOps(quiet))
	}
}

// QuietOps says how many operations the table leaves out for having no findings.
func QuietOps(n int) string {
	if n == 1 {
		return "1 more operation shows no secret-dependent branch or load on either side."
	}
	return fmt.Sprintf("%d more operations show no secret-dependent branch or load on either side.", n)
}

// CTPair writes head's value and, when it differs, base's: "16 (base 8)"; "—" for a side without
// the operation.
func CTPair(o record.CTOperation, f func(*record.CTSide) int) string {
	return pairText(o, func(s *record.CTSide) string { return strconv.Itoa(f(s)) })
}

func CTBytes(o record.CTOperation) string {
	return pairText(o, func(s *record.CTSide) string { return text.Commas(int64(s.TableBytes())) + " B" })
}

func pairText(o record.CTOperation, f func(*record.CTSide) string) string {
	h, b := "—", "—"
	if o.Head != nil {
		h = f(o.Head)
	}
	if o.Base != nil {
		b = f(o.Base)
	}
	if h == b {
		return h
	}
	return h + " (base " + b + ")"
}
