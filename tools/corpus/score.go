package corpus

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// Rule is how a score reads perfgate's result against the truth.
type Rule struct {
	// percent: a true change within ±Threshold is neutral, one beyond it should be found
	Threshold float64
	// the units whose classes are perfgate's claims, e.g. sec/op, instructions/op
	Units []string
}

// BenchScore is one benchmark of one pair: what the truth says and what perfgate claimed.
type BenchScore struct {
	Name    string
	Truth   TruthBench
	Claims  []record.Class // one per unit of the rule that perfgate reported for this benchmark
	Settled bool           // some claim is slower, faster or unchanged
	// GateSettled: Settled, or an inconclusive claim whose one-sided bound rules out a slowdown
	// beyond the gate's threshold for its unit (gate.RulesOutWorse): the gate's
	// question is answered.
	GateSettled bool
	Change      bool // the truth is a change beyond the threshold (the whole interval)
	Found       bool // a change, and a claim in its direction
	Missed      bool // a change, and perfgate called it unchanged
	// a claim against the truth's direction, or a change claimed where the truth is neutral
	DirErr bool
}

// PairScore is one pair's score.
type PairScore struct {
	Pair     string
	ExitCode int
	Status   string // perfgate's verdict status, or "no result"
	Benches  []BenchScore
	// FalseFail: the verdict blocked the merge (FAIL, exit 1, or INCONCLUSIVE, exit 4), and the
	// truth says no benchmark is slower beyond the threshold.
	FalseFail bool
	// the verdict blocked the merge, and the truth cannot tell whether a benchmark is slower beyond
	// it
	Unsure bool
	Wall   time.Duration
}

// Score compares one outcome with the pair's truth. Benchmarks that perfgate reported but the truth
// does not know (or the reverse) do not count.
func Score(p *Pair, o *Outcome, rule Rule) PairScore {
	ps := PairScore{Pair: p.Name, ExitCode: o.ExitCode, Status: "no result", Wall: o.Wall}
	claims := map[string][]record.Class{}
	// top-level benchmark → the classes of its same-code rows
	sameCode := map[string][]record.Class{}
	// benchmarks with an inconclusive claim that rules out a slowdown
	rulesOut := map[string]bool{}
	if o.Result != nil {
		ps.Status = string(o.Result.Verdict.Status)
		for _, b := range o.Result.Benchmarks {
			if !slices.Contains(rule.Units, b.Unit) {
				continue
			}
			claims[b.Name] = append(claims[b.Name], b.Class)
			th := o.Result.Method.Threshold
			if b.Unit == record.UnitInstructions && o.Result.Method.InstrThreshold > 0 {
				th = o.Result.Method.InstrThreshold
			}
			if b.Class == record.ClassInconclusive && gate.RulesOutWorse(b, th) {
				rulesOut[b.Name] = true
			}
			if b.SameCode {
				sameCode[b.Name] = append(sameCode[b.Name], b.Class)
			}
		}
	}
	slowerBeyond, unsure := false, false
	for _, t := range p.Truth.Benches {
		c, ok := claims[t.Name]
		if !ok {
			// Same machine code gives one row per top-level benchmark, which speaks for its
			// sub-benchmarks.
			top, _, _ := strings.Cut(t.Name, "/")
			c = sameCode[top]
		}
		bs := scoreBench(t, c, rule.Threshold)
		bs.GateSettled = bs.Settled || rulesOut[t.Name]
		ps.Benches = append(ps.Benches, bs)
		switch {
		case t.Lo > rule.Threshold:
			slowerBeyond = true
		case t.Hi > rule.Threshold:
			unsure = true
		}
	}
	if o.ExitCode == record.ExitFail || o.ExitCode == record.ExitInconclusive {
		ps.FalseFail = !slowerBeyond && !unsure
		ps.Unsure = !slowerBeyond && unsure
	}
	return ps
}

func scoreBench(t TruthBench, claims []record.Class, threshold float64) BenchScore {
	bs := BenchScore{Name: t.Name, Truth: t, Claims: claims, Change: t.Beyond(threshold)}
	dir := t.Direction()
	for _, c := range claims {
		switch c {
		case record.ClassSlower, record.ClassFaster, record.ClassUnchanged:
			bs.Settled = true
		}
		switch {
		case c == record.ClassSlower && (dir == Faster || t.Neutral(threshold)):
			bs.DirErr = true
		case c == record.ClassFaster && (dir == Slower || t.Neutral(threshold)):
			bs.DirErr = true
		case bs.Change && (c == record.ClassSlower && dir == Slower || c == record.ClassFaster && dir == Faster):
			bs.Found = true
		case bs.Change && c == record.ClassUnchanged:
			bs.Missed = true
		}
	}
	return bs
}

