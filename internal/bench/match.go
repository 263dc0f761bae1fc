package bench

import (
	"fmt"
	"regexp"
	"strings"
)

// Matcher selects benchmarks by name as go test's -bench flag does. The pattern is split at every
// '/' outside brackets and parentheses (a backslash escapes the character after it) into one
// unanchored regular expression per level of the name; a name matches when each level the pattern
// has matches the name's level, and the levels beyond the pattern's match anything: "^Sum256$"
// selects Sum256/32 and Sum256/1024, "Encrypt/des" selects Encrypt/des/single. Names are without
// the "Benchmark" prefix, but the top level also matches with it, so "^BenchmarkSum256$" selects
// the same as "^Sum256$".
type Matcher struct {
	pattern string
	levels  []*regexp.Regexp
}

// NewMatcher compiles pattern; "" and "." select everything.
func NewMatcher(pattern string) (*Matcher, error) {
	m := &Matcher{pattern: pattern}
	for i, level := range splitLevels(pattern) {
		re, err := regexp.Compile(level)
		if err != nil {
			return nil, fmt.Errorf("level %d of %q: %w", i+1, pattern, err)
		}
		m.levels = append(m.levels, re)
	}
	return m, nil
}

// String is the pattern.
func (m *Matcher) String() string { return m.pattern }

// Match reports whether the full name of a benchmark (Encrypt/des/single) is selected. A name with
// fewer levels than the pattern is not.
func (m *Matcher) Match(name string) bool {
	parts := strings.Split(name, "/")
	if len(parts) < len(m.levels) {
		return false
	}
	for i, re := range m.levels {
		if !m.matchLevel(i, re, parts[i]) {
			return false
		}
	}
	return true
}

// MatchTop reports whether some benchmark of top-level benchmark top may be selected: the pattern's
// first level matches top. Which of its sub-benchmarks the deeper levels select is known only by
// running it.
func (m *Matcher) MatchTop(top string) bool {
	return len(m.levels) == 0 || m.matchLevel(0, m.levels[0], top)
}

func (m *Matcher) matchLevel(i int, re *regexp.Regexp, part string) bool {
	return re.MatchString(part) || i == 0 && re.MatchString("Benchmark"+part)
}

// splitLevels splits pattern at the '/'s outside brackets and parentheses, as the testing package
// does; "" and "." have no levels.
func splitLevels(pattern string) []string {
	if pattern == "" || pattern == "." {
		return nil
	}
	var levels []string
	depth, start := 0, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case '/':
			if depth == 0 {
				levels = append(levels, pattern[start:i])
				start = i + 1
			}
		}
	}
	return append(levels, pattern[start:])
}
