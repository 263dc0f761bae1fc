package bench

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// Plain words for benchmath's warnings.
//
// benchmath explains a missing interval or an unreachable p-value in its own terms ("need >= 9
// samples for confidence interval at level 0.9928571428571429"), at the level it was asked for,
// which in a budgeted run is a share of the configured one. A reader of the table wants to know
// what is missing and how much more would do: the warnings below say it with the samples there
// were, the samples needed and the level as a percentage.

// needSamples matches benchmath's two "need" warnings: op, count, which, level.
var needSamples = regexp.MustCompile(`^need (>=|>) (\d+) samples (for confidence interval at level|` +
	`to detect a difference at alpha level) (\S+)$`)

// plainWarnings rewords benchmath's warnings about the two summaries (base's and head's, each of n
// values) and the comparison; warnings it does not know are kept as they are. The result has each
// message once.
func plainWarnings(base, head []error, nBase, nHead int, cmp []error) []string {
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	interval := func(e error, n int, side string) {
		if need, level, ok := parseNeed(e); ok {
			have := fmt.Sprintf("%s has %d", side, n)
			if nBase == nHead {
				have = fmt.Sprintf("%d per side", n)
			}
			add(fmt.Sprintf("too few samples for an interval at %s: %s, %d needed", pct(level), have, need))
			return
		}
		add(e.Error())
	}
	for _, e := range base {
		interval(e, nBase, "base")
	}
	for _, e := range head {
		interval(e, nHead, "head")
	}
	for _, e := range cmp {
		if need, level, ok := parseNeed(e); ok {
			add(fmt.Sprintf("too few samples for benchstat's test to reach p < %s: %d and %d, %d per side needed",
				strconv.FormatFloat(level, 'g', 3, 64), nBase, nHead, need))
			continue
		}
		add(e.Error())
	}
	return out
}

// parseNeed reads one of benchmath's "need" warnings: the samples needed and the level.
func parseNeed(e error) (need int, level float64, ok bool) {
	if e == nil {
		return 0, 0, false
	}
	m := needSamples.FindStringSubmatch(e.Error())
	if m == nil {
		return 0, 0, false
	}
	need, err1 := strconv.Atoi(m[2])
	level, err2 := strconv.ParseFloat(m[4], 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	if m[1] == ">" {
		need++
	}
	return need, level, true
}

// pct formats a level in (0, 1) as a percentage with at most two decimals: "95%", "99.29%".
func pct(level float64) string {
	return strconv.FormatFloat(math.Round(level*1e4)/100, 'f', -1, 64) + "%"
}
