package bisect

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// fakeOracle is a history with a known truth: each commit's speed relative to GOOD (1.0 = GOOD's
// time per op), commits that do not build, and commits whose comparisons stay inconclusive for some
// tries. It answers as the pipeline would for a 2% threshold and a ±0.5% interval.
type fakeOracle struct {
	path    []Commit
	speed   []float64      // time per op relative to GOOD, by path index
	broken  map[int]bool   // does not build
	noisy   map[int]int    // inconclusive on the first noisy[i] tries
	fail    map[int]error  // the oracle itself fails
	calls   []Request      //
	clock   *time.Duration // advanced per comparison when not nil
	perStep time.Duration
}

const fakeThreshold = 2.0

func newFake(speed ...float64) *fakeOracle {
	f := &fakeOracle{speed: speed, broken: map[int]bool{}, noisy: map[int]int{}, fail: map[int]error{}}
	for i := range speed {
		f.path = append(f.path, Commit{SHA: fmt.Sprintf("%x", sha1.Sum([]byte{byte(i)})), Subject: fmt.Sprintf("commit %d", i)})
	}
	return f
}

func (f *fakeOracle) index(c Commit) int {
	for i, p := range f.path {
		if p.SHA == c.SHA {
			return i
		}
	}
	panic("unknown commit " + c.SHA)
}

func (f *fakeOracle) Compare(ctx context.Context, req Request) (Probe, error) {
	f.calls = append(f.calls, req)
	if f.clock != nil {
		*f.clock += f.perStep
	}
	h, b := f.index(req.Head), f.index(req.Base)
	if err := f.fail[h]; err != nil {
		return Probe{}, err
	}
	if f.broken[h] {
		return Probe{Outcome: NoBuild, Reason: "undefined: Mix"}, nil
	}
	pct := 100 * (f.speed[h]/f.speed[b] - 1)
	c := Change{Benchmark: "Mix", Unit: record.UnitTime, Lane: "time", Pct: pct, Lo: pct - 0.5, Hi: pct + 0.5}
	if req.Try <= f.noisy[h] {
		c.Lo, c.Hi = pct-5, pct+5
		c.Class = string(record.ClassInconclusive)
		return Probe{Outcome: Inconclusive, Change: &c, Changes: []Change{c}, Reason: "too noisy"}, nil
	}
	p := Probe{Outcome: NotSlower}
	c.Class = string(record.ClassUnchanged)
	if pct > fakeThreshold {
		p.Outcome, c.Class = Slower, string(record.ClassSlower)
	}
	p.Change, p.Changes = &c, []Change{c}
	return p, nil
}

func (f *fakeOracle) search(t *testing.T) (*Report, error) {
	t.Helper()
	var log strings.Builder
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("progress:\n%s", log.String())
		}
	})
	cfg := Config{Path: f.path, Oracle: f, Check: CheckTime, Threshold: fakeThreshold, Log: &log}
	if f.clock != nil {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		cfg.now = func() time.Time { return start.Add(*f.clock) }
	}
	return Search(context.Background(), cfg)
}

// step returns a history of n commits after GOOD whose commit at (1-based) index k is 3× slower.
func step(n, k int) *fakeOracle {
	speed := make([]float64, n+1)
	for i := range speed {
		speed[i] = 1
		if i >= k {
			speed[i] = 3
		}
	}
	return newFake(speed...)
}

func TestSearchFindsEveryCulprit(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for k := 1; k <= n; k++ {
			f := step(n, k)
			rep, err := f.search(t)
			if err != nil {
				t.Fatalf("n=%d k=%d: %v", n, k, err)
			}
			if rep.Status != StatusCulprit || rep.Culprit.Index != k || rep.Culprit.SHA != f.path[k].SHA {
				t.Fatalf("n=%d k=%d: status %s, culprit %+v; want commit %d", n, k, rep.Status, rep.Culprit, k)
			}
			if !rep.Culprit.Confirmed || rep.Culprit.Parent.SHA != f.path[k-1].SHA {
				t.Errorf("n=%d k=%d: culprit not confirmed against its parent: %+v", n, k, rep.Culprit)
			}
			if c := rep.Culprit.ParentChange; c == nil || math.Abs(c.Pct-200) > 1e-9 {
				t.Errorf("n=%d k=%d: change against the parent %v, want +200%%", n, k, c)
			}
			bound := int(math.Ceil(math.Log2(float64(n)))) + 2
			if rep.Comparisons > bound || rep.Comparisons != len(f.calls) {
				t.Errorf("n=%d k=%d: %d comparisons (%d oracle calls), want at most ⌈log₂ n⌉ + 2 = %d", n, k,
					rep.Comparisons, len(f.calls), bound)
			}
			// Every comparison but the confirmation is against GOOD, and the first is BAD.
			if f.calls[0].Head.SHA != f.path[n].SHA {
				t.Errorf("n=%d k=%d: first comparison is %s, want BAD", n, k, f.calls[0].Head.Short())
			}
			for _, s := range rep.Steps {
				if s.Role != RoleConfirm && s.Base.SHA != f.path[0].SHA {
					t.Errorf("n=%d k=%d: step %d compares against %s, not GOOD", n, k, s.N, s.Base.Short())
				}
			}
			if len(rep.Notes) > 0 {
				t.Errorf("n=%d k=%d: unexpected notes %q", n, k, rep.Notes)
			}
		}
	}
}

