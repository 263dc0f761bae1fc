package bench

import (
	"regexp"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Rejudge corrects the paired p-values of cs again, as one family per unit, and classes the tested
// comparisons (Comparison.Tested) anew by Analyze's rules. Comparisons analysed apart (one package
// at a time, one shard at a time) and then put together are judged as if Analyze had seen them at
// once: the Holm correction runs over the union, so gating more packages never raises the chance of
// a false "slower". Untested comparisons (failed, identical, exact) keep their class.
func Rejudge(cs []record.Benchmark, opt StatsOptions) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	tested := make([]bool, len(cs))
	for i := range cs {
		c := &cs[i]
		if !c.Tested || c.Paired == nil {
			continue
		}
		tested[i] = true
		c.Class, c.Note = "", classifierFree(c.Note, c.Warnings)
	}
	holmByUnit(cs, tested)
	for i := range cs {
		if !tested[i] {
			continue
		}
		c := &cs[i]
		classify(c, opt)
		if c.Note == "" {
			c.Note = strings.Join(c.Warnings, "; ")
		}
	}
	return nil
}

// RejudgeFamilies is Rejudge for comparisons of staged runs (StatsOptions.Sequential), whose
// p-values were corrected by alpha spending within each package's family and cannot be pooled
// again: each tested comparison's p-value within its family (PFamily, recorded the first time) is
// multiplied by the number of families, a Bonferroni correction over the packages that keeps the
// family-wise error rate of the union at Alpha, and the comparison is classed again. Its interval
// stays the one its own run computed.
func RejudgeFamilies(cs []record.Benchmark, families int, opt StatsOptions) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	for i := range cs {
		c := &cs[i]
		if !c.Tested || c.Paired == nil {
			continue
		}
		if c.PFamily == 0 {
			c.PFamily = c.PHolm
		}
		c.PHolm = min(1, c.PFamily*float64(max(1, families)))
		c.Class, c.Note = "", classifierFree(c.Note, c.Warnings)
		classify(c, opt)
		if c.Note == "" {
			c.Note = strings.Join(c.Warnings, "; ")
		}
	}
	return nil
}

// classifiedNote matches the parts of a Note that classify writes.
var classifiedNote = regexp.MustCompile(`^(interval .* exceeds ±.*%|\d+ of \d+ rounds disturbed, left out)$`)

// classifierFree returns note without what classify added to it, and without the warnings Analyze
// copied into an otherwise empty note: the note as compare left it.
func classifierFree(note string, warnings []string) string {
	if note == strings.Join(warnings, "; ") {
		return ""
	}
	var keep []string
	for part := range strings.SplitSeq(note, "; ") {
		if !classifiedNote.MatchString(part) {
			keep = append(keep, part)
		}
	}
	return strings.Join(keep, "; ")
}
