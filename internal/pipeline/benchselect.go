package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/benchrun"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/suggest"
	"github.com/perfgate/perfgate/internal/text"
)

// benchFilter is the bench key as go test's -bench reads it; nil selects every benchmark.
func (p *pipeline) benchFilter() *bench.Matcher {
	if p.cfg.Bench == "" || p.cfg.Bench == "." {
		return nil
	}
	m, err := bench.NewMatcher(p.cfg.Bench)
	if err != nil {
		// config validates it
		panic("pipeline: bench " + p.cfg.Bench + " passed validation: " + err.Error())
	}
	return m
}

// checkBenchSelects fails with a configuration error (exit 2) when the bench filter selects none of
// tops, the package's top-level benchmarks: a gate that times nothing because of a typo must not
// pass. The error names the benchmarks the pattern may have meant. A shard (cfg.Shard) checks
// nothing: its part may hold none of them.
func (p *pipeline) checkBenchSelects(tops []string) error {
	filter := p.benchFilter()
	if filter == nil || p.tops != nil || len(tops) == 0 || slices.ContainsFunc(tops, filter.MatchTop) {
		return nil
	}
	return &config.Error{Key: "bench", Value: p.cfg.Bench, Want: fmt.Sprintf(
		"a pattern that selects some of the package's %s (go test's -bench matching, without the Benchmark prefix)%s",
		text.Plural(len(tops), "benchmark"), meant(p.cfg.Bench, tops))}
}

// checkLeavesSelected fails like checkBenchSelects when the filter's first level selected top-level
// benchmarks but its deeper levels none of their sub-benchmarks, so nothing was compared.
func (p *pipeline) checkLeavesSelected(run *benchrun.Run, sameCodeRows int) error {
	filter := p.benchFilter()
	if filter == nil || p.tops != nil || run == nil || len(run.Samples) > 0 || len(run.Failures) > 0 || sameCodeRows > 0 {
		return nil
	}
	var selected []string
	for _, t := range p.code.tops {
		if filter.MatchTop(t) {
			selected = append(selected, t)
		}
	}
	if len(selected) == 0 {
		return nil
	}
	return &config.Error{Key: "bench", Value: p.cfg.Bench, Want: fmt.Sprintf(
		"a pattern whose levels after the first select some sub-benchmarks of %s (each level between '/' "+
			"matches one level of the name)", strings.Join(selected, ", "))}
}

// meant lists the benchmarks pattern probably meant: the one closest to it as written (a prefix
// "Benchmark" and anchors dropped), else those whose names contain its first level's letters, at
// most five.
func meant(pattern string, tops []string) string {
	first, _, _ := strings.Cut(pattern, "/")
	word := strings.TrimPrefix(strings.Trim(first, "^$"), "Benchmark")
	if near := suggest.Closest(word, tops); near != "" {
		return "; did you mean " + near + "?"
	}
	var some []string
	for _, t := range tops {
		if word != "" && strings.Contains(strings.ToLower(t), strings.ToLower(word)) {
			some = append(some, t)
		}
	}
	if len(some) == 0 {
		some = tops
	}
	if len(some) > 5 {
		some = append(some[:5:5], "…")
	}
	return "; they include " + strings.Join(some, ", ")
}
