package text

import "strings"

// Inert returns s with every workflow command neutralised, for text from the repository or an
// artifact that goes to a GitHub Actions job's log outside a stop-commands region. The runner obeys
// two forms: "::name …::" at the start of a line (after leading white space), and the legacy
// "##[name]" anywhere in a line. Inert puts a backslash before both — "\::warning::x",
// "##\[error]x" — so the log still shows what the text said, and the runner finds no command in it.
func Inert(s string) string {
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	s = InertLegacy(s)
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		rest := strings.TrimLeft(l, " \t\r\v\f")
		if strings.HasPrefix(rest, "::") {
			lines[i] = l[:len(l)-len(rest)] + `\` + rest
		}
	}
	return strings.Join(lines, "")
}

// InertLegacy neutralises the legacy form "##[name]" only, for text whose line breaks are escaped
// anyway (an annotation's message).
func InertLegacy(s string) string { return strings.ReplaceAll(s, "##[", `##\[`) }

// IsCommand reports whether the runner would obey a workflow command in the log line l, in either
// form.
func IsCommand(l string) bool {
	return strings.HasPrefix(strings.TrimLeft(l, " \t\r\v\f"), "::") || strings.Contains(l, "##[")
}
