package corpus

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Changed is where a pair's change really lives: a function as its declaration names it ("reduce",
// "(*Digest).Write", an assembly TEXT symbol's name), the file that holds it (relative to the
// repository root, as in the pair's archive) and its lines in head, for the benchmarks Benches
// names (all changed ones when nil).
//
// In a pair's header: "changed: FUNC FILE:FROM-TO [BENCH ...]" (or FILE:LINE), one line per
// function.
type Changed struct {
	Func     string
	File     string
	From, To int
	Benches  []string
}

func parseChanged(value string) (Changed, error) {
	f := strings.Fields(value)
	if len(f) < 2 {
		return Changed{}, fmt.Errorf("want FUNC FILE:FROM-TO [BENCH ...], got %q", value)
	}
	c := Changed{Func: f[0], Benches: f[2:]}
	file, lines, ok := strings.Cut(f[1], ":")
	if !ok || checkPath(file) != nil {
		return Changed{}, fmt.Errorf("want FILE:FROM-TO, got %q", f[1])
	}
	c.File = file
	from, to, ranged := strings.Cut(lines, "-")
	var err1, err2 error
	c.From, err1 = strconv.Atoi(from)
	c.To, err2 = c.From, nil
	if ranged {
		c.To, err2 = strconv.Atoi(to)
	}
	if err1 != nil || err2 != nil || c.From < 1 || c.To < c.From {
		return Changed{}, fmt.Errorf("want lines FROM-TO, got %q", lines)
	}
	return c, nil
}

// applies reports whether c is where the change of benchmark name lives.
func (c Changed) applies(name string) bool {
	return len(c.Benches) == 0 || slices.Contains(c.Benches, name)
}

// String is "FUNC FILE:FROM-TO".
func (c Changed) String() string {
	if c.From == c.To {
		return fmt.Sprintf("%s %s:%d", c.Func, c.File, c.From)
	}
	return fmt.Sprintf("%s %s:%d-%d", c.Func, c.File, c.From, c.To)
}

// AttrScore is one changed benchmark of one pair: what perfgate's explanation (Result.Why) named
// first, where the change really lives, and whether they agree.
type AttrScore struct {
	Pair, Bench string
	// the top line (file:line, function, what is inlined there) or function; "" when nothing
	Named string
	Truth string // the Changed entries that apply, joined
	Hit   bool
}

// ScoreAttribution scores the explanations of o against p.Changed: for every benchmark the truth
// calls changed beyond threshold percent and some Changed entry applies to, whether the top
// attributed line lies in the changed lines, or its function (or the function inlined there) is the
// changed one, or the top function is the changed one or one it was inlined into, or, when the top
// code ran only in base, the head code that replaced it (Why.Replaced) is the changed one; without
// a count, whether the profile's top function is. Nil when the pair has no Changed entries or no
// truth.
func ScoreAttribution(p *Pair, o *Outcome, threshold float64) []AttrScore {
	if len(p.Changed) == 0 || p.Truth == nil {
		return nil
	}
	whys := map[string]record.Why{}
	if o != nil && o.Result != nil {
		for _, w := range o.Result.Why {
			whys[w.Name] = w
		}
	}
	var out []AttrScore
	for _, t := range p.Truth.Benches {
		if !t.Beyond(threshold) {
			continue
		}
		var truth []Changed
		for _, c := range p.Changed {
			if c.applies(t.Name) {
				truth = append(truth, c)
			}
		}
		if len(truth) == 0 {
			continue
		}
		s := AttrScore{Pair: p.Name, Bench: t.Name}
		var ts []string
		for _, c := range truth {
			ts = append(ts, c.String())
		}
		s.Truth = strings.Join(ts, "; ")
		w, ok := whys[t.Name]
		if ok {
			s.Named, s.Hit = judge(w, truth)
		}
		out = append(out, s)
	}
	return out
}

// judge names what w puts first and says whether it is one of truth.
func judge(w record.Why, truth []Changed) (string, bool) {
	isFunc := func(sym string) bool {
		if sym == "" {
			return false
		}
		// An assembly function's symbol carries its ABI ("Sum64.abi0"); its declaration is TEXT
		// ·Sum64.
		name := strings.TrimSuffix(declName(sym), ".abi0")
		for _, c := range truth {
			if name == c.Func {
				return true
			}
		}
		return false
	}
	inLines := func(file string, line int) bool {
		for _, c := range truth {
			if (file == c.File || strings.HasSuffix(file, "/"+c.File)) && line >= c.From && line <= c.To {
				return true
			}
		}
		return false
	}
	switch {
	case len(w.Lines) > 0:
		l := w.Lines[0]
		named := fmt.Sprintf("%s:%d %s", path.Base(l.File), l.Line, declName(l.Func))
		if l.Line == 0 {
			named = fmt.Sprintf("%s:%d (base) %s", path.Base(l.File), l.BaseLine, declName(l.Func))
		}
		if l.Inlined != "" {
			named += " (" + declName(l.Inlined) + " inlined)"
		}
		hit := l.Line > 0 && inLines(l.File, l.Line) || isFunc(l.Func) || isFunc(l.Inlined)
		if len(w.Funcs) > 0 {
			top := w.Funcs[0].Func
			named += "; top function " + declName(top)
			// The top function is the changed one, or one the changed one is inlined into.
			hit = hit || isFunc(top) || slices.ContainsFunc(w.Lines, func(x record.WhyLine) bool {
				return x.Func == top && isFunc(x.Inlined)
			})
		}
		if r := w.Replaced; r != nil {
			// The top code ran only in base: head's code that replaced it is where head's change
			// lives.
			named += "; replaced by " + declName(r.By)
			hit = hit || isFunc(r.By)
		}
		return named, hit
	case len(w.Profile) > 0:
		top := w.Profile[0].Func
		return "profile: " + declName(top), isFunc(top)
	}
	return "", false
}

// AttrHeader is the header of the rows AttrScore.Row prints.
const AttrHeader = "| pair | benchmark | named | truth | hit |\n| --- | --- | --- | --- | --- |"

// Row is the score's line of the attribution table.
func (s AttrScore) Row() string {
	named := s.Named
	if named == "" {
		named = "nothing"
	}
	hit := "no"
	if s.Hit {
		hit = "yes"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s |", s.Pair, s.Bench, named, s.Truth, hit)
}

// AttrTotals is the attribution table's summary line.
func AttrTotals(ss []AttrScore) string {
	hits := 0
	for _, s := range ss {
		hits += btoi(s.Hit)
	}
	if len(ss) == 0 {
		return "attribution: no changed benchmark with a known place of change"
	}
	return fmt.Sprintf("attribution: the top line or function is the changed one for %d of %d changed benchmarks "+
		"(%.0f%%)", hits, len(ss), 100*float64(hits)/float64(len(ss)))
}

// declName is the name a function's declaration has ("(*Cipher).Encrypt") for its symbol
// ("example.com/xtea.(*Cipher).Encrypt"), as attribution.DeclName gives it (this module does not
// need that package's dependencies).
func declName(symbol string) string {
	prefix := symbol
	if i := strings.IndexAny(symbol, "(["); i >= 0 {
		prefix = symbol[:i]
	}
	rest := symbol[strings.LastIndexByte(prefix, '/')+1:]
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		return rest[i+1:]
	}
	return rest
}
