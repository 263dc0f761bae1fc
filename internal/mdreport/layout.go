package mdreport

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
)

// The Markdown renderer does not write a string directly: it builds a doc, a list of blocks, and
// the doc is fitted into the body budget by dropping whole <details> blocks first, then the least
// important table and list rows, each table saying how many rows it lost. Because only whole blocks
// and whole rows are ever dropped, the result is always valid Markdown: no fence, HTML tag or table
// is cut in half. Truncate is the last resort for a body that still does not fit, and is usable on
// its own.

// A doc is a Markdown body made of blocks separated by blank lines.
type doc struct {
	blocks []*block
	hint   string // where the full report lives, for omission notes
}

// A block is a paragraph, heading, list, table or <details> section.
type block struct {
	lines []string // fixed lines: a paragraph, a heading, or a table's header and delimiter row
	rows  []row    // droppable lines: table rows or list items
	after []string // fixed lines after the rows
	what  string   // what the rows are, for the omission note: "rows", "items"

	// > 0 for a <details> section: sections are dropped in ascending order of this rank
	details int
	title   string // a details section's name, for the omission note
	gone    bool   // dropped
}

// A row is one droppable line. Rows of lower prio are dropped first; among equals, later rows go
// first.
type row struct {
	text    string
	prio    int
	dropped bool
}

// Row priorities: what a reader can least afford to lose has the highest. Benchmark rows, the bulk
// of any long report, all go before the rows of the small tables.
const (
	prioUnchanged = 1 // unchanged benchmarks
	prioFaster    = 2 // faster and inconclusive benchmarks
	prioSlower    = 3 // slower benchmarks
	prioFailed    = 4 // failed benchmarks
	prioIdentical = 5 // ciphers that matched
	prioHigh      = 7 // mismatching ciphers, section sizes, notes
	prioTop       = 9 // verdict reasons, the method, size totals
)

func (d *doc) add(b *block) { d.blocks = append(d.blocks, b) }

// para adds a block of fixed lines.
func (d *doc) para(lines ...string) { d.add(&block{lines: lines}) }

// render writes the doc as it stands, with notes for what was dropped.
func (d *doc) render() string {
	var b strings.Builder
	var gone []string
	for _, bl := range d.blocks {
		if bl.gone {
			gone = append(gone, bl.title)
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		bl.render(&b, d.hint)
	}
	if len(gone) > 0 {
		fmt.Fprintf(&b, "\n_… %s omitted (%s) to fit GitHub's comment limit; the full report is in %s._\n",
			text.PluralCommas(len(gone), "collapsed section"), strings.Join(gone, ", "), d.hint)
	}
	return b.String()
}

func (bl *block) render(b *strings.Builder, hint string) {
	for _, l := range bl.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	dropped := 0
	for _, r := range bl.rows {
		if r.dropped {
			dropped++
			continue
		}
		b.WriteString(r.text)
		b.WriteByte('\n')
	}
	if dropped > 0 {
		// The blank line ends the table or list, so the note cannot be read as one more row.
		what := bl.what
		if what == "" {
			what = "row"
		}
		fmt.Fprintf(b, "\n_… %s omitted; the full report is in %s._\n", text.PluralCommas(dropped, what), hint)
	}
	for _, l := range bl.after {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// fit renders the doc in at most budget bytes.
func (d *doc) fit(budget int) string {
	s := d.render()
	if len(s) <= budget {
		return s
	}
	// 1. Collapsed sections, least useful first.
	var ds []*block
	for _, bl := range d.blocks {
		if bl.details > 0 {
			ds = append(ds, bl)
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].details < ds[j].details })
	for _, bl := range ds {
		bl.gone = true
		if s = d.render(); len(s) <= budget {
			return s
		}
	}
	// 2. Rows, lowest priority and last first, in batches that free at least the excess plus room
	//    for the notes.
	type ref struct{ b, r int }
	var cands []ref
	for bi, bl := range d.blocks {
		if bl.gone {
			continue
		}
		for ri := range bl.rows {
			cands = append(cands, ref{bi, ri})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		ri, rj := d.blocks[cands[i].b].rows[cands[i].r], d.blocks[cands[j].b].rows[cands[j].r]
		if ri.prio != rj.prio {
			return ri.prio < rj.prio
		}
		if cands[i].b != cands[j].b {
			return cands[i].b > cands[j].b
		}
		return cands[i].r > cands[j].r
	})
	for len(cands) > 0 && len(s) > budget {
		need := len(s) - budget + 512
		for need > 0 && len(cands) > 0 {
			c := cands[0]
			cands = cands[1:]
			r := &d.blocks[c.b].rows[c.r]
			r.dropped = true
			need -= len(r.text) + 1
		}
		s = d.render()
	}
	// 3. The last resort: cut at a safe line.
	return Truncate(s, budget)
}

// Truncate shortens a Markdown body to at most max bytes, if it is longer. It cuts only between
// lines, closes a code fence or <details> section it cut inside (it tracks fences and
// <details>/</details> lines outside fences), and ends with a note saying how many lines it left
// out. It never fails: when not even the note fits, it returns as many whole lines as fit. Markdown
// already fits by dropping whole sections and rows; Truncate is for any body.
func Truncate(body string, max int) string {
	return truncate(body, max, defaultHint)
}

func truncate(body string, max int, hint string) string {
	if len(body) <= max {
		return body
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	lines := strings.SplitAfter(body, "\n")
	lines = lines[:len(lines)-1] // SplitAfter leaves "" after the final newline
	type state struct {
		fence string // the open fence, "" outside one
		depth int    // open <details> sections
	}
	closing := func(st state) string {
		var b strings.Builder
		if st.fence != "" {
			b.WriteString(st.fence + "\n")
		}
		for range st.depth {
			b.WriteString("\n</details>\n")
		}
		return b.String()
	}
	note := func(omitted int) string {
		return fmt.Sprintf("\n_… output truncated: %s omitted; the full report is in %s._\n", text.PluralCommas(omitted, "line"), hint)
	}
	// states[k] is the state after the first k lines; size[k] their length.
	states := make([]state, len(lines)+1)
	size := make([]int, len(lines)+1)
	for i, l := range lines {
		st := states[i]
		t := strings.TrimSpace(l)
		switch {
		case st.fence != "":
			if strings.Trim(t, st.fence[:1]) == "" && len(t) >= len(st.fence) {
				st.fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			st.fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
		case strings.HasPrefix(t, "<details"):
			st.depth++
		case strings.HasPrefix(t, "</details>") && st.depth > 0:
			st.depth--
		}
		states[i+1] = st
		size[i+1] = size[i] + len(l)
	}
	for k := len(lines) - 1; k >= 0; k-- {
		tail := closing(states[k]) + note(len(lines)-k)
		if size[k]+len(tail) <= max {
			return strings.Join(lines[:k], "") + tail
		}
	}
	for k := len(lines) - 1; k > 0; k-- {
		if st := states[k]; st.fence == "" && st.depth == 0 && size[k] <= max {
			return strings.Join(lines[:k], "")
		}
	}
	return ""
}
