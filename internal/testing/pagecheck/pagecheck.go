// Package pagecheck inspects an HTML document tree (as parsed by golang.org/x/net/html, or as a
// browser dumped it with --dump-dom) for what would make a page reach the network when opened, and
// offers the small DOM queries the tests of perfgate's HTML report are written with.
//
// It is used by tests only: report.html is meant to open offline, and these checks say whether it
// does.
package pagecheck

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// loaders are elements that fetch something by their nature, whatever their attributes.
var loaders = map[string]bool{
	"script": true, "link": true, "iframe": true, "frame": true, "object": true, "embed": true, "img": true,
	"image": true, "audio": true, "video": true, "source": true, "track": true, "base": true, "form": true,
	"use": true, "feimage": true, "picture": true, "portal": true,
}

// urlAttrs are attributes whose value a browser may fetch or navigate to.
var urlAttrs = map[string]bool{
	"src": true, "href": true, "xlink:href": true, "srcset": true, "action": true, "formaction": true,
	"poster": true, "data": true, "background": true, "ping": true, "manifest": true, "codebase": true,
}

// Problems lists what in doc could make a request to another host when the page is opened: elements
// that load something, URL attributes other than in-page anchors ("#…"), url() and @import in CSS,
// and a missing Content-Security-Policy that forbids loading by default. An empty result means the
// page is self-contained.
func Problems(doc *html.Node) []string {
	var out []string
	csp := false
	for _, n := range FindAll(doc, func(*html.Node) bool { return true }) {
		name := strings.ToLower(n.Data)
		if loaders[name] {
			out = append(out, fmt.Sprintf("<%s> element", name))
		}
		if name == "meta" && strings.EqualFold(Attr(n, "http-equiv"), "Content-Security-Policy") &&
			strings.Contains(Attr(n, "content"), "default-src 'none'") {
			csp = true
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			if a.Namespace != "" {
				key = strings.ToLower(a.Namespace) + ":" + key
			}
			switch {
			case urlAttrs[key] || strings.HasSuffix(key, ":href"):
				if !strings.HasPrefix(a.Val, "#") {
					out = append(out, fmt.Sprintf("<%s %s=%q>", name, a.Key, a.Val))
				}
			case key == "style" && cssLoads(a.Val):
				out = append(out, fmt.Sprintf("<%s style=%q>", name, a.Val))
			case strings.HasPrefix(key, "on"):
				out = append(out, fmt.Sprintf("<%s %s> event handler", name, a.Key))
			}
		}
		if name == "style" && cssLoads(Text(n)) {
			out = append(out, "<style> with url() or @import")
		}
	}
	if !csp {
		out = append(out, "no Content-Security-Policy meta tag with default-src 'none'")
	}
	return out
}

func cssLoads(css string) bool {
	css = strings.ToLower(css)
	return strings.Contains(css, "url(") || strings.Contains(css, "@import") || strings.Contains(css, "image-set(")
}

// Attr returns the value of n's attribute key, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass reports whether element n has class among its classes.
func HasClass(n *html.Node, class string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+Attr(n, "class")+" ", " "+class+" ")
}

// FindAll returns the elements under n (n included) for which match is true, in document order.
func FindAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// Element matches elements by tag name and, when class is not empty, class.
func Element(tag, class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag && (class == "" || HasClass(n, class)) }
}

// Text is the text content of n.
func Text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
