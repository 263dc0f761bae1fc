package history

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
)

// HTML returns a self-contained page (no script, no external request: the Content-Security-Policy
// forbids them) with the summary, the table of change points with their bisect commands, and one
// inline SVG chart per series: each commit's value with its interval, the change points as vertical
// lines and the segments' means.
func (h *History) HTML(title string) ([]byte, error) {
	type chart struct {
		Label   string
		ID      string
		SVG     template.HTML
		Changes int
	}
	type row struct {
		SeriesChange
		Label, ID, Before, After, Cmd string
	}
	data := struct {
		Title, Summary string
		Rows           []row
		Charts         []chart
		Orphans        []Entry
	}{Title: title, Summary: h.summary(), Orphans: h.Orphans}
	for i, s := range h.Series {
		id := fmt.Sprintf("s%d", i)
		data.Charts = append(data.Charts, chart{Label: s.Label(), ID: id, SVG: svg(s), Changes: len(s.Changes)})
		for _, c := range s.Changes {
			r := row{SeriesChange: SeriesChange{s, c}, Label: s.Label(), ID: id,
				Before: FormatValue(c.Before, s.Unit), After: FormatValue(c.After, s.Unit)}
			if args := r.BisectArgs(); args != nil {
				r.Cmd = "perfgate " + ShellQuote(args)
			}
			data.Rows = append(data.Rows, r)
		}
	}
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("rendering the history page: %w", err)
	}
	// html/template escapes markup but leaves control characters and bidirectional overrides:
	// they become U+FFFD, as in the other formats.
	return []byte(text.Lines(b.String())), nil
}

var pageTmpl = template.Must(template.New("history").Funcs(template.FuncMap{
	"short": Short,
	"pct":   func(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) },
	"p":     func(x float64) string { return fmt.Sprintf("%.3f", x) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f2328; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 20px 24px 40px; }
h1 { font-size: 22px; margin: 0 0 6px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d8dde3; }
h3 { font-size: 14px; margin: 18px 0 4px; font-weight: 600; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
table { border-collapse: collapse; } th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid #d8dde3; vertical-align: top; }
th { background: #f5f7f9; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.up { color: #c62828; } .down { color: #2e7d32; } .muted { color: #6b7280; }
svg { display: block; max-width: 100%; height: auto; }
</style>
</head>
<body><main>
<h1>{{.Title}}</h1>
<p class="muted">{{.Summary}}. A point is a recorded commit's median, its bar the median's confidence interval; a red line is a change point (E-divisive means, permutation test), a grey segment a level's mean.</p>
<h2>Change points</h2>
{{if .Rows}}<table>
<tr><th>benchmark</th><th>changed at</th><th>before → after</th><th>change</th><th>p</th><th>range to bisect</th></tr>
{{range .Rows}}<tr><td><a href="#{{.ID}}">{{.Label}}</a></td><td class="mono">{{short .Commit}}</td><td class="num">{{.Before}} → {{.After}}</td><td class="num {{if gt .ChangePoint.Change 0.0}}up{{else}}down{{end}}">{{pct .ChangePoint.Change}}</td><td class="num">{{p .P}}</td><td class="mono">{{short .Good}}..{{short .Bad}}{{if .Cmd}}<br><code>{{.Cmd}}</code>{{end}}</td></tr>
{{end}}</table>{{else}}<p>No change point.</p>{{end}}
<h2>Series</h2>
{{range .Charts}}<h3 id="{{.ID}}">{{.Label}}{{if .Changes}} · {{.Changes}} change point{{if gt .Changes 1}}s{{end}}{{end}}</h3>
{{.SVG}}
{{end}}
{{if .Orphans}}<h2>Orphaned records</h2>
<p class="muted">Recorded commits that are not on the branch's first-parent path (rewritten by a force-push, or from another branch); left out of the series.</p>
<ul>{{range .Orphans}}<li><code>{{short .Commit}}</code> {{.Subject}}</li>{{end}}</ul>{{end}}
</main></body>
</html>
`))

// svg draws s: its points with their intervals, its change points and the means of its segments.
// Everything in it is numbers and the commits' hexadecimal names, written through html/template's
// escaping.
func svg(s *Series) template.HTML {
	const w, hgt, left, right, top, bottom = 900.0, 220.0, 70.0, 10.0, 10.0, 24.0
	n := len(s.Points)
	if n == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
		if p.Lo > 0 && p.Hi > 0 {
			lo, hi = math.Min(lo, p.Lo), math.Max(hi, p.Hi)
		}
	}
	if hi == lo {
		hi, lo = hi*1.01+1e-12, lo*0.99
	}
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	x := func(i float64) float64 {
		if n == 1 {
			return left + (w-left-right)/2
		}
		return left + i*(w-left-right)/float64(n-1)
	}
	y := func(v float64) float64 { return top + (hi-v)/(hi-lo)*(hgt-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g" role="img">`, w, hgt, w, hgt)
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="#fafbfc" stroke="#d8dde3"/>`, left, top, w-left-right, hgt-top-bottom)
	for _, v := range []float64{lo + pad, (lo + hi) / 2, hi - pad} {
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" font-size="11" text-anchor="end" fill="#6b7280">%s</text>`, left-4, y(v)+4,
			template.HTMLEscapeString(FormatValue(v, s.Unit)))
	}
	// segment means
	bounds := []int{0}
	for _, c := range s.Changes {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, n)
	for k := 0; k+1 < len(bounds); k++ {
		a, z := bounds[k], bounds[k+1]
		sum := 0.0
		for _, p := range s.Points[a:z] {
			sum += p.Value
		}
		m := sum / float64(z-a)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#9ca3af" stroke-width="2"/>`,
			x(float64(a)), x(float64(z-1)), y(m), y(m))
	}
	for _, c := range s.Changes {
		xc := (x(float64(c.Index-1)) + x(float64(c.Index))) / 2
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#c62828" stroke-dasharray="4 3"><title>change point at %s: %+.1f%%, p %.3f</title></line>`,
			xc, xc, top, hgt-bottom, template.HTMLEscapeString(Short(c.Commit)), 100*c.ChangePoint.Change, c.P)
	}
	for i, p := range s.Points {
		xi := x(float64(i))
		if p.Lo > 0 && p.Hi > 0 {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#3b6fb6" stroke-opacity="0.5"/>`, xi, xi, y(p.Lo), y(p.Hi))
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#3b6fb6"><title>%s: %s</title></circle>`, xi, y(p.Value),
			template.HTMLEscapeString(Short(p.Commit)), template.HTMLEscapeString(FormatValue(p.Value, s.Unit)))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11" fill="#6b7280">%s</text>`, left, hgt-6, template.HTMLEscapeString(Short(s.Points[0].Commit)))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11" text-anchor="end" fill="#6b7280">%s</text>`, w-right, hgt-6, template.HTMLEscapeString(Short(s.Points[n-1].Commit)))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
