package docs

// The README's and the docs' relative links resolve: every link or image to a file of the
// repository names one that exists, and every #anchor into a Markdown file names one of its
// headings as GitHub slugs them.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// link matches a Markdown link or image target: ](target) or ](target "title").
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// headingSlugs are the anchors of a Markdown file's headings, as GitHub makes them: lower case,
// punctuation but hyphens and underscores dropped, spaces as hyphens.
func headingSlugs(text string) map[string]bool {
	slugs := map[string]bool{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		slugs[b.String()] = true
	}
	return slugs
}

// withoutCode drops fenced code blocks and inline code spans, where ](x) is not a link.
func withoutCode(text string) string {
	var out []string
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if !fence {
			out = append(out, regexp.MustCompile("`[^`]*`").ReplaceAllString(l, ""))
		}
	}
	return strings.Join(out, "\n")
}

func TestRelativeLinks(t *testing.T) {
	files, _ := filepath.Glob("*.md")
	for i := range files {
		files[i] = filepath.Join("docs", files[i])
	}
	files = append(files, "README.md", "CHANGELOG.md", filepath.Join("cipher", "des", "README.md"))
	root := ".."
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(root, f) // an anchor into the same file
			if file != "" {
				path = filepath.Join(root, filepath.Dir(f), filepath.FromSlash(file))
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %s: no such file %s", f, target, filepath.Clean(path))
				continue
			}
			if anchor == "" || st.IsDir() || !strings.HasSuffix(path, ".md") {
				continue
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !headingSlugs(string(text))[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", f, target, filepath.Clean(path), anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d relative links: the pattern misses them", checked)
	}
}