func TestSearchNoChange(t *testing.T) {
	f := newFake(1, 1, 1.01, 0.9, 1.005)
	rep, err := f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusNoChange || rep.Culprit != nil || rep.Comparisons != 1 || rep.ExitCode() != 0 {
		t.Errorf("got status %s, culprit %v, %d comparisons, exit %d; want no-change after 1 comparison, exit 0",
			rep.Status, rep.Culprit, rep.Comparisons, rep.ExitCode())
	}
	if rep.BadChange == nil || math.Abs(rep.BadChange.Pct-0.5) > 1e-9 {
		t.Errorf("BAD's change = %v, want +0.5%%", rep.BadChange)
	}
}

func TestSearchSkipsUnbuildable(t *testing.T) {
	// 8 commits after GOOD, the slowdown at 6; 4, the first midpoint, does not build: a neighbour
	// is tried instead, and the culprit is still isolated.
	f := step(8, 6)
	f.broken[4] = true
	rep, err := f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusCulprit || rep.Culprit.Index != 6 || !rep.Culprit.Confirmed {
		t.Fatalf("status %s, culprit %+v; want commit 6, confirmed", rep.Status, rep.Culprit)
	}
	if s := rep.Steps[1]; s.Index != 4 || s.Outcome != NoBuild {
		t.Errorf("step 2 tested commit %d (%s); want the midpoint 4, which does not build", s.Index, s.Outcome)
	}
	if s := rep.Steps[2]; s.Index != 3 && s.Index != 5 {
		t.Errorf("after skipping 4, step 3 tested commit %d; want a neighbour, 3 or 5", s.Index)
	}

	// The culprit's parent does not build: the first slower commit is one of the two, and the
	// report says so.
	f = step(8, 6)
	f.broken[5] = true
	rep, err = f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	want := []Commit{f.path[5], f.path[6]}
	if rep.Status != StatusUndecided || !cmp.Equal(rep.Candidates, want) || rep.ExitCode() != record.ExitCannotRun {
		t.Errorf("status %s, candidates %v, exit %d; want undecided between 5 and 6, exit 3", rep.Status,
			rep.Candidates, rep.ExitCode())
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), f.path[5].Short()+" could not be tested: does-not-build") {
		t.Errorf("notes %q do not say why commit 5 was skipped", rep.Notes)
	}

	// BAD itself does not build: nothing can be searched.
	f = step(4, 2)
	f.broken[4] = true
	rep, err = f.search(t)
	if err != nil || rep.Status != StatusUndecided || rep.Comparisons != 1 {
		t.Errorf("BAD broken: status %s after %d comparisons, err %v; want undecided after 1", rep.Status,
			rep.Comparisons, err)
	}
}

func TestSearchRerunsInconclusive(t *testing.T) {
	// The first midpoint is inconclusive once: it runs again (with more budget) and the search goes
	// on.
	f := step(8, 3)
	f.noisy[4] = 1
	rep, err := f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusCulprit || rep.Culprit.Index != 3 {
		t.Fatalf("status %s, culprit %+v; want commit 3", rep.Status, rep.Culprit)
	}
	var tries []string
	for _, s := range rep.Steps {
		tries = append(tries, fmt.Sprintf("%d/%d:%s", s.Index, s.Try, s.Outcome))
	}
	if tries[1] != "4/1:inconclusive" || tries[2] != "4/2:slower" {
		t.Errorf("steps %v; want commit 4 inconclusive, then slower on its second run", tries)
	}
	if f.calls[2].Try != 2 {
		t.Errorf("the re-run was asked with Try %d, want 2", f.calls[2].Try)
	}

	// A commit that stays inconclusive is never guessed: it is left untested like a skipped one,
	// and when it is the culprit's neighbour the report names both candidates.
	f = step(8, 5)
	f.noisy[4] = 99
	rep, err = f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	want := []Commit{f.path[4], f.path[5]}
	if rep.Status != StatusUndecided || !cmp.Equal(rep.Candidates, want) {
		t.Errorf("status %s, candidates %v; want undecided between 4 and 5", rep.Status, rep.Candidates)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "inconclusive: too noisy") {
		t.Errorf("notes %q do not say commit 4 stayed inconclusive", rep.Notes)
	}

	// BAD stays inconclusive: undecided, never "no change".
	f = step(4, 2)
	f.noisy[4] = 99
	rep, _ = f.search(t)
	if rep.Status != StatusUndecided || rep.Comparisons != 2 {
		t.Errorf("BAD inconclusive: status %s after %d comparisons; want undecided after 2", rep.Status, rep.Comparisons)
	}
}