// Totals sums pair scores.
type Totals struct {
	Pairs, Benches, Settled, GateSettled, Changes, Found, Missed, DirErrs int
	Fails, Inconclusive, FalseFails, Unsure, Errors                       int
	Wall                                                                  time.Duration
}

// Sum adds up scores.
func Sum(scores []PairScore) Totals {
	var t Totals
	for _, ps := range scores {
		t.Pairs++
		t.Wall += ps.Wall
		switch {
		case ps.Status == "no result":
			t.Errors++
		case ps.ExitCode == record.ExitFail:
			t.Fails++
		case ps.ExitCode == record.ExitInconclusive:
			t.Inconclusive++
		case ps.ExitCode != record.ExitPass:
			t.Errors++ // ERROR (exit 3), or a usage error
		}
		t.FalseFails += btoi(ps.FalseFail)
		t.Unsure += btoi(ps.Unsure)
		for _, b := range ps.Benches {
			t.Benches++
			t.Settled += btoi(b.Settled)
			t.GateSettled += btoi(b.GateSettled)
			t.Changes += btoi(b.Change)
			t.Found += btoi(b.Found)
			t.Missed += btoi(b.Missed)
			t.DirErrs += btoi(b.DirErr)
		}
	}
	return t
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Row is the pair's line of the score table: pair | verdict | settled | settled for the gate |
// changes found | direction errors | false failure | wall time | what went wrong.
func (ps PairScore) Row() string {
	var settled, gateSettled, changes, found, dirErrs int
	var wrong []string
	for _, b := range ps.Benches {
		settled += btoi(b.Settled)
		gateSettled += btoi(b.GateSettled)
		changes += btoi(b.Change)
		found += btoi(b.Found)
		dirErrs += btoi(b.DirErr)
		if b.DirErr || b.Missed || b.Change && !b.Found {
			wrong = append(wrong, fmt.Sprintf("%s %s (truth %+.1f%% [%+.1f, %+.1f])", b.Name, claimText(b.Claims),
				b.Truth.Pct, b.Truth.Lo, b.Truth.Hi))
		}
	}
	ff := ""
	switch {
	case ps.FalseFail:
		ff = "yes"
	case ps.Unsure:
		ff = "truth unsure"
	}
	return fmt.Sprintf("| %s | %s (%d) | %d/%d | %d/%d | %d/%d | %d | %s | %.0fs | %s |", ps.Pair, ps.Status,
		ps.ExitCode, settled, len(ps.Benches), gateSettled, len(ps.Benches), found, changes, dirErrs, ff, ps.Wall.Seconds(), strings.Join(wrong, "; "))
}

// TableHeader is the header of the rows Row prints.
const TableHeader = "| pair | verdict (exit) | settled | for the gate | changes found | direction errors | " +
	"false failure | wall | wrong or missed |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |"

func claimText(cs []record.Class) string {
	if len(cs) == 0 {
		return "not reported"
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, "+")
}

// String is the totals line.
func (t Totals) String() string {
	pct := func(a, b int) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
	}
	return fmt.Sprintf("%d pairs, %d benchmarks: direction errors %d; false failures %d of %d pairs (a merge "+
		"blocked, FAIL or INCONCLUSIVE, where the truth has no slowdown beyond the threshold; %d more blocked where "+
		"the truth is unsure; verdicts: %d FAIL, %d INCONCLUSIVE, %d ERROR); changes found %d of %d (%d called "+
		"unchanged); settled %d of %d (%s), for the gate %d of %d (%s); wall time %s",
		t.Pairs, t.Benches, t.DirErrs, t.FalseFails, t.Pairs, t.Unsure, t.Fails, t.Inconclusive, t.Errors, t.Found,
		t.Changes, t.Missed, t.Settled, t.Benches, pct(t.Settled, t.Benches), t.GateSettled, t.Benches,
		pct(t.GateSettled, t.Benches), t.Wall.Round(time.Second))
}
