package main

// The pull-request comment as a page: report.md rendered to HTML the way GitHub renders a comment,
// for the browser test and the README's picture of the comment.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/perfgate/perfgate/internal/testing/pagecheck"
)

// commentCSS approximates GitHub's comment styling: its system font stack, bordered tables, grey
// code blocks.
const commentCSS = `body{margin:0;background:#fff;color:#1f2328;
font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif}
.comment{margin:16px;border:1px solid #d1d9e0;border-radius:6px}
.head{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;color:#59636e}
.body{padding:16px}
h1,h2,h3{margin:16px 0 8px;font-weight:600}h2{font-size:1.5em}h3{font-size:1.25em}
table{border-collapse:collapse;margin:0 0 16px;display:block;overflow:auto}
th,td{border:1px solid #d1d9e0;padding:6px 13px}th{font-weight:600}tr:nth-child(2n){background:#f6f8fa}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace}
code{background:#eff1f3;border-radius:6px;padding:.2em .4em}
pre{background:#f6f8fa;border-radius:6px;padding:16px;overflow:auto}pre code{background:none;padding:0}
details{margin:0 0 16px}summary{cursor:pointer}`

// writeCommentPage renders the comment body md into dir/comment.html and returns the file's path.
func writeCommentPage(t *testing.T, dir string, md []byte) string {
	t.Helper()
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	var body bytes.Buffer
	if err := gm.Convert(md, &body); err != nil {
		t.Fatal(err)
	}
	// Nothing loads from anywhere, as in report.html: the comment's Markdown may hold raw HTML.
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" ` +
		`content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">` +
		`<style>` + commentCSS + `</style></head><body>` +
		`<div class="comment"><div class="head"><b>github-actions</b> bot commented</div><div class="body">` +
		body.String() + `</div></div></body></html>`
	file := filepath.Join(dir, "comment.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// checkCommentPage checks the rendered comment: the verdict leads, its tables are tables (the
// Markdown is GitHub's), the forest plot is a code block, and nothing was fetched.
func checkCommentPage(t *testing.T, p page, verdict string) {
	t.Helper()
	if len(p.requests) > 0 || len(pagecheck.Problems(p.dom)) > 0 {
		t.Errorf("the comment page reaches out: %q %q", p.requests, pagecheck.Problems(p.dom))
	}
	text := pagecheck.Text(p.dom)
	if want := "perfgate: " + strings.ToUpper(verdict); !strings.Contains(text, want) {
		t.Errorf("the rendered comment does not say %q:\n%.500s", want, text)
	}
	if n := len(pagecheck.FindAll(p.dom, pagecheck.Element("table", ""))); n < 2 {
		t.Errorf("the rendered comment has %d tables: the Markdown tables did not render", n)
	}
	forest := false
	for _, pre := range pagecheck.FindAll(p.dom, pagecheck.Element("pre", "")) {
		forest = forest || strings.Contains(pagecheck.Text(pre), "head/base")
	}
	if !forest {
		t.Error("the rendered comment has no forest plot in a code block")
	}
}
