package mdreport

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/perfgate/perfgate/internal/report"
)

// lintMarkdown checks the structure of a rendered body independently of the renderer: every code
// fence closes, <details> and </details> pair up outside fences, no HTML tag other than the ones
// perfgate writes appears outside a fence, and every table row has as many cells as its header. It
// returns the problems found.
func lintMarkdown(body string) []string {
	var problems []string
	bad := func(i int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", i+1)+fmt.Sprintf(format, args...))
	}
	allowed := map[string]bool{
		"<details>": true, "</details>": true, "<summary>": true, "</summary>": true, "<sub>": true, "</sub>": true,
		"<strong>": true, "</strong>": true,
		Marker: true,
	}
	tag := regexp.MustCompile(`<[^>]*>?`)
	fence := ""
	depth := 0
	tableCells := -1
	for i, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.Trim(t, "`~") == "" && len(t) >= len(fence) && t[0] == fence[0] {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
			tableCells = -1
			continue
		}
		for _, m := range tag.FindAllString(line, -1) {
			if !allowed[m] {
				bad(i, "raw HTML %q outside a code fence", m)
			}
		}
		switch t {
		case "<details>":
			depth++
		case "</details>":
			depth--
			if depth < 0 {
				bad(i, "</details> without <details>")
				depth = 0
			}
		}
		if strings.HasPrefix(t, "|") {
			n := pipes(t)
			if tableCells < 0 {
				tableCells = n
			} else if n != tableCells {
				bad(i, "table row has %d cell separators, the header %d: %s", n, tableCells, report.Clip(t, 120))
			}
		} else {
			tableCells = -1
		}
	}
	if fence != "" {
		problems = append(problems, "code fence "+fence+" never closed")
	}
	if depth != 0 {
		problems = append(problems, fmt.Sprintf("%d <details> never closed", depth))
	}
	return problems
}

// pipes counts the unescaped | in a table row.
func pipes(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}