func TestSearchSeveralChanges(t *testing.T) {
	// +10% at 3, then +30% more at 7: the first is found, and BAD's larger change is reported.
	speed := []float64{1, 1, 1, 1.1, 1.1, 1.1, 1.1, 1.43, 1.43}
	f := newFake(speed...)
	rep, err := f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusCulprit || rep.Culprit.Index != 3 || !rep.Culprit.Confirmed {
		t.Fatalf("status %s, culprit %+v; want commit 3", rep.Status, rep.Culprit)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "more than one commit contributed: Mix is +43.0% at BAD against GOOD, +10.0% at the culprit") ||
		!strings.Contains(notes, "bisect "+f.path[3].Short()+".."+f.path[8].Short()) {
		t.Errorf("notes %q do not say that more than one commit contributed", rep.Notes)
	}

	// One change only: no such note.
	f = step(8, 3)
	if rep, _ = f.search(t); strings.Contains(strings.Join(rep.Notes, "\n"), "more than one") {
		t.Errorf("one change, notes %q", rep.Notes)
	}
}

func TestSearchGradual(t *testing.T) {
	// +1.5% a commit: the threshold is crossed at 2 (+3.0% against GOOD), but against its parent 2
	// is only +1.5%.
	speed := []float64{1, 1.015, 1.03, 1.045, 1.06, 1.075, 1.09, 1.105, 1.12}
	f := newFake(speed...)
	rep, err := f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusCulprit || rep.Culprit.Index != 2 || rep.Culprit.Confirmed {
		t.Fatalf("status %s, culprit %+v; want commit 2, not confirmed", rep.Status, rep.Culprit)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "built up over several commits") {
		t.Errorf("notes %q do not explain the unconfirmed culprit", rep.Notes)
	}
}

func TestSearchOracleError(t *testing.T) {
	f := step(8, 3)
	boom := errors.New("base does not build")
	f.fail[4] = boom
	dir := t.TempDir()
	rep, err := Search(context.Background(), Config{Path: f.path, Oracle: f, Check: CheckTime, Out: dir})
	if !errors.Is(err, boom) || rep.Status != StatusInterrupted || rep.ExitCode() != record.ExitCannotRun {
		t.Fatalf("err %v, status %s; want the oracle's error and interrupted, exit 3", err, rep.Status)
	}
	saved, err := ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Status != StatusInterrupted || len(saved.Steps) != 1 || saved.Steps[0].Outcome != Slower {
		t.Errorf("bisect.json: status %s, steps %+v; want interrupted with BAD's step", saved.Status, saved.Steps)
	}
}

func TestSearchProgress(t *testing.T) {
	f := step(8, 3)
	clock := time.Duration(0)
	f.clock, f.perStep = &clock, 10*time.Second
	var log strings.Builder
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := Config{Path: f.path, Oracle: f, Check: CheckTime, Log: &log,
		now: func() time.Time { return start.Add(clock) }}
	rep, err := Search(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(log.String(), "\n")
	// Before step 1: 1 + ⌈log₂ 8⌉ + 1 = 5 comparisons; before step 2 (8 commits to halve, then the
	// confirmation): 4, at the 10 s one took.
	if !strings.Contains(lines[0], "step 1 (bad)") || !strings.Contains(lines[0], "~5 comparisons to go") ||
		!strings.Contains(lines[0], "time left known after the first step") {
		t.Errorf("first progress line %q", lines[0])
	}
	if !strings.Contains(lines[2], "step 2 (search)") || !strings.Contains(lines[2], "~4 comparisons to go, about 40s left") {
		t.Errorf("second progress line %q", lines[2])
	}
	if rep.Duration != time.Duration(rep.Comparisons)*10*time.Second {
		t.Errorf("duration %s for %d comparisons of 10s", rep.Duration, rep.Comparisons)
	}
}

func TestWriteText(t *testing.T) {
	f := newFake(1, 1, 1.1, 1.1, 1.5)
	f.path[2].Subject = "::error::make Mix slower"
	rep, err := f.search(t)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	first, _, _ := strings.Cut(out, "\n")
	if want := "culprit " + f.path[2].SHA; !strings.HasPrefix(first, want) {
		t.Errorf("first line %q, want it to start with %q", first, want)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a workflow command from a subject starts a line of the output:\n%s", out)
		}
	}
	for _, want := range []string{"against its parent " + f.path[1].Short() + ": Mix +10.0% [+9.5%, +10.5%] (time)",
		"confirmed against its parent", "more than one commit contributed", "  1  bad"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, " vs "); n != rep.Comparisons {
		t.Errorf("%d step lines for %d comparisons:\n%s", n, rep.Comparisons, out)
	}
}
