package mdreport

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// mdWhy renders the section in the comment: a list per changed benchmark, its rows dropped (least
// important benchmark's first) when the comment would not fit; collapsed when the gate passed.
func mdWhy(d *doc, r *record.Result, opt report.Options) {
	if len(r.Why) == 0 {
		return
	}
	if !failing(r) { // a pass needs no explanation at first sight: collapsed, like the tables
		d.collapsed("Why it changed ("+text.PluralCommas(len(r.Why), "benchmark")+")", func() { mdWhyBody(d, r, opt) })
		return
	}
	d.para("### Why it changed")
	mdWhyBody(d, r, opt)
}

func mdWhyBody(d *doc, r *record.Result, opt report.Options) {
	esc := func(s string) string { return text.Markdown(report.Clip(s, 200)) }
	if same := report.SameSourceText(r, text.Markdown); same != "" {
		d.add(&block{lines: []string{"_" + same + "_"}, what: "items"})
	}
	for _, w := range r.Why {
		prio := prioFaster
		if w.Class == record.ClassSlower {
			prio = prioSlower
		}
		b := &block{lines: []string{bold(report.WhyHeading(w, esc))}, what: "items"}
		for i, it := range report.WhyItems(w, esc) {
			if i < len(w.Lines) && i < report.WhyLines {
				it = linkLine(r, w, w.Lines[i], it, opt.RepoURL)
			}
			b.rows = append(b.rows, row{text: "- " + it, prio: prio})
		}
		d.add(b)
	}
}

// linkLine makes the "file:line" that starts line a link to that line at head's commit on GitHub,
// when repo (the repository's URL, "https://github.com/OWNER/NAME") is set, head is a commit (not a
// dirty working tree) and the line's file maps to a path in the repository; otherwise it returns
// line as it is.
func linkLine(r *record.Result, w record.Why, l record.WhyLine, line, repo string) string {
	if repo == "" || l.Line <= 0 || r.Head.Dirty || !report.IsHex(r.Head.Commit) || len(r.Head.Commit) < 40 {
		return line
	}
	p, ok := report.RepoPath(r, w, l.File)
	if !ok {
		return line
	}
	where := text.Markdown(path.Base(l.File)) + fmt.Sprintf(":%d", l.Line)
	rest, ok := strings.CutPrefix(line, where)
	if !ok {
		return line
	}
	u := strings.TrimSuffix(repo, "/") + "/blob/" + r.Head.Commit + "/" + escapePath(p) + fmt.Sprintf("#L%d", l.Line)
	return "[" + where + "](" + u + ")" + rest
}

// escapePath escapes each element of a slash-separated path for a URL.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
